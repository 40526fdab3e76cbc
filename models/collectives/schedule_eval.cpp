// Event-by-event evaluation of a schedule (see collective_schedule.hpp),
// with the cost rules of collectives.hpp, in the way LogGOPSim applies
// them (Hoefler et al., HPDC 2010; its LogGOPSim.cpp main loop): an
// operation whose CPU or NIC is busy waits until it is free; a message is
// taken by the receiver's CPU when it arrives (posted receive or not) and
// the receive completes when both have happened. At equal times a rank's
// own ready operations go before arriving messages (LogGOPSim leaves that
// to its event heap's order; see collectives.hpp). Rendezvous handshakes
// are delays, not CPU time (as the closed forms take them). Under
// ScheduleRules::program_order each operation also waits for the step before
// it, and an arriving message holds only the receive NIC: the CPU takes it
// when its receive is called.
#include <models/collectives/collective_schedule.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <vector>

namespace ngx::fit {
namespace {

constexpr double unknown = std::numeric_limits<double>::quiet_NaN();

struct OpState {
    int pending = 0;          // operations it still waits for
    double ready_at = 0;      // the latest completion among them
    double done = unknown;    // completion time
    double posted = unknown;  // recv: when it was posted
    double taken = unknown;   // recv: when the CPU finished taking the message
    double arrived = unknown; // recv, program order: when the message was in
    double request = unknown; // recv: when a rendezvous request arrived
    bool handshaken = false;  // send: its rendezvous data may go
    std::vector<int> dependents;
};

struct RankState {
    double cpu = 0, send_nic = 0, recv_nic = 0;
};

struct Event {
    double time;
    int order; // 0: a rank's own ready operation, 1: an arriving message
    long long seq;
    int rank, op;
    bool operator>(const Event& e) const
    {
        if (time != e.time)
            return time > e.time;
        if (order != e.order)
            return order > e.order;
        return seq > e.seq;
    }
};

class Evaluation {
public:
    Evaluation(const Schedule& s, const MessageCostFn& p2p, const ScheduleRules& rules)
            : s_(s), p2p_(p2p), rules_(rules), ranks_(s.ranks.size())
    {
        ops_.resize(s.ranks.size());
        for (std::size_t r = 0; r < s.ranks.size(); ++r) {
            ops_[r].resize(s.ranks[r].size());
            for (std::size_t i = 0; i < s.ranks[r].size(); ++i)
                for (int before : s.ranks[r][i].after)
                    depend(r, before, int(i));
            if (rules.program_order)
                chain_steps(r);
        }
    }

    double run()
    {
        for (std::size_t r = 0; r < ops_.size(); ++r)
            for (std::size_t i = 0; i < ops_[r].size(); ++i)
                if (ops_[r][i].pending == 0)
                    push(0, 0, int(r), int(i));
        while (!queue_.empty() && ok_) {
            const Event e = queue_.top();
            queue_.pop();
            if (e.order == 0)
                ready(e.time, e.rank, e.op);
            else
                arrive(e.time, e.rank, e.op);
        }
        double end = 0;
        for (const std::vector<OpState>& rank : ops_)
            for (const OpState& op : rank) {
                if (!std::isfinite(op.done))
                    return unknown; // deadlock or an unpriced message
                end = std::max(end, op.done);
            }
        return ok_ ? end : unknown;
    }

private:
    void depend(std::size_t rank, int before, int op)
    {
        ops_[rank][before].dependents.push_back(op);
        ++ops_[rank][op].pending;
    }

    // Program order: every operation of a step waits for every one of the
    // step before (an overlapped exchange is a step of two; another
    // exchange two steps, in the order the rank runs them).
    void chain_steps(std::size_t rank)
    {
        const std::vector<ScheduleOp>& list = s_.ranks[rank];
        std::vector<std::vector<int>> steps;
        for (std::size_t i = 0; i < list.size(); ++i) {
            const int op = int(i);
            if (overlapped_exchange_at(list, i, rules_.nonblocking))
                steps.push_back({op, op + 1});
            else if (receives_first_at(list, i, int(rank), rules_.nonblocking))
                steps.insert(steps.end(), {{op + 1}, {op}});
            else if (exchange_at(list, i))
                steps.insert(steps.end(), {{op}, {op + 1}});
            else
                steps.push_back({op});
            i += exchange_at(list, i) ? 1 : 0;
        }
        for (std::size_t k = 1; k < steps.size(); ++k)
            for (int before : steps[k - 1])
                for (int op : steps[k])
                    depend(rank, before, op);
    }

    void push(double time, int order, int rank, int op) { queue_.push({time, order, seq_++, rank, op}); }

    MessageCost cost(double bytes)
    {
        const MessageCost m = p2p_(bytes);
        if (!std::isfinite(m.send_cpu + m.send_gap + m.arrival + m.recv_cpu + m.recv_gap + m.handshake()))
            ok_ = false;
        return m;
    }

    void complete(int rank, int op, double t)
    {
        ops_[rank][op].done = t;
        for (int next : ops_[rank][op].dependents) {
            OpState& d = ops_[rank][next];
            d.ready_at = std::max(d.ready_at, t);
            if (--d.pending == 0)
                push(d.ready_at, 0, rank, next);
        }
    }

    void ready(double t, int rank, int op)
    {
        const ScheduleOp& o = s_.ranks[rank][op];
        RankState& cpu = ranks_[rank];
        if (o.kind == ScheduleOp::Kind::calc) {
            if (cpu.cpu > t)
                return push(cpu.cpu, 0, rank, op);
            cpu.cpu = t + s_.gamma * o.bytes;
            return complete(rank, op, cpu.cpu);
        }
        if (o.peer < 0 || o.match < 0) {
            ok_ = false; // an unmatched message: the schedule is broken
            return;
        }
        if (o.kind == ScheduleOp::Kind::recv)
            return post(t, rank, op);
        const MessageCost m = cost(o.bytes);
        OpState& state = ops_[rank][op];
        if (m.rendezvous && !state.handshaken) {
            OpState& peer = ops_[o.peer][o.match];
            peer.request = t + m.request;
            if (std::isfinite(peer.posted))
                go_ahead(o.peer, o.match);
            return;
        }
        const double free = std::max(cpu.cpu, cpu.send_nic);
        if (free > t)
            return push(free, 0, rank, op);
        cpu.cpu = t + m.send_cpu;
        cpu.send_nic = t + m.send_gap;
        push(t + m.arrival, 1, o.peer, o.match);
        complete(rank, op, t + m.send_cpu);
    }

    // A rendezvous request met its posted receive: the sender's data may go
    // after the reply.
    void go_ahead(int rank, int recv)
    {
        const ScheduleOp& o = s_.ranks[rank][recv];
        OpState& state = ops_[rank][recv];
        const MessageCost m = cost(o.bytes);
        ops_[o.peer][o.match].handshaken = true;
        push(std::max(state.request, state.posted) + m.reply, 0, o.peer, o.match);
    }

    void post(double t, int rank, int op)
    {
        OpState& state = ops_[rank][op];
        state.posted = t;
        if (std::isfinite(state.arrived))
            return take(std::max(t, state.arrived), rank, op);
        if (std::isfinite(state.taken))
            return complete(rank, op, std::max(t, state.taken));
        if (std::isfinite(state.request))
            go_ahead(rank, op);
    }

    void arrive(double t, int rank, int op)
    {
        RankState& cpu = ranks_[rank];
        if (rules_.program_order)
            return arrive_in_buffers(t, rank, op);
        const double free = std::max(cpu.cpu, cpu.recv_nic);
        if (free > t)
            return push(free, 1, rank, op);
        const MessageCost m = cost(s_.ranks[rank][op].bytes);
        cpu.cpu = t + m.recv_cpu;
        cpu.recv_nic = t + m.recv_gap;
        OpState& state = ops_[rank][op];
        state.taken = cpu.cpu;
        if (std::isfinite(state.posted))
            complete(rank, op, std::max(state.posted, state.taken));
    }

    // Program order: the message holds the receive NIC on arrival; the CPU
    // takes it once its receive is called.
    void arrive_in_buffers(double t, int rank, int op)
    {
        RankState& nic = ranks_[rank];
        if (nic.recv_nic > t)
            return push(nic.recv_nic, 1, rank, op);
        nic.recv_nic = t + cost(s_.ranks[rank][op].bytes).recv_gap;
        OpState& state = ops_[rank][op];
        state.arrived = t;
        if (std::isfinite(state.posted))
            take(std::max(t, state.posted), rank, op);
    }

    void take(double t, int rank, int op)
    {
        RankState& cpu = ranks_[rank];
        const double start = std::max(t, cpu.cpu);
        cpu.cpu = start + cost(s_.ranks[rank][op].bytes).recv_cpu;
        ops_[rank][op].taken = cpu.cpu;
        complete(rank, op, cpu.cpu);
    }

    const Schedule& s_;
    const MessageCostFn& p2p_;
    const ScheduleRules rules_;
    std::vector<RankState> ranks_;
    std::vector<std::vector<OpState>> ops_;
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> queue_;
    long long seq_ = 0;
    bool ok_ = true;
};

} // namespace

bool exchange_at(const std::vector<ScheduleOp>& ops, std::size_t i)
{
    return i + 1 < ops.size() && ops[i].kind == ScheduleOp::Kind::send && ops[i + 1].kind == ScheduleOp::Kind::recv &&
           ops[i].after == ops[i + 1].after;
}

bool overlapped_exchange_at(const std::vector<ScheduleOp>& ops, std::size_t i, bool nonblocking)
{
    return nonblocking && exchange_at(ops, i) && ops[i].peer == ops[i + 1].peer;
}

bool receives_first_at(const std::vector<ScheduleOp>& ops, std::size_t i, int rank, bool nonblocking)
{
    return exchange_at(ops, i) && !overlapped_exchange_at(ops, i, nonblocking) && ops[i].peer < rank;
}

double evaluate_schedule(const Schedule& schedule, const MessageCostFn& p2p, const ScheduleRules& rules)
{
    return Evaluation(schedule, p2p, rules).run();
}

} // namespace ngx::fit
