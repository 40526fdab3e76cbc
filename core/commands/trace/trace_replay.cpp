// The LogGPS replay of a trace (see trace_replay.hpp).
#include "trace_replay.hpp"

#include "trace_collectives.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <unordered_map>

namespace ngx::trace {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double us_per_ns = 1e-3;
constexpr double s_per_us = 1e-6;
constexpr int events_per_turn = 64; // a rank's calls per sweep: bounds how far one runs ahead
constexpr uint64_t internal_request = uint64_t(1) << 63;

struct Request {
    bool send = false;
    double k = 0;       // message bytes
    double t_post = 0;  // predicted us
    bool posted = true; // false: a wildcard Irecv, posted when its completion names the source
    uint64_t comm = 0;  // the wildcard Irecv's communicator key
    bool resolved = false;
    double t_blk = 0;        // cost of the blocking form from t_post (us)
    double t_blk_ontime = 0; // the same with the partner on time
};

// Where a message goes: communicator key, source and destination (world ranks), tag.
struct Channel {
    uint64_t comm = 0;
    int src = 0, dst = 0, tag = 0;
    bool operator==(const Channel&) const = default;
};
struct ChannelHash {
    size_t operator()(const Channel& c) const noexcept
    {
        return std::hash<uint64_t>()(c.comm * 1000003u ^ (uint64_t(uint32_t(c.src)) << 40) ^
                                     (uint64_t(uint32_t(c.dst)) << 20) ^ uint64_t(uint32_t(c.tag)));
    }
};
struct Posted {
    int rank = 0;
    uint64_t request = 0; // 0: nothing to resolve (an eager send)
    double t = 0;
    double k = 0;
};
struct Queues {
    std::deque<Posted> sends, recvs;
};

// A collective on MPI_COMM_WORLD, until every rank has left it.
struct WorldCollective {
    unsigned kind = 0;
    int arrived = 0, left = 0;
    double last_arrival = -inf;
    double bytes = 0; // Collective::bytes, the largest of the ranks' views
    bool modelled = false;
    std::string approximation; // Open MPI's algorithm has no model: what stands in
    double cost = 0;           // us
};

enum class Phase { idle, posted, done };

struct RankState {
    RankReader* reader = nullptr;
    int rank = 0;
    double clock = 0; // predicted us since the earliest first call
    double start = 0; // the clock at the first call
    int64_t last_return = 0;
    bool started = false;
    Phase phase = Phase::idle;
    TraceCall call;
    double t_call = 0;             // predicted start of the current call
    double base = 0;               // least cost of the current call (o' for Wait/Test)
    std::vector<uint64_t> waiting; // requests the current call waits for
    bool measured_only = false;    // the current call keeps its measured duration
    uint64_t collective = 0;       // sequence number of the current world collective
    uint64_t collectives_seen = 0;
    uint64_t next_internal = internal_request;
    long long calls = 0; // calls of this rank read so far (for error messages)
    std::unordered_map<uint64_t, Request> requests;
    RankResult result;
    double first_aligned_ns = 0, last_aligned_ns = 0;
};

int size_bin(double bytes)
{
    return bytes < 1 ? -1 : int(std::floor(std::log2(bytes)));
}

class Replay {
public:
    Replay(std::vector<RankReader>& readers, const fit::LogGPSParams& p) : p_(p)
    {
        for (RankReader& r : readers) {
            RankState s;
            s.reader = &r;
            s.rank = r.header().rank;
            s.result.rank = s.rank;
            ranks_.push_back(std::move(s));
        }
        report_.ranks = int(ranks_.size());
    }

    Result<ReplayReport> run();

private:
    Status start_times();
    Result<bool> step(RankState& r);
    Status begin(RankState& r);
    Status post_p2p(RankState& r);
    uint64_t post_send(RankState& r, const Channel& ch, double k, double t, uint64_t id);
    uint64_t post_recv(RankState& r, const Channel& ch, double k, double t, uint64_t id);
    void enqueue_recv(const Channel& ch, const Posted& recv);
    void match(Queues& q);
    Status complete_waits(RankState& r);
    bool waits_resolved(const RankState& r) const;
    void finish_waits(RankState& r);
    void arrive_collective(RankState& r);
    bool finish_collective(RankState& r);
    void keep_measured(RankState& r);
    void finish_measured(RankState& r);
    void account(RankState& r, double end, const Costs& c, double bytes);
    Status stuck() const;
    Status leftovers() const;
    RankState& at(int rank) { return ranks_[size_t(rank)]; }

    const fit::LogGPSParams& p_;
    std::vector<RankState> ranks_;
    std::unordered_map<Channel, Queues, ChannelHash> channels_;
    std::unordered_map<uint64_t, WorldCollective> collectives_;
    ReplayReport report_;
};

// ---- the loop --------------------------------------------------------------

Result<ReplayReport> Replay::run()
{
    if (Status s = start_times(); !s)
        return s;
    size_t done = 0;
    while (done < ranks_.size()) {
        bool progress = false;
        done = 0;
        for (RankState& r : ranks_) {
            for (int i = 0; i < events_per_turn; ++i) {
                NGX_ASSIGN_OR_RETURN(bool moved, step(r));
                if (!moved)
                    break;
                progress = true;
            }
            done += r.phase == Phase::done;
        }
        if (!progress && done < ranks_.size())
            return stuck();
    }
    if (Status s = leftovers(); !s)
        return s;
    double first = inf, last = -inf;
    for (RankState& r : ranks_) {
        r.result.measured_s = (r.last_aligned_ns - r.first_aligned_ns) * 1e-9;
        r.result.predicted_end_s = r.clock * s_per_us;
        r.result.predicted_s = (r.clock - r.start) * s_per_us;
        first = std::min(first, r.first_aligned_ns);
        last = std::max(last, r.last_aligned_ns);
        report_.predicted_s = std::max(report_.predicted_s, r.result.predicted_end_s);
        report_.total.add(r.result.costs);
        report_.measured_mpi_s += r.result.measured_mpi_s;
        report_.computation_s += r.result.computation_s;
        report_.finalized = report_.finalized && r.reader->finalized();
        report_.per_rank.push_back(r.result);
    }
    report_.measured_s = (last - first) * 1e-9;
    return report_;
}

// Each rank's clock starts at its first call's time on rank 0's clock, from
// the earliest first call of all ranks.
Status Replay::start_times()
{
    double earliest = inf;
    for (RankState& r : ranks_) {
        if (Status s = r.reader->rewind(); !s)
            return s;
        TraceCall first;
        NGX_ASSIGN_OR_RETURN(bool got, r.reader->next(first));
        r.first_aligned_ns = got ? r.reader->aligned_ns(first.call.t_call) : 0;
        r.last_aligned_ns = r.first_aligned_ns;
        earliest = std::min(earliest, r.first_aligned_ns);
        if (Status s = r.reader->rewind(); !s)
            return s;
    }
    for (RankState& r : ranks_)
        r.clock = r.start = (r.first_aligned_ns - earliest) * us_per_ns;
    return Status::ok();
}

// One call of rank r further: read it, post it, or finish it. False when
// the rank is blocked or done.
Result<bool> Replay::step(RankState& r)
{
    if (r.phase == Phase::done)
        return false;
    if (r.phase == Phase::idle) {
        NGX_ASSIGN_OR_RETURN(bool got, r.reader->next(r.call));
        if (!got) {
            r.phase = Phase::done;
            return true;
        }
        if (Status s = begin(r); !s)
            return s;
        r.phase = Phase::posted;
    }
    if (r.measured_only) {
        finish_measured(r);
    } else if (r.call.call.kind >= NGX_TRACE_BARRIER) {
        if (!finish_collective(r))
            return false;
    } else {
        if (!waits_resolved(r))
            return false;
        finish_waits(r);
    }
    r.phase = Phase::idle;
    return true;
}

// Advances the clock by the computation before the call and posts it.
Status Replay::begin(RankState& r)
{
    const ngx_trace_record& c = r.call.call;
    ++report_.events;
    ++r.calls;
    if (r.started) {
        const double gap = std::max(0.0, double(c.t_call - r.last_return - r.call.tracer_ns) * us_per_ns);
        r.clock += gap;
        r.result.computation_s += gap * s_per_us;
    }
    r.started = true;
    r.last_return = c.t_return;
    r.last_aligned_ns = r.reader->aligned_ns(c.t_return);
    r.result.measured_mpi_s += double(c.t_return - c.t_call) * 1e-9;
    r.t_call = r.clock;
    r.base = 0;
    r.waiting.clear();
    r.measured_only = false;
    if (c.kind >= NGX_TRACE_BARRIER) {
        if (c.comm == 0 && c.kind != NGX_TRACE_ALLGATHERV && c.kind != NGX_TRACE_ALLTOALLV &&
            c.kind != NGX_TRACE_GATHERV && c.kind != NGX_TRACE_SCATTERV)
            arrive_collective(r);
        else
            keep_measured(r);
        return Status::ok();
    }
    return post_p2p(r);
}

// ---- point to point ---------------------------------------------------------

Status Replay::post_p2p(RankState& r)
{
    const ngx_trace_record& c = r.call.call;
    const uint64_t comm = r.reader->comm_key(c.comm);
    const double t = r.clock;
    const double k = double(c.bytes);
    switch (c.kind) {
    case NGX_TRACE_SEND:
    case NGX_TRACE_SSEND:
    case NGX_TRACE_BSEND:
    case NGX_TRACE_RSEND:
        if (c.peer >= 0)
            r.waiting.push_back(post_send(r, {comm, r.rank, c.peer, c.tag}, k, t, 0));
        return Status::ok();
    case NGX_TRACE_ISEND:
    case NGX_TRACE_ISSEND:
        r.base = p_.isend_cost(); // Ino et al. 2001, eq. (6)
        if (c.peer >= 0)
            post_send(r, {comm, r.rank, c.peer, c.tag}, k, t, c.request);
        return Status::ok();
    case NGX_TRACE_IRECV:
        r.base = p_.irecv_cost(); // Ino et al. 2001, eq. (10)
        if (c.peer == NGX_TRACE_PEER_NULL)
            return Status::ok();
        if (c.peer == NGX_TRACE_PEER_ANY || c.tag == NGX_TRACE_TAG_ANY) {
            Request q;
            q.t_post = t;
            q.posted = false;
            q.comm = comm;
            r.requests[c.request] = q;
        } else {
            post_recv(r, {comm, c.peer, r.rank, c.tag}, k, t, c.request);
        }
        return Status::ok();
    case NGX_TRACE_RECV:
        if (c.peer >= 0)
            r.waiting.push_back(post_recv(r, {comm, c.peer, r.rank, c.tag}, k, t, 0));
        return Status::ok();
    case NGX_TRACE_SENDRECV:
        if (c.peer >= 0)
            r.waiting.push_back(post_send(r, {comm, r.rank, c.peer, c.tag}, k, t, 0));
        if (c.aux >= 0)
            r.waiting.push_back(post_recv(r, {comm, c.aux, r.rank, c.tag_recv}, double(c.bytes_recv), t, 0));
        return Status::ok();
    case NGX_TRACE_PROBE:
    case NGX_TRACE_IPROBE:
        keep_measured(r);
        return Status::ok();
    default:
        return complete_waits(r);
    }
}

// A send posted at t: an eager one is resolved at once (Ino et al. 2001,
// eq. (4): T1), a rendezvous one when its receive is posted. `id` 0: a
// blocking call's, numbered internally. Returns the request's id.
uint64_t Replay::post_send(RankState& r, const Channel& ch, double k, double t, uint64_t id)
{
    if (id == 0)
        id = r.next_internal++;
    Request q;
    q.send = true;
    q.k = k;
    q.t_post = t;
    const bool eager = k <= p_.S;
    if (eager) {
        q.resolved = true;
        q.t_blk = q.t_blk_ontime = p_.send_cost(k);
    }
    r.requests[id] = q;
    Queues& queues = channels_[ch];
    queues.sends.push_back({r.rank, eager ? 0 : id, t, k});
    match(queues);
    return id;
}

uint64_t Replay::post_recv(RankState& r, const Channel& ch, double k, double t, uint64_t id)
{
    if (id == 0)
        id = r.next_internal++;
    Request q;
    q.k = k;
    q.t_post = t;
    r.requests[id] = q;
    enqueue_recv(ch, {r.rank, id, t, k});
    return id;
}

void Replay::enqueue_recv(const Channel& ch, const Posted& recv)
{
    Queues& queues = channels_[ch];
    queues.recvs.push_back(recv);
    match(queues);
}

// Pairs sends and receives of one channel in posting order (MPI's
// non-overtaking rule) and resolves their requests: Ino et al. 2001,
// eq. (5) for a rendezvous send, eq. (7)-(9) for the receive, with
// wait = t_r - t_s.
void Replay::match(Queues& q)
{
    while (!q.sends.empty() && !q.recvs.empty()) {
        const Posted s = q.sends.front(), rv = q.recvs.front();
        q.sends.pop_front();
        q.recvs.pop_front();
        const double wait = rv.t - s.t;
        if (s.request != 0) {
            Request& send = at(s.rank).requests[s.request];
            send.resolved = true;
            send.t_blk = p_.send_cost(s.k, wait);
            send.t_blk_ontime = p_.send_cost(s.k, -inf);
        }
        Request& recv = at(rv.rank).requests[rv.request];
        recv.k = s.k;
        recv.resolved = true;
        recv.t_blk = p_.recv_cost(s.k, wait);
        recv.t_blk_ontime = p_.recv_cost(s.k, inf);
    }
}

// Wait*, Test*: the requests their completion records name.
Status Replay::complete_waits(RankState& r)
{
    const ngx_trace_record& c = r.call.call;
    r.base = p_.o_prime; // Ino et al. 2001, eq. (11): at least o'
    for (const ngx_trace_record& done : r.call.completions) {
        auto it = r.requests.find(done.request);
        const bool again = std::find(r.waiting.begin(), r.waiting.end(), done.request) != r.waiting.end();
        if (it == r.requests.end() || again || (done.flags & NGX_TRACE_RF_UNKNOWN_REQ) != 0) {
            ++report_.unmodelled[kind_label(c.kind) + " (request not traced, or completed twice)"];
            continue;
        }
        Request& q = it->second;
        if (!q.posted && done.peer < 0) { // a wildcard Irecv cancelled (MPI_Cancel): no message, no cost
            ++report_.unmodelled[kind_label(c.kind) + " (a cancelled wildcard receive: no message)"];
            r.requests.erase(it);
            continue;
        }
        if (!q.posted) { // a wildcard Irecv: its status names the message's source and tag
            q.posted = true;
            q.k = double(done.bytes);
            enqueue_recv({q.comm, done.peer, r.rank, done.tag}, {r.rank, done.request, q.t_post, q.k});
        }
        r.waiting.push_back(done.request);
    }
    return Status::ok();
}

bool Replay::waits_resolved(const RankState& r) const
{
    for (uint64_t id : r.waiting)
        if (!r.requests.at(id).resolved)
            return false;
    return true;
}

// The end of a waiting call and its split (see the header).
void Replay::finish_waits(RankState& r)
{
    double end = r.t_call + r.base, ontime = end, ontime_recv = end;
    double bytes = 0;
    for (uint64_t id : r.waiting) {
        const Request& q = r.requests.at(id);
        end = std::max(end, q.t_post + q.t_blk);
        ontime = std::max(ontime, q.t_post + q.t_blk_ontime);
        ontime_recv = std::max(ontime_recv, q.t_post + (q.send ? q.t_blk : q.t_blk_ontime));
        bytes = std::max(bytes, q.k);
        r.requests.erase(id);
    }
    if (r.waiting.empty())
        bytes = double(r.call.call.bytes);
    Costs c;
    c.overhead_s = (ontime - r.t_call) * s_per_us;
    c.receiver_sync_s = (end - ontime_recv) * s_per_us;
    c.sender_sync_s = (ontime_recv - ontime) * s_per_us;
    account(r, end, c, bytes);
}

// ---- collectives and unmodelled events --------------------------------------

void Replay::arrive_collective(RankState& r)
{
    r.collective = r.collectives_seen++;
    WorldCollective& w = collectives_[r.collective];
    if (w.arrived == 0)
        w.kind = r.call.call.kind;
    ++w.arrived;
    w.last_arrival = std::max(w.last_arrival, r.clock);
    w.bytes = std::max(w.bytes, collective_bytes(r.call.call, report_.ranks));
}

// The cost of Open MPI's tuned choice under LogGPS, once every rank arrived.
void price_collective(WorldCollective& w, int P, const fit::LogGPSParams& p)
{
    const std::optional<fit::CollectiveOp> op = collective_op(w.kind);
    if (!op)
        return;
    if (P < 2) {
        w.modelled = true;
        w.cost = 0;
        return;
    }
    const PricedCollective priced = choose_algorithm(*op, P, w.bytes);
    if (!priced.valid)
        return;
    w.approximation = priced.approximation;
    w.cost = fit::predict_collective(priced.collective, fit::loggps_message_cost(p));
    w.modelled = std::isfinite(w.cost);
}

bool Replay::finish_collective(RankState& r)
{
    auto it = collectives_.find(r.collective);
    WorldCollective& w = it->second;
    if (w.arrived < report_.ranks)
        return false;
    if (w.left == 0)
        price_collective(w, report_.ranks, p_);
    Costs c;
    double end = 0;
    if (w.modelled) {
        if (!w.approximation.empty())
            ++report_.approximated[kind_label(w.kind) + ": " + w.approximation];
        c.collective_sync_s = (w.last_arrival - r.t_call) * s_per_us;
        c.collective_s = w.cost * s_per_us;
        end = w.last_arrival + w.cost;
    } else {
        ++report_.unmodelled[kind_label(w.kind) + " (cannot be priced at this size)"];
        const double measured = double(r.call.call.t_return - r.call.call.t_call) * us_per_ns;
        c.unmodelled_s = measured * s_per_us;
        end = r.t_call + measured;
    }
    account(r, end, c, collective_bytes(r.call.call, report_.ranks));
    if (++w.left == report_.ranks)
        collectives_.erase(it);
    return true;
}

// An event ngx cannot model: its measured duration, counted.
void Replay::keep_measured(RankState& r)
{
    const ngx_trace_record& c = r.call.call;
    ++report_.unmodelled[kind_label(c.kind) + (c.kind >= NGX_TRACE_BARRIER && c.comm != 0
                                                   ? std::string(" (not on MPI_COMM_WORLD)")
                                                   : std::string(""))];
    r.measured_only = true;
}

void Replay::finish_measured(RankState& r)
{
    const ngx_trace_record& c = r.call.call;
    const double measured = double(c.t_return - c.t_call) * us_per_ns;
    Costs costs;
    costs.unmodelled_s = measured * s_per_us;
    account(r, r.t_call + measured, costs, double(std::max(c.bytes, c.bytes_recv)));
}

void Replay::account(RankState& r, double end, const Costs& c, double bytes)
{
    r.clock = end;
    r.result.costs.add(c);
    SiteResult& site = report_.sites[{kind_label(r.call.call.kind), size_bin(bytes)}];
    ++site.calls;
    site.measured_s += double(r.call.call.t_return - r.call.call.t_call) * 1e-9;
    site.predicted_s += (end - r.t_call) * s_per_us;
    site.costs.add(c);
}

// ---- errors ----------------------------------------------------------------

Status Replay::stuck() const
{
    std::string what;
    for (const RankState& r : ranks_) {
        if (r.phase != Phase::posted)
            continue;
        const ngx_trace_record& c = r.call.call;
        what += (what.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r.rank) + " waits in " +
                kind_label(c.kind) + " (its call " + std::to_string(r.calls) + ")";
        if (c.kind == NGX_TRACE_RECV || c.kind == NGX_TRACE_SEND || c.kind == NGX_TRACE_SSEND)
            what += std::string(c.kind == NGX_TRACE_RECV ? " from " : " to ") + std::to_string(c.peer) + " tag " +
                    std::to_string(c.tag) + " (" + std::to_string(c.bytes) + " B)";
    }
    if (what.empty())
        return Status::usage("the replay cannot go on (no rank can move)");
    return Status::usage("the replay cannot go on: " + what +
                         "; no other rank's call matches (a receive or send missing from the trace, or "
                         "a deadlock under the given S)");
}

Status Replay::leftovers() const
{
    for (const auto& [ch, q] : channels_) {
        if (!q.sends.empty())
            return Status::usage("unmatched sends: " + std::to_string(q.sends.size()) + " from rank " +
                                 std::to_string(ch.src) + " to " + std::to_string(ch.dst) + " tag " +
                                 std::to_string(ch.tag) + " have no receive in the trace");
        if (!q.recvs.empty())
            return Status::usage("unmatched receives: " + std::to_string(q.recvs.size()) + " on rank " +
                                 std::to_string(ch.dst) + " from " + std::to_string(ch.src) + " tag " +
                                 std::to_string(ch.tag) + " have no send in the trace");
    }
    return Status::ok();
}

} // namespace

void Costs::add(const Costs& c)
{
    overhead_s += c.overhead_s;
    sender_sync_s += c.sender_sync_s;
    receiver_sync_s += c.receiver_sync_s;
    collective_s += c.collective_s;
    collective_sync_s += c.collective_sync_s;
    unmodelled_s += c.unmodelled_s;
}

Result<ReplayReport> replay_trace(std::vector<RankReader>& ranks, const fit::LogGPSParams& params)
{
    Replay replay(ranks, params);
    return replay.run();
}

double bin_min_bytes(int bin)
{
    return bin < 0 ? 0 : std::ldexp(1.0, bin);
}

double bin_max_bytes(int bin)
{
    return bin < 0 ? 0 : std::ldexp(1.0, bin + 1) - 1;
}

} // namespace ngx::trace
