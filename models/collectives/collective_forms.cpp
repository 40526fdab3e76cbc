// The closed forms of collectives.hpp. Building blocks:
//  - Rounds: a typical rank through steps in which every rank does the
//    same (exchange: send s to one peer, receive s from another; transfer:
//    half the ranks send, the other half receive). An exchange is exact for
//    symmetric algorithms; a transfer lumps senders and receivers into one
//    rank (exact when it is the last step, an upper bound before others).
//  - down(z): a binomial tree sending from its root (bcast, scatter).
//  - up(z): a binomial tree combining into its root (reduce, gather).
// Each follows the cost rules of collectives.hpp step for step.
#include <models/collectives/collectives_internal.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <vector>

namespace ngx::fit::detail {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// A typical rank's resources through steps all ranks take together.
struct Rounds {
    const MessageCostFn& p2p;
    double ready = 0;    // the previous step's end: the next step's operations may start
    double send_nic = 0; // the NIC takes the next send from here (g + (s-1)G after the last)
    double recv_nic = 0; // ... and the next arriving message from here

    // Every rank sends `bytes` to one peer and receives `bytes` from another,
    // both posted at `ready`, then reduces `calc` us. The own send occupies
    // the CPU before the arriving message can be taken.
    void exchange(double bytes, double calc = 0)
    {
        const MessageCost m = p2p(bytes);
        const double start = std::max(ready + m.handshake(), send_nic);
        const double taken = std::max({start + m.arrival, start + m.send_cpu, recv_nic});
        send_nic = start + m.send_gap;
        recv_nic = taken + m.recv_gap;
        ready = taken + m.recv_cpu + calc;
    }

    // `count` equal exchanges: the first 64 step by step, the rest at the
    // period the last step took (the steps are periodic once the NICs'
    // gaps and the CPU settle, which takes two steps at most).
    void exchanges(long long count, double bytes, double calc = 0)
    {
        constexpr long long explicit_steps = 64;
        double before = ready;
        for (long long i = 0; i < std::min(count, explicit_steps); ++i) {
            before = ready;
            exchange(bytes, calc);
        }
        if (count > explicit_steps) {
            const double shift = double(count - explicit_steps) * (ready - before);
            ready += shift;
            send_nic += shift;
            recv_nic += shift;
        }
    }

    // Some ranks send `bytes` to a partner that receives and reduces `calc`
    // us (the non-power-of-two fold in and out, Thakur et al. 2005, allreduce):
    // everyone continues when the receiver (or the sender's CPU) is done.
    void transfer(double bytes, double calc = 0)
    {
        const MessageCost m = p2p(bytes);
        const double start = std::max(ready + m.handshake(), send_nic);
        const double taken = std::max(start + m.arrival, recv_nic);
        send_nic = start + m.send_gap;
        recv_nic = taken + m.recv_gap;
        ready = std::max(taken + m.recv_cpu + calc, start + m.send_cpu);
    }
};

// A tree's time for a subtree of z ranks, computed once per z (a binomial
// tree over P ranks has O(log P) distinct subtree sizes); 0 for one rank.
template <class Compute>
double memoized(std::map<long long, double>& memo, long long z, Compute compute)
{
    if (z <= 1)
        return 0;
    if (auto hit = memo.find(z); hit != memo.end())
        return hit->second;
    const double t = compute(z);
    memo[z] = t;
    return t;
}

// The message sizes of a binomial tree: the bytes sent to (or from) a
// child whose subtree holds `ranks` ranks.
using SubtreeBytes = std::function<double(long long ranks)>;

// Binomial tree from its root (MPICH's MPIR_Bcast_binomial, Thakur et al.
// 2005, broadcast): the root of a subtree of z ranks, holding the data at 0
// with its CPU and NICs free, sends to the children at distances
// 2^(h-1), ..., 2, 1 (h = ceil(log2 z)), one send after the other; the child
// at distance d roots a subtree of min(d, z - d) ranks. Receivers post at 0.
// Exact: every rank receives once, when idle.
class Down {
public:
    Down(const MessageCostFn& p2p, SubtreeBytes bytes) : p2p_(p2p), bytes_(std::move(bytes)) {}

    double operator()(long long z)
    {
        return memoized(memo_, z, [this](long long n) { return compute(n); });
    }

private:
    double compute(long long z)
    {
        double end = 0, start = 0;
        MessageCost previous;
        bool first = true;
        for (long long d = power_of_two_below(z - 1); d >= 1; d /= 2) {
            const long long child = std::min(d, z - d);
            const MessageCost m = p2p_(bytes_(child));
            // The next send is ready when the previous one leaves the CPU; its
            // data goes after the handshake and once the NIC's gap has passed.
            start =
                first ? m.handshake() : std::max(start + previous.send_cpu + m.handshake(), start + previous.send_gap);
            first = false;
            end = std::max({end, start + m.arrival + m.recv_cpu + (*this)(child), start + m.send_cpu});
            previous = m;
        }
        return end;
    }

    const MessageCostFn& p2p_;
    SubtreeBytes bytes_;
    std::map<long long, double> memo_;
};

// Binomial tree into its root (MPICH's binomial reduce and gather, Thakur
// et al. 2005, reduce and gather): every rank starts at 0; the root of a
// subtree of z ranks receives from its children at distances 1, 2, 4, ...
// (< z) in turn, the child at d holding min(d, z - d) ranks, and reduces
// each message (`gamma` us per byte) before posting the next receive.
// A message arriving before its receive is posted is taken by the CPU when
// free, in arrival order (as evaluate_schedule does). Exact.
class Up {
public:
    Up(const MessageCostFn& p2p, SubtreeBytes bytes, double gamma) : p2p_(p2p), bytes_(std::move(bytes)), gamma_(gamma)
    {
    }

    double operator()(long long z)
    {
        return memoized(memo_, z, [this](long long n) { return compute(n); });
    }

private:
    struct Child {
        MessageCost m;
        double bytes = 0, ready = 0; // its message, and when its subtree is combined
        double arrival = inf;        // when its message reaches this rank (inf: not yet known)
        double taken = std::nan(""); // when this rank's CPU has taken it
    };

    // The rank's CPU takes arriving messages in their order of arrival
    // whenever it is free (posted receive or not), until `child`'s is taken.
    static void take_until(std::vector<Child>& children, std::size_t child, double& cpu, double& recv_nic)
    {
        while (std::isnan(children[child].taken)) {
            Child* next = nullptr;
            for (Child& c : children)
                if (std::isnan(c.taken) && c.arrival < inf && (next == nullptr || c.arrival < next->arrival))
                    next = &c;
            const double t = std::max({next->arrival, cpu, recv_nic});
            cpu = next->taken = t + next->m.recv_cpu;
            recv_nic = t + next->m.recv_gap;
        }
    }

    double compute(long long z)
    {
        std::vector<Child> children;
        for (long long d = 1; d < z; d *= 2) {
            Child c;
            c.bytes = bytes_(std::min(d, z - d));
            c.ready = (*this)(std::min(d, z - d));
            c.m = p2p_(c.bytes);
            if (!c.m.rendezvous)
                c.arrival = c.ready + c.m.arrival;
            children.push_back(c);
        }
        // Receive j is posted when the message before it is reduced (or
        // received); a rendezvous message leaves only once it is posted.
        double posted = 0, cpu = 0, recv_nic = 0;
        for (std::size_t j = 0; j < children.size(); ++j) {
            Child& c = children[j];
            if (c.m.rendezvous)
                c.arrival = std::max(c.ready + c.m.request, posted) + c.m.reply + c.m.arrival;
            take_until(children, j, cpu, recv_nic);
            const double received = std::max(posted, c.taken);
            posted = received;
            if (gamma_ > 0) // the reduction goes before any message waiting for the CPU
                posted = cpu = std::max(received, cpu) + gamma_ * c.bytes;
        }
        return posted;
    }

    const MessageCostFn& p2p_;
    SubtreeBytes bytes_;
    double gamma_;
    std::map<long long, double> memo_;
};

// The root sending `count` messages of `bytes` one after the other to
// waiting receivers (the linear bcast and scatter). Exact.
double linear_out(const MessageCost& m, long long count)
{
    const double next = std::max(m.send_cpu + m.handshake(), m.send_gap);
    return m.handshake() + double(count - 1) * next + std::max(m.arrival + m.recv_cpu, m.send_cpu);
}

// The root receiving `count` messages of `bytes` that all leave at 0, in
// rank order (linear gather). Exact for eager messages (they arrive
// together and are taken one per max(o_r + (s-1)max(O,G), g + (s-1)G));
// with rendezvous each handshake waits for the previous receive, as the root
// posts one receive at a time (exact as well).
double linear_in(const MessageCost& m, long long count)
{
    if (!m.rendezvous)
        return m.arrival + double(count - 1) * std::max(m.recv_cpu, m.recv_gap) + m.recv_cpu;
    const double one = m.arrival + m.recv_cpu;
    return m.handshake() + one + double(count - 1) * std::max(m.reply + one, m.recv_gap);
}

// Bits i set among 0..P-1: how many of the P blocks a Bruck alltoall step
// i moves (Bruck et al. 1997, index algorithm).
long long blocks_with_bit(long long P, int i)
{
    const long long period = 2LL << i, half = 1LL << i;
    return (P / period) * half + std::max(0LL, P % period - half);
}

struct Fold {
    long long P2; // the power of two that takes part in the middle steps
    long long extra;
    int steps;
};

Fold fold_of(long long P)
{
    const long long P2 = power_of_two_below(P);
    return {P2, P - P2, ceil_log2(P2)};
}

double bcast(const Collective& c, const MessageCostFn& p2p)
{
    const long long P = c.ranks;
    const double n = c.bytes;
    switch (c.algorithm) {
    case Algorithm::linear:
        return linear_out(p2p(n), P - 1);
    case Algorithm::binomial:
        return Down(p2p, [n](long long) { return n; })(P);
    case Algorithm::pipeline: {
        // A chain of k segments (Open MPI's bcast "pipeline"/"chain" with one
        // child). Approximation: the first segment crosses P-1 hops, then one
        // segment per beat of the slowest rank: the root (one send), a relay
        // (a receive and a send on one CPU) or a NIC's gap.
        const long long k = pipeline_segments(c);
        const MessageCost m = p2p(n / double(k));
        const double hop = m.handshake() + m.arrival + m.recv_cpu;
        double beat = std::max({m.send_cpu + m.handshake(), m.send_gap, m.recv_gap, m.recv_cpu});
        if (P > 2)
            beat = std::max(beat, m.recv_cpu + m.send_cpu + m.handshake());
        if (m.rendezvous) // a receive is posted when the previous one completes
            beat = std::max(beat, m.reply + m.arrival + m.recv_cpu);
        return double(P - 1) * hop + double(k - 1) * beat;
    }
    case Algorithm::scatter_allgather: {
        // Van de Geijn (Thakur et al. 2005, broadcast of long messages): binomial
        // scatter of n/P blocks, then a ring allgather. Approximation: the two
        // phases added (the ring starts when the last rank has its block).
        const double block = n / double(P);
        Rounds ring{p2p};
        ring.ready = Down(p2p, [block](long long z) { return block * double(z); })(P);
        ring.exchanges(P - 1, block);
        return ring.ready;
    }
    default:
        return std::nan("");
    }
}

// Reduce-scatter by recursive halving over the fold's P2 ranks, then the
// fold's first step before it (Thakur et al. 2005, Rabenseifner's allreduce).
Rounds halving(const Collective& c, const MessageCostFn& p2p, const Fold& f)
{
    Rounds r{p2p};
    if (f.extra > 0)
        r.transfer(c.bytes, c.gamma * c.bytes);
    double part = c.bytes;
    for (int i = 0; i < f.steps; ++i) {
        part /= 2;
        r.exchange(part, c.gamma * part);
    }
    return r;
}

double reduce(const Collective& c, const MessageCostFn& p2p)
{
    const long long P = c.ranks;
    const double n = c.bytes;
    switch (c.algorithm) {
    case Algorithm::binomial:
        return Up(
            p2p, [n](long long) { return n; }, c.gamma)(P);
    case Algorithm::ring: {
        // Ring reduce-scatter (P-1 steps of n/P, each reduced), then a binomial
        // gather of the blocks to the root. Approximation: phases added.
        const double block = n / double(P);
        Rounds r{p2p};
        r.exchanges(P - 1, block, c.gamma * block);
        return r.ready + Up(
                             p2p, [block](long long z) { return block * double(z); }, 0)(P);
    }
    case Algorithm::rabenseifner: {
        // Thakur et al. 2005, reduce: recursive halving, then a binomial gather
        // of the n/P2 parts over the P2 ranks. Approximation: phases added.
        const Fold f = fold_of(P);
        const double part = n / double(f.P2);
        return halving(c, p2p, f).ready + Up(
                                              p2p, [part](long long z) { return part * double(z); }, 0)(f.P2);
    }
    default:
        return std::nan("");
    }
}

double allreduce(const Collective& c, const MessageCostFn& p2p)
{
    const long long P = c.ranks;
    const double n = c.bytes;
    const Fold f = fold_of(P);
    switch (c.algorithm) {
    case Algorithm::binomial: // binomial reduce to rank 0, binomial bcast from it. Exact.
        return Up(
                   p2p, [n](long long) { return n; }, c.gamma)(P) +
               Down(p2p, [n](long long) { return n; })(P);
    case Algorithm::recursive_doubling: {
        // Thakur et al. 2005, allreduce: P2 = 2^floor(log2 P) ranks exchange and
        // reduce the whole buffer log2 P2 times; the P - P2 extra ranks fold
        // their data in first and get the result last. Exact for P = P2.
        Rounds r{p2p};
        if (f.extra > 0)
            r.transfer(n, c.gamma * n);
        for (int i = 0; i < f.steps; ++i)
            r.exchange(n, c.gamma * n);
        if (f.extra > 0)
            r.transfer(n);
        return r.ready;
    }
    case Algorithm::ring: {
        // The ring allreduce (Patarasuk, Yuan, "Bandwidth optimal all-reduce
        // algorithms for clusters of workstations", JPDC 2009): ring
        // reduce-scatter, P-1 steps of n/P reduced, then ring allgather, P-1
        // steps of n/P. Exact (every rank does the same).
        const double block = n / double(P);
        Rounds r{p2p};
        r.exchanges(P - 1, block, c.gamma * block);
        r.exchanges(P - 1, block);
        return r.ready;
    }
    case Algorithm::rabenseifner: {
        // Thakur et al. 2005, allreduce: recursive-halving reduce-scatter, then
        // recursive-doubling allgather of n/P2 .. n/2. Exact for P = P2.
        Rounds r = halving(c, p2p, f);
        double part = n / double(f.P2);
        for (int i = 0; i < f.steps; ++i, part *= 2)
            r.exchange(part);
        if (f.extra > 0)
            r.transfer(n);
        return r.ready;
    }
    default:
        return std::nan("");
    }
}

double allgather(const Collective& c, const MessageCostFn& p2p)
{
    const long long P = c.ranks;
    const double m = c.bytes;
    Rounds r{p2p};
    switch (c.algorithm) {
    case Algorithm::ring: // Thakur et al. 2005, allgather: P-1 steps of one block. Exact.
        r.exchanges(P - 1, m);
        return r.ready;
    case Algorithm::recursive_doubling: {
        // Thakur et al. 2005, allgather: log2 P2 steps doubling what is sent.
        // The P - P2 extra ranks fold their block in first and take the whole
        // result last; in between the closed form sends, at distance d, what
        // the first d ranks hold, the most of any d (the folded ranks hold
        // two blocks): (d + min(d, P - P2)) blocks. Exact for P = P2.
        const Fold f = fold_of(P);
        if (f.extra > 0)
            r.transfer(m);
        for (long long d = 1; d < f.P2; d *= 2)
            r.exchange(m * double(d + std::min(d, f.extra)));
        if (f.extra > 0)
            r.transfer(m * double(P));
        return r.ready;
    }
    case Algorithm::bruck: {
        // Bruck et al. 1997, concatenation (Thakur et al. 2005, allgather): step i sends
        // min(2^i, P - 2^i) blocks. Exact (every rank does the same).
        for (long long d = 1; d < P; d *= 2)
            r.exchange(m * double(std::min(d, P - d)));
        return r.ready;
    }
    default:
        return std::nan("");
    }
}

double alltoall(const Collective& c, const MessageCostFn& p2p)
{
    const long long P = c.ranks;
    Rounds r{p2p};
    switch (c.algorithm) {
    case Algorithm::linear: { // Open MPI's basic linear: every receive and send posted at once.
        // One rank's sends and arrivals in time order, as the schedule's
        // evaluation takes them (a rank's own ready operation first at equal
        // times). The ranks are symmetric: the k-th message to arrive at a
        // rank left its sender when the rank's own k-th send left. Exact for
        // eager messages; with rendezvous, where it takes every handshake at
        // once before the data, a lower bound of the schedule's evaluation
        // (47% below it at most in the unit tests' LogGPS case). O(P).
        const MessageCost m = p2p(c.bytes);
        const long long n = P - 1;
        const double inf = std::numeric_limits<double>::infinity();
        std::vector<double> starts;
        starts.reserve(std::size_t(n));
        double cpu = 0, send_nic = 0, recv_nic = 0, end = 0;
        for (long long taken = 0; taken < n;) {
            const long long sent = (long long)starts.size();
            const double next_send = sent < n ? std::max({m.handshake(), cpu, send_nic}) : inf;
            const double next_take =
                taken < sent ? std::max({starts[std::size_t(taken)] + m.arrival, cpu, recv_nic}) : inf;
            if (next_send <= next_take) {
                starts.push_back(next_send);
                cpu = next_send + m.send_cpu;
                send_nic = next_send + m.send_gap;
            } else {
                cpu = next_take + m.recv_cpu;
                recv_nic = next_take + m.recv_gap;
                end = cpu;
                ++taken;
            }
        }
        return end;
    }
    case Algorithm::pairwise: // Thakur et al. 2005, alltoall: P-1 steps of one block. Exact.
        r.exchanges(P - 1, c.bytes);
        return r.ready;
    case Algorithm::bruck: // Bruck et al. 1997, index algorithm: step i sends the blocks with bit i set. Exact.
        for (int i = 0; (1LL << i) < P; ++i)
            r.exchange(c.bytes * double(blocks_with_bit(P, i)));
        return r.ready;
    default:
        return std::nan("");
    }
}

double barrier(const Collective& c, const MessageCostFn& p2p)
{
    Rounds r{p2p};
    switch (c.algorithm) {
    case Algorithm::dissemination: // Hensgen, Finkel, Manber 1988; Thakur et al. 2005, barrier. Exact.
        for (long long d = 1; d < c.ranks; d *= 2)
            r.exchange(1);
        return r.ready;
    case Algorithm::recursive_doubling: { // pairwise exchanges over P2 ranks, extra ranks folded. Exact for P = P2.
        const Fold f = fold_of(c.ranks);
        if (f.extra > 0)
            r.transfer(1);
        for (int i = 0; i < f.steps; ++i)
            r.exchange(1);
        if (f.extra > 0)
            r.transfer(1);
        return r.ready;
    }
    default:
        return std::nan("");
    }
}

} // namespace

long long power_of_two_below(long long P) noexcept
{
    long long p = 1;
    while (p * 2 <= P)
        p *= 2;
    return p;
}

int ceil_log2(long long P) noexcept
{
    int h = 0;
    for (long long covered = 1; covered < P; covered *= 2)
        ++h;
    return h;
}

long long pipeline_segments(const Collective& c) noexcept
{
    return std::max(1LL, (long long)std::ceil(c.bytes / c.segment_bytes));
}

double closed_form(const Collective& c, const MessageCostFn& p2p)
{
    switch (c.op) {
    case CollectiveOp::bcast:
        return bcast(c, p2p);
    case CollectiveOp::reduce:
        return reduce(c, p2p);
    case CollectiveOp::allreduce:
        return allreduce(c, p2p);
    case CollectiveOp::allgather:
        return allgather(c, p2p);
    case CollectiveOp::alltoall:
        return alltoall(c, p2p);
    case CollectiveOp::gather: {
        const double m = c.bytes;
        if (c.algorithm == Algorithm::linear)
            return linear_in(p2p(m), c.ranks - 1);
        return Up(
            p2p, [m](long long z) { return m * double(z); }, 0)(c.ranks);
    }
    case CollectiveOp::scatter: {
        const double m = c.bytes;
        if (c.algorithm == Algorithm::linear)
            return linear_out(p2p(m), c.ranks - 1);
        return Down(p2p, [m](long long z) { return m * double(z); })(c.ranks);
    }
    case CollectiveOp::barrier:
        return barrier(c, p2p);
    }
    return std::nan("");
}

} // namespace ngx::fit::detail
