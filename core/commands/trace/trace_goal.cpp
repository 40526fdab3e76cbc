// A trace as a GOAL schedule (see trace_goal.hpp).
#include "trace_goal.hpp"

#include "trace_collectives.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <unordered_map>

namespace ngx::trace {
namespace {

using Op = fit::ScheduleOp;

struct Key {
    uint64_t comm = 0;
    int src = 0, dst = 0, tag = 0;
    bool operator<(const Key& o) const { return std::tie(comm, src, dst, tag) < std::tie(o.comm, o.src, o.dst, o.tag); }
};
struct Endpoint {
    int rank = 0;
    int op = 0;
};
struct Queues {
    std::deque<Endpoint> sends, recvs;
};
// A collective's send whose receive index is known once its peer's offset is.
struct Fixup {
    int rank = 0, op = 0;
    uint64_t seq = 0;
    int peer_local = 0;
};

class Builder {
public:
    explicit Builder(int P) : P_(P)
    {
        out_.schedule.ranks.resize(size_t(P));
        out_.schedule.gamma = 1;
    }

    Status rank(RankReader& reader);
    Result<GoalExport> finish();

private:
    int add(Op op, bool sequential);
    void calc(double us);
    int p2p_send(const Key& k, double bytes, bool sequential, uint64_t request);
    int p2p_recv(const Key& k, double bytes, bool sequential, uint64_t request);
    void pair(Queues& q);
    int join(const std::vector<int>& ops);
    bool collective(const ngx_trace_record& c);
    void call(RankReader& reader, const TraceCall& t);

    int P_;
    GoalExport out_;
    int r_ = 0;     // the rank being read
    int last_ = -1; // this rank's latest blocking point
    std::map<Key, Queues> channels_;
    std::unordered_map<uint64_t, int> requests_;                       // request id -> op
    std::unordered_map<uint64_t, std::pair<uint64_t, int>> wildcards_; // request id -> (comm, op)
    std::map<std::pair<int, uint64_t>, int> offsets_;                  // (rank, collective) -> its first op
    std::vector<Fixup> fixups_;
    uint64_t collectives_ = 0;
};

int Builder::add(Op op, bool sequential)
{
    std::vector<Op>& ops = out_.schedule.ranks[size_t(r_)];
    if (last_ >= 0)
        op.after.push_back(last_);
    ops.push_back(std::move(op));
    const int i = int(ops.size()) - 1;
    if (sequential)
        last_ = i;
    return i;
}

void Builder::calc(double us)
{
    if (us <= 0)
        return;
    Op op;
    op.kind = Op::Kind::calc;
    op.bytes = us; // gamma = 1 us per "byte"
    add(op, true);
}

int Builder::p2p_send(const Key& k, double bytes, bool sequential, uint64_t request)
{
    Op op;
    op.kind = Op::Kind::send;
    op.peer = k.dst;
    op.bytes = bytes;
    const int i = add(op, sequential);
    if (request != 0)
        requests_[request] = i;
    Queues& q = channels_[k];
    q.sends.push_back({r_, i});
    pair(q);
    return i;
}

int Builder::p2p_recv(const Key& k, double bytes, bool sequential, uint64_t request)
{
    Op op;
    op.kind = Op::Kind::recv;
    op.peer = k.src;
    op.bytes = bytes;
    const int i = add(op, sequential);
    if (request != 0)
        requests_[request] = i;
    Queues& q = channels_[k];
    q.recvs.push_back({r_, i});
    pair(q);
    return i;
}

// In posting order, as MPI matches; a receive takes its send's size.
void Builder::pair(Queues& q)
{
    while (!q.sends.empty() && !q.recvs.empty()) {
        const Endpoint s = q.sends.front(), v = q.recvs.front();
        q.sends.pop_front();
        q.recvs.pop_front();
        Op& send = out_.schedule.ranks[size_t(s.rank)][size_t(s.op)];
        Op& recv = out_.schedule.ranks[size_t(v.rank)][size_t(v.op)];
        send.match = v.op;
        recv.match = s.op;
        recv.bytes = send.bytes;
    }
}

// A zero-time point that waits for `ops` (and the previous blocking point).
int Builder::join(const std::vector<int>& ops)
{
    Op op;
    op.kind = Op::Kind::calc;
    op.bytes = 0;
    op.after = ops;
    return add(op, true);
}

// A world collective as Open MPI's tuned choice; false when it has no model.
bool Builder::collective(const ngx_trace_record& c)
{
    const std::optional<fit::CollectiveOp> op = collective_op(c.kind);
    if (c.comm != 0 || !op || P_ < 2)
        return false;
    const PricedCollective priced = choose_algorithm(*op, P_, collective_bytes(c, P_));
    if (!priced.valid)
        return false;
    if (!priced.approximation.empty())
        ++out_.approximated[kind_label(c.kind) + ": " + priced.approximation];
    const uint64_t seq = collectives_++;
    const fit::Schedule plan = fit::collective_schedule(priced.collective);
    std::vector<Op>& ops = out_.schedule.ranks[size_t(r_)];
    const int offset = int(ops.size());
    offsets_[{r_, seq}] = offset;
    std::vector<int> mine;
    for (const Op& planned : plan.ranks[size_t(r_)]) {
        Op op = planned;
        for (int& before : op.after)
            before += offset;
        if (op.after.empty() && last_ >= 0)
            op.after.push_back(last_);
        if (op.kind == Op::Kind::send)
            fixups_.push_back({r_, int(ops.size()), seq, op.match});
        else if (op.kind == Op::Kind::recv)
            op.match = -1;
        if (op.kind == Op::Kind::calc)
            op.bytes *= plan.gamma; // 0: ngx's collective model has no reduction cost here
        ops.push_back(std::move(op));
        mine.push_back(int(ops.size()) - 1);
    }
    join(mine);
    return true;
}

void Builder::call(RankReader& reader, const TraceCall& t)
{
    const ngx_trace_record& c = t.call;
    const Key out{reader.comm_key(c.comm), r_, c.peer, c.tag};
    const Key in{reader.comm_key(c.comm), c.peer, r_, c.tag};
    switch (c.kind) {
    case NGX_TRACE_SEND:
    case NGX_TRACE_SSEND:
    case NGX_TRACE_BSEND:
    case NGX_TRACE_RSEND:
        if (c.peer >= 0)
            p2p_send(out, double(c.bytes), true, 0);
        return;
    case NGX_TRACE_ISEND:
    case NGX_TRACE_ISSEND:
        if (c.peer >= 0)
            p2p_send(out, double(c.bytes), false, c.request);
        return;
    case NGX_TRACE_RECV:
        if (c.peer >= 0)
            p2p_recv(in, double(c.bytes), true, 0);
        return;
    case NGX_TRACE_IRECV:
        if (c.peer == NGX_TRACE_PEER_ANY || c.tag == NGX_TRACE_TAG_ANY) {
            Op op;
            op.kind = Op::Kind::recv;
            const int i = add(op, false);
            requests_[c.request] = i;
            wildcards_[c.request] = {reader.comm_key(c.comm), i};
        } else if (c.peer >= 0) {
            p2p_recv(in, double(c.bytes), false, c.request);
        }
        return;
    case NGX_TRACE_SENDRECV: {
        std::vector<int> both; // posted together, joined
        if (c.peer >= 0)
            both.push_back(p2p_send(out, double(c.bytes), false, 0));
        if (c.aux >= 0)
            both.push_back(p2p_recv({reader.comm_key(c.comm), c.aux, r_, c.tag_recv}, double(c.bytes_recv), false, 0));
        join(both);
        return;
    }
    default:
        break;
    }
    if (ngx_trace_kind_completes(c.kind)) {
        std::vector<int> done;
        for (const ngx_trace_record& d : t.completions) {
            auto it = requests_.find(d.request);
            if (it == requests_.end())
                continue;
            if (auto w = wildcards_.find(d.request); w != wildcards_.end()) {
                Op& op = out_.schedule.ranks[size_t(r_)][size_t(w->second.second)];
                op.peer = d.peer;
                op.bytes = double(d.bytes);
                Queues& q = channels_[{w->second.first, d.peer, r_, d.tag}];
                q.recvs.push_back({r_, w->second.second});
                pair(q);
                wildcards_.erase(w);
            }
            done.push_back(it->second);
            requests_.erase(it);
        }
        if (!done.empty())
            join(done);
        return;
    }
    if (c.kind >= NGX_TRACE_BARRIER && collective(c))
        return;
    ++out_.as_calc[kind_label(c.kind)];
    calc(double(c.t_return - c.t_call) * 1e-3);
}

Status Builder::rank(RankReader& reader)
{
    r_ = reader.header().rank;
    last_ = -1;
    collectives_ = 0;
    requests_.clear();
    wildcards_.clear();
    if (Status s = reader.rewind(); !s)
        return s;
    TraceCall t;
    int64_t last_return = 0;
    bool started = false;
    while (true) {
        NGX_ASSIGN_OR_RETURN(bool got, reader.next(t));
        if (!got)
            break;
        if (started)
            calc(double(t.call.t_call - last_return - t.tracer_ns) * 1e-3);
        started = true;
        last_return = t.call.t_return;
        call(reader, t);
    }
    return Status::ok();
}

Result<GoalExport> Builder::finish()
{
    for (const Fixup& f : fixups_) {
        Op& send = out_.schedule.ranks[size_t(f.rank)][size_t(f.op)];
        auto it = offsets_.find({send.peer, f.seq});
        if (it == offsets_.end())
            return Status::usage("rank " + std::to_string(send.peer) + " has fewer collectives than rank " +
                                 std::to_string(f.rank));
        send.match = it->second + f.peer_local;
        out_.schedule.ranks[size_t(send.peer)][size_t(send.match)].match = f.op;
    }
    for (const auto& [k, q] : channels_) {
        if (!q.sends.empty())
            return Status::usage("unmatched sends: " + std::to_string(q.sends.size()) + " from rank " +
                                 std::to_string(k.src) + " to " + std::to_string(k.dst) + " tag " +
                                 std::to_string(k.tag) + " have no receive in the trace");
        if (!q.recvs.empty())
            return Status::usage("unmatched receives: " + std::to_string(q.recvs.size()) + " on rank " +
                                 std::to_string(k.dst) + " from " + std::to_string(k.src) + " tag " +
                                 std::to_string(k.tag) + " have no send in the trace");
    }
    return std::move(out_);
}

} // namespace

Result<GoalExport> trace_schedule(std::vector<RankReader>& ranks)
{
    Builder b(int(ranks.size()));
    for (RankReader& r : ranks)
        if (Status s = b.rank(r); !s)
            return s;
    return b.finish();
}

} // namespace ngx::trace
