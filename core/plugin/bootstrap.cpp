// The steps of a bootstrap, checked between the ranks, and the C view that
// modules receive (see bootstrap.hpp).
//
// A step's message is its header, a NUL and its payload; the header is
// "ngx-step NUMBER KIND LABEL". Whoever receives a message compares its
// header with the step it is in itself: the kind (exchange, barrier,
// broadcast, gather) and the label always, the number where the two ranks
// take the same steps (a pair, or every rank of a group without pairs; the
// pairs of a larger run may take different numbers of steps, e.g. after
// losses). An exchange and the barrier of two ranks are one exchange of
// headers, so both ranks see a mismatch; a broadcast and a gather stay
// one-way (a rooted barrier relies on who waits for whom), so their
// receivers see it. The check costs a header of a few tens of bytes on
// messages that are never timed.
#include <ngx/bootstrap.hpp>

#include <algorithm>
#include <cstdio>

namespace ngx {
namespace {

struct StepHeader {
    uint64_t number = 0;
    std::string kind; // exchange, barrier, broadcast, gather
    std::string label;
};

constexpr std::string_view step_tag = "ngx-step ";

Bytes framed(const StepHeader& step, const Bytes& payload)
{
    std::string head = std::string(step_tag) + std::to_string(step.number) + " " + step.kind + " " + step.label;
    Bytes message(head.begin(), head.end());
    message.push_back(0);
    message.insert(message.end(), payload.begin(), payload.end());
    return message;
}

// What a message that names no step looked like, for the error.
std::string printable_start(const Bytes& message)
{
    std::string text;
    for (size_t i = 0; i < message.size() && text.size() < 40; ++i)
        text += message[i] >= 0x20 && message[i] < 0x7f ? char(message[i]) : '.';
    return text;
}

// The step of rank `from`'s message; its payload goes to `payload` (when not null).
Result<StepHeader> unframed(const Bytes& message, Bytes* payload, int from)
{
    auto end = std::find(message.begin(), message.end(), uint8_t(0));
    std::string head(message.begin(), end);
    size_t number_end = head.find(' ', step_tag.size());
    size_t kind_end = number_end == std::string::npos ? number_end : head.find(' ', number_end + 1);
    StepHeader step;
    bool ok = end != message.end() && head.compare(0, step_tag.size(), step_tag) == 0 && kind_end != std::string::npos;
    if (ok) {
        std::string number = head.substr(step_tag.size(), number_end - step_tag.size());
        ok = !number.empty() && number.find_first_not_of("0123456789") == std::string::npos;
        step.number = ok ? std::stoull(number) : 0;
        step.kind = head.substr(number_end + 1, kind_end - number_end - 1);
        step.label = head.substr(kind_end + 1);
    }
    if (!ok)
        return Status::runtime("bootstrap: rank " + std::to_string(from) +
                               " sent a message that names no step (another ngx?): '" + printable_start(message) + "'");
    if (payload != nullptr)
        payload->assign(end + 1, message.end());
    return step;
}

std::string described(int rank, const StepHeader& step)
{
    return "rank " + std::to_string(rank) + " is in step " + std::to_string(step.number) + " '" + step.label + "' (" +
           step.kind + ")";
}

// Ok when rank `their_rank` is in the step `mine` is: the same kind and
// label and, when `numbered`, the same number. The error names both, the
// lower rank first.
Status agree(const StepHeader& mine, int my_rank, const StepHeader& theirs, int their_rank, bool numbered)
{
    if (mine.kind == theirs.kind && mine.label == theirs.label && (!numbered || mine.number == theirs.number))
        return Status::ok();
    std::string me = described(my_rank, mine), them = described(their_rank, theirs);
    return Status::runtime(
        "bootstrap desync: " + (my_rank < their_rank ? me + " while " + them : them + " while " + me) +
        " (the ranks disagree about the step they are in)");
}

// The pair's part of a step: headers (and payloads) both ways, both ranks check.
Status pair_step(Bootstrap& boot, const StepHeader& mine, const Bytes& payload, Bytes& theirs)
{
    Bytes received;
    NGX_TRY(boot.raw_exchange(framed(mine, payload), received).with_context(mine.label));
    NGX_ASSIGN_OR_RETURN(StepHeader step, unframed(received, &theirs, boot.peer()));
    return agree(mine, boot.rank(), step, boot.peer(), true);
}

// Whether two ranks take the same steps: both ranks of a pair, or every rank
// of a group without pairs (see the top of this file).
bool numbered_alike(const Bootstrap& boot)
{
    return boot.nranks() == 2 || !boot.has_pair_channel();
}

// Rank 0's verdict on the ranks' messages of a gather: "" when every rank is
// in `mine`, else the desync error; the payloads go to `all`.
std::string verdict(const Bootstrap& boot, const StepHeader& mine, const std::vector<Bytes>& messages,
                    std::vector<Bytes>& all)
{
    all.assign(messages.size(), Bytes());
    for (size_t r = 0; r < messages.size(); ++r) {
        Result<StepHeader> step = unframed(messages[r], &all[r], int(r));
        Status agreed = step ? agree(mine, 0, *step, int(r), numbered_alike(boot)) : step.status();
        if (!agreed)
            return agreed.message();
    }
    return "";
}

// A barrier of every rank: the headers reach rank 0, its verdict every rank.
Status group_barrier(Bootstrap& boot, const StepHeader& mine)
{
    std::vector<Bytes> messages, ignored;
    NGX_TRY(boot.raw_gather(framed(mine, {}), messages).with_context(mine.label));
    std::string judged = boot.rank() == 0 ? verdict(boot, mine, messages, ignored) : "";
    Bytes answer = boot.rank() == 0 ? framed(mine, to_bytes(judged)) : Bytes();
    NGX_TRY(boot.raw_broadcast(answer).with_context(mine.label));
    if (boot.rank() == 0)
        return judged.empty() ? Status::ok() : Status::runtime(judged);
    Bytes judgement;
    NGX_ASSIGN_OR_RETURN(StepHeader root, unframed(answer, &judgement, 0));
    NGX_TRY(agree(mine, boot.rank(), root, 0, numbered_alike(boot)));
    return judgement.empty() ? Status::ok() : Status::runtime(to_string(judgement));
}

// A failed step as a module sees it.
ngx_status module_failure(const char* what, const Status& status, ngx_error* err)
{
    std::snprintf(err->message, sizeof err->message, "bootstrap %s: %s", what, status.message().c_str());
    return status.kind() == ErrorKind::interrupted ? NGX_ERR_INTERRUPTED : NGX_ERR_PEER_LOST;
}

ngx_status exchange_thunk(void* ctx, const void* mine, size_t mine_len, void* theirs, size_t theirs_capacity,
                          size_t* theirs_len, ngx_error* err)
{
    auto* boot = static_cast<Bootstrap*>(ctx);
    const auto* first = static_cast<const uint8_t*>(mine);
    Bytes received;
    Status status =
        boot->exchange(mine_len == 0 ? Bytes() : Bytes(first, first + mine_len), received, "module: exchange");
    if (!status)
        return module_failure("exchange", status, err);
    if (received.size() > theirs_capacity) {
        std::snprintf(err->message, sizeof err->message,
                      "bootstrap exchange: the peer sent %zu bytes, more than the %zu expected", received.size(),
                      theirs_capacity);
        return NGX_ERR_PROTOCOL;
    }
    std::copy(received.begin(), received.end(), static_cast<uint8_t*>(theirs));
    *theirs_len = received.size();
    return NGX_OK;
}

// A pairwise barrier: both peers have arrived once each has the other's empty blob.
ngx_status barrier_thunk(void* ctx, ngx_error* err)
{
    auto* boot = static_cast<Bootstrap*>(ctx);
    Bytes ignored;
    Status status = boot->exchange({}, ignored, "module: barrier");
    return status ? NGX_OK : module_failure("barrier", status, err);
}

} // namespace

Status Bootstrap::exchange(const Bytes& mine, Bytes& theirs, std::string_view step)
{
    return pair_step(*this, {++steps_, "exchange", std::string(step)}, mine, theirs);
}

// Two ranks with a pair channel: one exchange of headers. More ranks: the
// pair's exchange (so that a peer in an exchange sees the barrier at once),
// then the group's (none for the view of one link).
Status Bootstrap::barrier(std::string_view step)
{
    StepHeader mine{++steps_, "barrier", std::string(step)};
    if (has_pair_channel()) {
        Bytes ignored;
        NGX_TRY(pair_step(*this, mine, {}, ignored));
        if (nranks() == 2 || !has_collectives())
            return Status::ok();
    }
    return group_barrier(*this, mine);
}

Status Bootstrap::broadcast(Bytes& value, std::string_view step)
{
    StepHeader mine{++steps_, "broadcast", std::string(step)};
    Bytes message = rank() == 0 ? framed(mine, value) : Bytes();
    NGX_TRY(raw_broadcast(message).with_context(mine.label));
    if (rank() == 0)
        return Status::ok();
    NGX_ASSIGN_OR_RETURN(StepHeader root, unframed(message, &value, 0));
    return agree(mine, rank(), root, 0, numbered_alike(*this));
}

Status Bootstrap::gather(const Bytes& mine, std::vector<Bytes>& all, std::string_view step)
{
    StepHeader header{++steps_, "gather", std::string(step)};
    std::vector<Bytes> messages;
    NGX_TRY(raw_gather(framed(header, mine), messages).with_context(header.label));
    all.clear();
    if (rank() != 0)
        return Status::ok();
    std::string judged = verdict(*this, header, messages, all);
    return judged.empty() ? Status::ok() : Status::runtime(judged);
}

ngx_bootstrap Bootstrap::c_view()
{
    local_address_copy_ = local_address();
    peer_address_copy_ = peer_address();
    ngx_bootstrap view{};
    view.size = sizeof view;
    view.ctx = this;
    view.rank = rank();
    view.nranks = nranks();
    view.peer = peer();
    view.local_address = local_address_copy_.c_str();
    view.peer_address = peer_address_copy_.c_str();
    view.exchange = exchange_thunk;
    view.barrier = barrier_thunk;
    return view;
}

std::string known_host_address(const Bootstrap& boot, int rank)
{
    const auto* directory = dynamic_cast<const HostDirectory*>(&boot);
    return directory != nullptr ? directory->host_address_of(rank) : std::string();
}

Bytes to_bytes(const std::string& text)
{
    return Bytes(text.begin(), text.end());
}

std::string to_string(const Bytes& bytes)
{
    return std::string(bytes.begin(), bytes.end());
}

std::string Bootstrap::name() const
{
    switch (kind()) {
    case BootstrapKind::local:
        return "local";
    case BootstrapKind::tcp:
        return "tcp";
    case BootstrapKind::mpi:
        return "mpi";
    }
    return "unknown";
}

} // namespace ngx
