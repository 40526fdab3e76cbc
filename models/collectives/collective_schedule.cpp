// Explicit schedules of the collective algorithms (see
// collective_schedule.hpp), rank by rank as MPICH and Open MPI run them
// (Thakur et al. 2005 for each algorithm; Bruck et al. 1997), root 0.
#include <models/collectives/collective_schedule.hpp>

#include <models/collectives/collectives_internal.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

namespace ngx::fit {
namespace {

using Kind = ScheduleOp::Kind;

// Builds a schedule step by step: each rank's next operations wait for its
// frontier (the operations of its previous step).
class Builder {
public:
    Builder(long long P, double gamma) : frontier_(std::size_t(P))
    {
        schedule_.ranks.resize(std::size_t(P));
        schedule_.gamma = gamma;
    }

    int size() const { return int(schedule_.ranks.size()); }

    // Sends `bytes` to `to` after the frontier; the send becomes the frontier.
    void send(int rank, int to, double bytes) { frontier_[rank] = {add(rank, Kind::send, to, bytes)}; }

    // Receives from `from` (then reduces the message when `reduce`).
    void recv(int rank, int from, double bytes, bool reduce = false)
    {
        const int r = add(rank, Kind::recv, from, bytes);
        frontier_[rank] = {r};
        if (reduce && schedule_.gamma > 0)
            frontier_[rank] = {add(rank, Kind::calc, -1, bytes)};
    }

    // Sends to `to` and receives from `from` in one step, both after the
    // frontier (then reduces what came when `reduce`).
    void exchange(int rank, int to, int from, double bytes, bool reduce = false)
    {
        exchange(rank, to, bytes, from, bytes, reduce);
    }
    void exchange(int rank, int to, double sent, int from, double received, bool reduce = false)
    {
        const int s = add(rank, Kind::send, to, sent);
        const int r = add(rank, Kind::recv, from, received);
        frontier_[rank] = {s, r};
        if (reduce && schedule_.gamma > 0)
            frontier_[rank] = {s, add(rank, Kind::calc, -1, received)};
    }

    // Pairs each send with its receive: the k-th message from a to b in a's
    // order is the k-th receive from a in b's (MPI's non-overtaking rule).
    Schedule finish()
    {
        std::map<std::pair<int, int>, std::vector<int>> sends, recvs;
        for (int rank = 0; rank < size(); ++rank)
            for (int i = 0; i < int(schedule_.ranks[rank].size()); ++i) {
                const ScheduleOp& op = schedule_.ranks[rank][i];
                if (op.kind == Kind::send)
                    sends[{rank, op.peer}].push_back(i);
                else if (op.kind == Kind::recv)
                    recvs[{op.peer, rank}].push_back(i);
            }
        for (auto& [pair, list] : sends) {
            const std::vector<int>& into = recvs[pair];
            for (std::size_t k = 0; k < list.size() && k < into.size(); ++k) {
                schedule_.ranks[pair.first][list[k]].match = into[k];
                schedule_.ranks[pair.second][into[k]].match = list[k];
            }
        }
        return std::move(schedule_);
    }

    // Independent chains on one rank (the pipeline's receives and sends).
    int add_after(int rank, Kind kind, int peer, double bytes, std::vector<int> after)
    {
        ScheduleOp op;
        op.kind = kind;
        op.peer = peer;
        op.bytes = bytes;
        op.after = std::move(after);
        schedule_.ranks[rank].push_back(std::move(op));
        return int(schedule_.ranks[rank].size()) - 1;
    }

private:
    int add(int rank, Kind kind, int peer, double bytes) { return add_after(rank, kind, peer, bytes, frontier_[rank]); }

    Schedule schedule_;
    std::vector<std::vector<int>> frontier_;
};

// Tree position -> rank (the identity, or the fold's numbering).
using RankMap = std::function<int(int)>;
int identity(int x)
{
    return x;
}

int lowest_bit(int x, int P)
{
    return x == 0 ? int(detail::power_of_two_below(P - 1)) * 2 : (x & -x);
}

// Binomial tree from `base + 0` over `z` ranks numbered base..base+z-1
// (MPICH's MPIR_Bcast_binomial / scatter): child at distance d gets
// bytes_of(its subtree size).
template <class Bytes>
void binomial_down(Builder& b, int z, Bytes bytes_of, const RankMap& real)
{
    for (int x = 0; x < z; ++x) {
        const int low = lowest_bit(x, z), sub = std::min(low, z - x);
        if (x != 0)
            b.recv(real(x), real(x - low), bytes_of(sub));
        for (int d = int(detail::power_of_two_below(std::max(1, sub - 1))); d >= 1 && sub > 1; d /= 2)
            b.send(real(x), real(x + d), bytes_of(std::min(d, sub - d)));
    }
}

// Binomial tree into rank 0 (MPICH's binomial reduce / gather).
template <class Bytes>
void binomial_up(Builder& b, int z, Bytes bytes_of, bool reduce, const RankMap& real)
{
    for (int x = 0; x < z; ++x) {
        const int low = lowest_bit(x, z), sub = std::min(low, z - x);
        for (int d = 1; d < sub; d *= 2)
            b.recv(real(x), real(x + d), bytes_of(std::min(d, sub - d)), reduce);
        if (x != 0)
            b.send(real(x), real(x - low), bytes_of(sub));
    }
}

// The non-power-of-two fold (Thakur et al. 2005, allreduce): of the first
// 2r ranks the odd ones hand their data to their even neighbour and wait;
// the P2 remaining ranks are numbered 0..P2-1.
struct Fold {
    int P2, extra;
    int real(int j) const { return j < extra ? 2 * j : j + extra; }
    bool out(int x) const { return x < 2 * extra && x % 2 == 1; }
};

Fold fold_of(int P)
{
    const int P2 = int(detail::power_of_two_below(P));
    return {P2, P - P2};
}

void fold_in(Builder& b, const Fold& f, double bytes, bool reduce)
{
    for (int x = 0; x < 2 * f.extra; x += 2) {
        b.send(x + 1, x, bytes);
        b.recv(x, x + 1, bytes, reduce);
    }
}

void fold_out(Builder& b, const Fold& f, double bytes)
{
    for (int x = 0; x < 2 * f.extra; x += 2) {
        b.send(x, x + 1, bytes);
        b.recv(x + 1, x, bytes);
    }
}

// Exchanges with the partner at distance `mask` among the fold's P2 ranks.
void fold_exchange(Builder& b, const Fold& f, int mask, double bytes, bool reduce)
{
    for (int j = 0; j < f.P2; ++j) {
        const int peer = f.real(j ^ mask);
        b.exchange(f.real(j), peer, peer, bytes, reduce);
    }
}

// Every rank sends to rank + shift and receives from rank - shift (mod P).
void shift_exchange(Builder& b, int shift, double bytes, bool reduce = false)
{
    const int P = b.size();
    for (int x = 0; x < P; ++x)
        b.exchange(x, (x + shift) % P, (x - shift % P + P) % P, bytes, reduce);
}

void bcast(Builder& b, const Collective& c)
{
    const int P = b.size();
    const double n = c.bytes;
    switch (c.algorithm) {
    case Algorithm::linear:
        for (int x = 1; x < P; ++x) {
            b.send(0, x, n);
            b.recv(x, 0, n);
        }
        break;
    case Algorithm::binomial:
        binomial_down(
            b, P, [n](int) { return n; }, identity);
        break;
    case Algorithm::pipeline: {
        const long long k = detail::pipeline_segments(c);
        const double seg = n / double(k);
        for (int x = 0; x < P; ++x) {
            int last_recv = -1, last_send = -1;
            for (long long j = 0; j < k; ++j) {
                std::vector<int> after_recv = last_recv < 0 ? std::vector<int>{} : std::vector<int>{last_recv};
                if (x > 0)
                    last_recv = b.add_after(x, Kind::recv, x - 1, seg, after_recv);
                if (x + 1 < P) {
                    std::vector<int> after;
                    if (last_send >= 0)
                        after.push_back(last_send);
                    if (x > 0)
                        after.push_back(last_recv);
                    last_send = b.add_after(x, Kind::send, x + 1, seg, after);
                }
            }
        }
        break;
    }
    case Algorithm::scatter_allgather: {
        const double block = n / double(P);
        binomial_down(
            b, P, [block](int z) { return block * z; }, identity);
        for (int step = 1; step < P; ++step)
            shift_exchange(b, 1, block);
        break;
    }
    default:
        break;
    }
}

void halving(Builder& b, const Collective& c, const Fold& f)
{
    fold_in(b, f, c.bytes, true);
    double part = c.bytes;
    for (int mask = f.P2 / 2; mask >= 1; mask /= 2) {
        part /= 2;
        fold_exchange(b, f, mask, part, true);
    }
}

void reduce(Builder& b, const Collective& c)
{
    const int P = b.size();
    const double n = c.bytes;
    switch (c.algorithm) {
    case Algorithm::binomial:
        binomial_up(
            b, P, [n](int) { return n; }, true, identity);
        break;
    case Algorithm::ring: {
        const double block = n / double(P);
        for (int step = 1; step < P; ++step)
            shift_exchange(b, 1, block, true);
        binomial_up(
            b, P, [block](int z) { return block * z; }, false, identity);
        break;
    }
    case Algorithm::rabenseifner: {
        const Fold f = fold_of(P);
        halving(b, c, f);
        const double part = n / double(f.P2);
        binomial_up(
            b, f.P2, [part](int z) { return part * z; }, false, [&f](int j) { return f.real(j); });
        break;
    }
    default:
        break;
    }
}

void allreduce(Builder& b, const Collective& c)
{
    const int P = b.size();
    const double n = c.bytes;
    const Fold f = fold_of(P);
    switch (c.algorithm) {
    case Algorithm::binomial:
        binomial_up(
            b, P, [n](int) { return n; }, true, identity);
        binomial_down(
            b, P, [n](int) { return n; }, identity);
        break;
    case Algorithm::recursive_doubling:
        fold_in(b, f, n, true);
        for (int mask = 1; mask < f.P2; mask *= 2)
            fold_exchange(b, f, mask, n, true);
        fold_out(b, f, n);
        break;
    case Algorithm::ring: {
        const double block = n / double(P);
        for (int step = 1; step < P; ++step)
            shift_exchange(b, 1, block, true);
        for (int step = 1; step < P; ++step)
            shift_exchange(b, 1, block);
        break;
    }
    case Algorithm::rabenseifner: {
        halving(b, c, f);
        double part = n / double(f.P2);
        for (int mask = 1; mask < f.P2; mask *= 2, part *= 2)
            fold_exchange(b, f, mask, part, false);
        fold_out(b, f, n);
        break;
    }
    default:
        break;
    }
}

void allgather(Builder& b, const Collective& c)
{
    const int P = b.size();
    const double m = c.bytes;
    switch (c.algorithm) {
    case Algorithm::ring:
        for (int step = 1; step < P; ++step)
            shift_exchange(b, 1, m);
        break;
    case Algorithm::recursive_doubling: {
        // Each of the P2 ranks sends all it holds; the extra ranks' blocks
        // make the first P - P2 hold two (Thakur et al. 2005, allgather).
        const Fold f = fold_of(P);
        fold_in(b, f, m, false);
        std::vector<double> held(std::size_t(f.P2));
        for (int j = 0; j < f.P2; ++j)
            held[j] = j < f.extra ? 2 * m : m;
        for (int mask = 1; mask < f.P2; mask *= 2) {
            std::vector<double> next = held;
            for (int j = 0; j < f.P2; ++j) {
                const int peer = f.real(j ^ mask);
                b.exchange(f.real(j), peer, held[j], peer, held[j ^ mask]);
                next[j] += held[j ^ mask];
            }
            held.swap(next);
        }
        fold_out(b, f, m * P);
        break;
    }
    case Algorithm::bruck:
        for (int d = 1; d < P; d *= 2)
            for (int x = 0; x < P; ++x)
                b.exchange(x, (x - d + P) % P, (x + d) % P, m * std::min(d, P - d));
        break;
    default:
        break;
    }
}

void alltoall(Builder& b, const Collective& c)
{
    const int P = b.size();
    if (c.algorithm == Algorithm::linear) {
        // Open MPI's basic linear (and linear_sync with every request at
        // once): each rank posts its receives from rank + 1 upwards, then its
        // sends to rank - 1 downwards, all at the start, and waits for all.
        for (int x = 0; x < P; ++x) {
            for (int i = 1; i < P; ++i)
                b.add_after(x, Kind::recv, (x + i) % P, c.bytes, {});
            for (int i = 1; i < P; ++i)
                b.add_after(x, Kind::send, (x - i + P) % P, c.bytes, {});
        }
        return;
    }
    if (c.algorithm == Algorithm::pairwise) {
        for (int step = 1; step < P; ++step)
            shift_exchange(b, step, c.bytes);
        return;
    }
    for (int d = 1; d < P; d *= 2) { // Bruck: the blocks whose index has this bit
        int blocks = 0;
        for (int j = 0; j < P; ++j)
            blocks += (j & d) ? 1 : 0;
        shift_exchange(b, d, c.bytes * blocks);
    }
}

void gather_scatter(Builder& b, const Collective& c)
{
    const int P = b.size();
    const double m = c.bytes;
    const bool gather = c.op == CollectiveOp::gather;
    if (c.algorithm == Algorithm::linear) {
        for (int x = 1; x < P; ++x) {
            if (gather) {
                b.send(x, 0, m);
                b.recv(0, x, m);
            } else {
                b.send(0, x, m);
                b.recv(x, 0, m);
            }
        }
        return;
    }
    auto bytes = [m](int z) { return m * z; };
    if (gather)
        binomial_up(b, P, bytes, false, identity);
    else
        binomial_down(b, P, bytes, identity);
}

void barrier(Builder& b, const Collective& c)
{
    const int P = b.size();
    if (c.algorithm == Algorithm::dissemination) {
        for (int d = 1; d < P; d *= 2)
            shift_exchange(b, d, 1);
        return;
    }
    const Fold f = fold_of(P);
    fold_in(b, f, 1, false);
    for (int mask = 1; mask < f.P2; mask *= 2)
        fold_exchange(b, f, mask, 1, false);
    fold_out(b, f, 1);
}

} // namespace

Schedule collective_schedule(const Collective& c)
{
    Builder b(c.ranks, c.gamma);
    switch (c.op) {
    case CollectiveOp::bcast:
        bcast(b, c);
        break;
    case CollectiveOp::reduce:
        reduce(b, c);
        break;
    case CollectiveOp::allreduce:
        allreduce(b, c);
        break;
    case CollectiveOp::allgather:
        allgather(b, c);
        break;
    case CollectiveOp::alltoall:
        alltoall(b, c);
        break;
    case CollectiveOp::gather:
    case CollectiveOp::scatter:
        gather_scatter(b, c);
        break;
    case CollectiveOp::barrier:
        barrier(b, c);
        break;
    }
    return b.finish();
}

} // namespace ngx::fit
