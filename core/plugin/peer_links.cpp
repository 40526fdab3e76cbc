// Per-peer links, opened collectively through relay steps (see peer_links.hpp).
#include <ngx/peer_links.hpp>

#include <algorithm>
#include <cstring>

namespace ngx {
namespace {

// What a rank says in one relay step.
enum class StepState : uint8_t { exchanging = 0, finished = 1, failed = 2 };

struct Frame {
    StepState state = StepState::finished;
    int32_t to = -1; // exchanging: the rank its blob is for
    Bytes blob;      // exchanging: the blob; failed: the error message
};

void put_u32(Bytes& out, uint32_t value)
{
    uint8_t raw[4];
    std::memcpy(raw, &value, sizeof raw);
    out.insert(out.end(), raw, raw + sizeof raw);
}

bool get_u32(const Bytes& in, size_t& at, uint32_t& value)
{
    if (in.size() - at < 4)
        return false;
    std::memcpy(&value, in.data() + at, 4);
    at += 4;
    return true;
}

Bytes encode(const Frame& frame)
{
    Bytes out;
    out.reserve(5 + frame.blob.size());
    out.push_back(uint8_t(frame.state));
    put_u32(out, uint32_t(frame.to));
    out.insert(out.end(), frame.blob.begin(), frame.blob.end());
    return out;
}

// One relay step: every rank's frame reaches every rank (a gather to rank 0,
// then a broadcast of all of them), under the bootstrap's deadlines.
Result<std::vector<Frame>> relay_step(Bootstrap& boot, const Frame& mine)
{
    std::vector<Bytes> all;
    NGX_TRY(boot.gather(encode(mine), all, "opening links: relay step"));
    Bytes joined;
    if (boot.rank() == 0)
        for (const Bytes& frame : all) {
            put_u32(joined, uint32_t(frame.size()));
            joined.insert(joined.end(), frame.begin(), frame.end());
        }
    NGX_TRY(boot.broadcast(joined, "opening links: relay step"));
    std::vector<Frame> frames;
    size_t at = 0;
    uint32_t length = 0, to = 0;
    while (at < joined.size()) {
        if (!get_u32(joined, at, length) || length < 5 || joined.size() - at < length)
            return Status::runtime("opening links: a relay step arrived garbled");
        Frame frame;
        frame.state = StepState(joined[at]);
        size_t inner = at + 1;
        get_u32(joined, inner, to);
        frame.to = int32_t(to);
        frame.blob.assign(joined.begin() + long(at + 5), joined.begin() + long(at + length));
        frames.push_back(std::move(frame));
        at += length;
    }
    if (frames.size() != size_t(boot.nranks()))
        return Status::runtime("opening links: a relay step carried " + std::to_string(frames.size()) +
                               " ranks' frames, the run has " + std::to_string(boot.nranks()));
    return frames;
}

// The bootstrap a module sees while it opens one link: exchange() and
// barrier() reach `peer` through relay steps; no collectives (nor, with
// more than two ranks, a barrier of all).
class RelayBootstrap final : public Bootstrap {
public:
    RelayBootstrap(Bootstrap& all, int peer, std::string peer_address)
            : all_(all), peer_(peer), peer_address_(std::move(peer_address))
    {
    }
    BootstrapKind kind() const override { return all_.kind(); }
    int rank() const override { return all_.rank(); }
    int nranks() const override { return all_.nranks(); }
    int peer() const override { return peer_; }
    bool is_driver() const override { return rank() < peer_; }
    std::string local_address() const override { return all_.local_address(); }
    std::string peer_address() const override { return peer_address_; }

    Status raw_exchange(const Bytes& mine, Bytes& theirs) override
    {
        NGX_ASSIGN_OR_RETURN(const std::vector<Frame> frames,
                             relay_step(all_, Frame{StepState::exchanging, peer_, mine}));
        const Frame& answer = frames[size_t(peer_)];
        if (answer.state != StepState::exchanging || answer.to != rank())
            return Status::runtime("rank " + std::to_string(peer_) +
                                   " did not take part in the link's exchange (it ended opening the link early or "
                                   "failed: " +
                                   (answer.state == StepState::failed ? to_string(answer.blob) : "no message") + ")");
        theirs = answer.blob;
        return Status::ok();
    }
    bool has_collectives() const override { return false; }
    Status raw_broadcast(Bytes&) override { return no_collectives(); }
    Status raw_gather(const Bytes&, std::vector<Bytes>&) override { return no_collectives(); }

private:
    static Status no_collectives()
    {
        return Status::runtime("opening a link: the bootstrap of one link has no collectives");
    }
    Bootstrap& all_;
    int peer_;
    std::string peer_address_;
};

// Relay steps until every rank has ended its part; the first failure, its
// rank named, is every rank's result.
Status finish_matching(Bootstrap& boot, const Status& mine)
{
    Frame frame{mine ? StepState::finished : StepState::failed, -1, mine ? Bytes() : to_bytes(mine.message())};
    for (;;) {
        NGX_ASSIGN_OR_RETURN(std::vector<Frame> step, relay_step(boot, frame));
        const std::vector<Frame>& frames = step;
        bool everyone_ended =
            std::none_of(frames.begin(), frames.end(), [](const Frame& f) { return f.state == StepState::exchanging; });
        if (!everyone_ended)
            continue;
        if (!mine)
            return mine;
        for (size_t rank = 0; rank < frames.size(); ++rank)
            if (frames[rank].state == StepState::failed)
                return Status::runtime("rank " + std::to_string(rank) +
                                       " could not open its link: " + to_string(frames[rank].blob));
        return Status::ok();
    }
}

// The partner of `rank` in a matching, or -1.
int partner_in(const std::vector<Link>& matching, int rank)
{
    for (const Link& link : matching)
        if (link.first == rank || link.second == rank)
            return link.first == rank ? link.second : link.first;
    return -1;
}

// A rank's address and the peer its connect() opened (-1: none), in one blob.
Bytes describe_rank(Bootstrap& boot, int connected_peer)
{
    Bytes out;
    put_u32(out, uint32_t(connected_peer));
    std::string address = boot.local_address();
    out.insert(out.end(), address.begin(), address.end());
    return out;
}

} // namespace

Link link_between(int a, int b)
{
    return {std::min(a, b), std::max(a, b)};
}

std::vector<std::vector<Link>> split_into_matchings(const std::vector<Link>& links)
{
    std::vector<std::vector<Link>> matchings;
    for (const Link& link : links) {
        auto fits = [&](const std::vector<Link>& matching) {
            return partner_in(matching, link.first) < 0 && partner_in(matching, link.second) < 0;
        };
        auto where = std::find_if(matchings.begin(), matchings.end(), fits);
        if (where == matchings.end())
            matchings.push_back({link});
        else
            where->push_back(link);
    }
    return matchings;
}

std::vector<std::string> link_addresses(const Bootstrap& boot, const std::vector<std::string>& relayed)
{
    std::vector<std::string> addresses;
    for (size_t rank = 0; rank < relayed.size(); ++rank) {
        std::string known = known_host_address(boot, int(rank));
        addresses.push_back(known.empty() ? relayed[rank] : known);
    }
    return addresses;
}

Status open_links_collectively(Bootstrap& boot, const std::vector<Link>& links,
                               const std::function<Status(Bootstrap& to_peer)>& open_one,
                               const std::vector<std::string>& addresses)
{
    for (const std::vector<Link>& matching : split_into_matchings(links)) {
        const int partner = partner_in(matching, boot.rank());
        Status mine;
        if (partner >= 0) {
            RelayBootstrap to_peer(boot, partner, size_t(partner) < addresses.size() ? addresses[size_t(partner)] : "");
            mine = open_one(to_peer).with_context("opening the link from rank " + std::to_string(boot.rank()) +
                                                  " to rank " + std::to_string(partner));
        }
        NGX_TRY(finish_matching(boot, mine));
    }
    return Status::ok();
}

Result<PeerLinks> PeerLinks::create(Transport& transport, Bootstrap& boot, LayoutKind layout)
{
    // A module with per-peer links was only set up by connect (PatternInfo::layouts); one without them has
    // the link of connect to the bootstrap's peer.
    const int connected_peer = transport.has(NGX_CAP_PEER_LINKS) ? -1 : boot.peer();
    NGX_ASSIGN_OR_RETURN(const std::vector<Frame> frames,
                         relay_step(boot, Frame{StepState::finished, -1, describe_rank(boot, connected_peer)}));
    std::set<Link> open;
    std::vector<std::string> addresses;
    for (size_t rank = 0; rank < frames.size(); ++rank) {
        size_t at = 0;
        uint32_t peer = 0;
        if (!get_u32(frames[rank].blob, at, peer))
            return Status::runtime("opening links: rank " + std::to_string(rank) + " sent no description");
        if (int(peer) >= 0 && int(peer) < boot.nranks() && int(peer) != int(rank))
            open.insert(link_between(int(rank), int(peer)));
        addresses.emplace_back(frames[rank].blob.begin() + 4, frames[rank].blob.end());
    }
    PeerLinks links(transport, boot, layout, std::move(open));
    links.addresses_ = link_addresses(boot, addresses);
    links.current_ = links.connect_peer_ = connected_peer;
    return links;
}

Status PeerLinks::check_module(const LoadedModule& module, LayoutKind layout, const std::vector<Round>& rounds,
                               int nranks)
{
    if (module.has(NGX_CAP_PEER_LINKS))
        return Status::ok();
    Result<std::vector<Round>> fixed = plan_layout({.kind = LayoutKind::fixed_pairs, .nranks = nranks});
    for (int rank = 0; rank < nranks; ++rank) {
        std::vector<int> needed = peers_of(rounds, rank), one = fixed ? peers_of(*fixed, rank) : std::vector<int>{};
        if (std::includes(one.begin(), one.end(), needed.begin(), needed.end()))
            continue;
        return Status::usage("module " + module.name() + " cannot run rank layout " + std::string(layout_name(layout)) +
                             ": it keeps one link per process (rank i with i + P/2), and this layout has rank " +
                             std::to_string(rank) + " talk with " + std::to_string(needed.size()) +
                             " peer(s); the module has no per-peer links (NGX_CAP_PEER_LINKS, module ABI 1.5)");
    }
    return Status::ok();
}

Status PeerLinks::open_for(const Round& round)
{
    std::vector<Link> wanted;
    for (const Transfer& t : round.transfers) {
        Link link = link_between(t.from, t.to);
        if (open_.count(link) == 0 && std::find(wanted.begin(), wanted.end(), link) == wanted.end())
            wanted.push_back(link);
    }
    if (wanted.empty())
        return Status::ok();
    NGX_TRY(open_links_collectively(
        *boot_, wanted, [this](Bootstrap& to_peer) { return transport_->open_link(to_peer); }, addresses_));
    open_.insert(wanted.begin(), wanted.end());
    current_ = -1; // the module may have switched to the new link
    return Status::ok();
}

Status PeerLinks::use(int peer)
{
    if (peer == current_ || (peer == connect_peer_ && !transport_->has(NGX_CAP_PEER_LINKS)))
        return Status::ok();
    if (!is_open(boot_->rank(), peer))
        return Status::runtime("rank layout " + std::string(layout_name(layout_)) + ": rank " +
                               std::to_string(boot_->rank()) + " has no open link to rank " + std::to_string(peer));
    NGX_TRY(transport_->select_peer(peer));
    current_ = peer;
    return Status::ok();
}

} // namespace ngx
