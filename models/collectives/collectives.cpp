// Collective closed forms (see collectives.hpp). The algorithms are those of
// Thakur, Rabenseifner, Gropp, "Optimization of Collective Communication
// Operations in MPICH", IJHPCA 19(1), 2005 (cited as "Thakur et al. 2005"),
// and Bruck et al., "Efficient Algorithms for All-to-All Communications in
// Multiport Message-Passing Systems", IEEE TPDS 8(11), 1997; their costs
// are written here in LogGOPS terms (collectives.hpp's overview) instead of
// the papers' alpha + n beta, each message costed by the p2p function.
#include <models/collectives/collectives.hpp>

#include <models/collectives/collectives_internal.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace ngx::fit {
namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

struct OpName {
    CollectiveOp op;
    std::string_view name;
};
constexpr std::array<OpName, 8> op_names{{{CollectiveOp::bcast, "bcast"},
                                          {CollectiveOp::reduce, "reduce"},
                                          {CollectiveOp::allreduce, "allreduce"},
                                          {CollectiveOp::allgather, "allgather"},
                                          {CollectiveOp::alltoall, "alltoall"},
                                          {CollectiveOp::gather, "gather"},
                                          {CollectiveOp::scatter, "scatter"},
                                          {CollectiveOp::barrier, "barrier"}}};

struct AlgorithmName {
    Algorithm algorithm;
    std::string_view name;
};
constexpr std::array<AlgorithmName, 10> algorithm_names{{{Algorithm::linear, "linear"},
                                                         {Algorithm::binomial, "binomial"},
                                                         {Algorithm::pipeline, "pipeline"},
                                                         {Algorithm::scatter_allgather, "scatter_allgather"},
                                                         {Algorithm::recursive_doubling, "recursive_doubling"},
                                                         {Algorithm::ring, "ring"},
                                                         {Algorithm::rabenseifner, "rabenseifner"},
                                                         {Algorithm::bruck, "bruck"},
                                                         {Algorithm::pairwise, "pairwise"},
                                                         {Algorithm::dissemination, "dissemination"}}};

double clamp0(double x) noexcept
{
    return x > 0 ? x : 0; // a negative fitted slope is noise around 0 (as the LogGOPSim export)
}

} // namespace

MessageCost loggp_message_cost(const LogGPRange& r, double s) noexcept
{
    // The LogGOPSim export's reading of a range (patterns/loggp/loggopsim.hpp):
    // overlapped: O = max(O_s, O_r), G; additive eq. (1): O = (O_s + O_r)/2,
    // per-byte gap G + O_s + O_r, so one message is L + transfer_at(s).
    const double O_s = r.send_slope(), O_r = r.recv_slope();
    const double O = clamp0(r.overlapped ? std::max(O_s, O_r) : (O_s + O_r) / 2);
    const double G = clamp0(r.overlapped ? r.G.value : r.G.value + O_s + O_r);
    const double x = s > 1 ? s - 1 : 0, o_s = r.o_at(1), o_r = r.recv_at_one();
    // A measured exchange share f < 1 (exchange_share.hpp): the send's CPU
    // pays the share f of O, the rest is waiting that overlaps the flight,
    // and still paces the rank's sends, so the gap per byte is at least O.
    // The receive and the spacing of sends are as without it:
    // max(O_cpu, G_send) = max(O, G).
    const double f = r.exchange_cpu_share;
    const bool waits = std::isfinite(f) && f < 1;
    const double O_cpu = waits ? std::max(f, 0.0) * O : O;
    const double G_send = waits ? std::max(G, O) : G;
    MessageCost m;
    m.send_cpu = o_s + x * O_cpu;
    m.send_gap = m.recv_gap = r.g.value + x * G_send;
    m.arrival = o_s + r.L.value;
    m.recv_cpu = o_r + x * std::max(O, G);
    return m;
}

MessageCostFn loggp_message_cost(const LogGPParams& params)
{
    return [params](double bytes) {
        const LogGPRange* r = params.range_for(bytes);
        if (r == nullptr) {
            MessageCost m;
            m.send_cpu = m.arrival = m.recv_cpu = nan_v;
            return m;
        }
        return loggp_message_cost(*r, bytes);
    };
}

MessageCostFn loggps_message_cost(const LogGPSParams& p)
{
    return [p](double k) {
        MessageCost m;
        const double network = p.t2(k) - p.L; // kG_s, or sG_s + (k-s)G_l (Ino et al., Table 3, T2 / T2')
        m.send_cpu = p.t1(k);                 // T1 = o' + kO_s
        m.arrival = p.t1(k) + p.t2(k);        // the data leaves after T1 and takes T2
        m.recv_cpu = p.t3(k);                 // T3 = o' + kO_r
        m.send_gap = m.recv_gap = p.g + network;
        if (k > p.S) { // Ino et al., Table 3: T4 (request, receiver waiting) + T5 (ACK)
            m.rendezvous = true;
            m.request = p.o_prime + p.L;
            m.reply = p.o_prime + p.t5();
        }
        return m;
    };
}

std::string_view op_name(CollectiveOp op) noexcept
{
    for (const OpName& n : op_names)
        if (n.op == op)
            return n.name;
    return "?";
}

std::string_view algorithm_name(Algorithm algorithm) noexcept
{
    for (const AlgorithmName& n : algorithm_names)
        if (n.algorithm == algorithm)
            return n.name;
    return "?";
}

std::optional<CollectiveOp> op_from_name(std::string_view name) noexcept
{
    for (const OpName& n : op_names)
        if (n.name == name)
            return n.op;
    return std::nullopt;
}

std::optional<Algorithm> algorithm_from_name(std::string_view name) noexcept
{
    for (const AlgorithmName& n : algorithm_names)
        if (n.name == name)
            return n.algorithm;
    return std::nullopt;
}

std::vector<Algorithm> algorithms_of(CollectiveOp op)
{
    using A = Algorithm;
    switch (op) {
    case CollectiveOp::bcast:
        return {A::linear, A::binomial, A::pipeline, A::scatter_allgather};
    case CollectiveOp::reduce:
        return {A::binomial, A::ring, A::rabenseifner};
    case CollectiveOp::allreduce:
        return {A::binomial, A::recursive_doubling, A::ring, A::rabenseifner};
    case CollectiveOp::allgather:
        return {A::ring, A::recursive_doubling, A::bruck};
    case CollectiveOp::alltoall:
        return {A::linear, A::pairwise, A::bruck};
    case CollectiveOp::gather:
    case CollectiveOp::scatter:
        return {A::linear, A::binomial};
    case CollectiveOp::barrier:
        return {A::dissemination, A::recursive_doubling};
    }
    return {};
}

std::string algorithm_list(CollectiveOp op)
{
    std::string names;
    for (Algorithm a : algorithms_of(op))
        names += (names.empty() ? "" : ", ") + std::string(algorithm_name(a));
    return names;
}

std::string check_collective(const Collective& c)
{
    const std::vector<Algorithm> known = algorithms_of(c.op);
    if (std::find(known.begin(), known.end(), c.algorithm) == known.end())
        return "algorithm '" + std::string(algorithm_name(c.algorithm)) + "' is not one of " +
               std::string(op_name(c.op)) + "'s (" + algorithm_list(c.op) + ")";
    if (c.ranks < 2 || c.ranks > (1LL << 30))
        return "P = " + std::to_string(c.ranks) + ": a collective needs 2 <= P <= 2^30";
    if (!(c.bytes > 0) || !std::isfinite(c.bytes))
        return "the message size must be > 0 bytes";
    if (!(c.gamma >= 0) || !std::isfinite(c.gamma))
        return "gamma (us per byte reduced) must be >= 0";
    if (!(c.segment_bytes >= 1) || !std::isfinite(c.segment_bytes))
        return "the pipeline segment must be >= 1 byte";
    return "";
}

double predict_collective(const Collective& c, const MessageCostFn& p2p)
{
    if (!check_collective(c).empty())
        return nan_v;
    const double t = detail::closed_form(c, p2p);
    return std::isfinite(t) ? t : nan_v;
}

} // namespace ngx::fit
