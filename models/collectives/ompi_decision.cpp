// Open MPI 4.1's fixed decision rules as data (see ompi_decision.hpp).
// Each table row: the rule for communicator sizes below `ranks_below`,
// as (size below, algorithm) steps and the algorithm above the last step.
#include <models/collectives/ompi_decision.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace ngx::fit {
namespace {

constexpr long long any = std::numeric_limits<long long>::max();

struct Step {
    long long bytes_below;
    int id;
};

struct Row {
    long long ranks_below;
    std::vector<Step> steps; // the last step's bytes_below is `any`
};

struct Named {
    int id;
    const char* name;
    std::optional<Algorithm> modeled;
    const char* note;
};

struct Rules {
    std::vector<Row> rows;
    std::vector<Named> names;
};

using A = Algorithm;
constexpr std::optional<Algorithm> none = std::nullopt;

// ompi_coll_tuned_allreduce_intra_dec_fixed, commutative operations.
Rules allreduce_rules()
{
    return {{{4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}, {any, 6}}},
             {8, {{16, 4}, {8192, 3}, {any, 6}}},
             {16, {{8192, 3}, {any, 6}}},
             {32, {{64, 5}, {4096, 3}, {any, 6}}},
             {64, {{128, 5}, {any, 6}}},
             {128, {{262144, 3}, {any, 6}}},
             {256, {{131072, 2}, {262144, 3}, {any, 6}}},
             {512, {{4096, 2}, {any, 6}}},
             {2048, {{2048, 2}, {16384, 3}, {any, 6}}},
             {4096, {{2048, 2}, {4096, 5}, {16384, 3}, {any, 6}}},
             {any, {{2048, 2}, {16384, 5}, {32768, 3}, {any, 4}}}},
            {{1, "basic_linear", none, "reduce to 0 then bcast, linear"},
             {2, "nonoverlapping", A::binomial, "reduce then bcast, each Open MPI's own choice; ngx: binomial both"},
             {3, "recursive_doubling", A::recursive_doubling, ""},
             {4, "ring", A::ring, ""},
             {5, "segmented_ring", A::ring, "the ring in segments; ngx: the unsegmented ring"},
             {6, "rabenseifner", A::rabenseifner, ""}}};
}

// ompi_coll_tuned_bcast_intra_dec_fixed.
Rules bcast_rules()
{
    return {{{4,
              {{32, 3},
               {256, 5},
               {512, 3},
               {1024, 7},
               {32768, 1},
               {131072, 5},
               {262144, 2},
               {524288, 1},
               {1048576, 6},
               {any, 5}}},
             {8, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}, {any, 2}}},
             {16, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}, {any, 1}}},
             {32, {{4096, 7}, {1048576, 6}, {any, 8}}},
             {64, {{2048, 6}, {any, 7}}},
             {128, {{any, 7}}},
             {256, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}, {any, 7}}},
             {1024, {{16384, 7}, {32768, 4}, {any, 7}}},
             {2048, {{524288, 7}, {any, 8}}},
             {4096, {{262144, 7}, {any, 8}}},
             {any, {{8192, 7}, {16384, 5}, {any, 7}}}},
            {{1, "basic_linear", A::linear, ""},
             {2, "chain", A::pipeline, "several segmented chains; ngx: one chain"},
             {3, "pipeline", A::pipeline, ""},
             {4, "split_binary_tree", none, ""},
             {5, "binary_tree", none, ""},
             {6, "binomial", A::binomial, ""},
             {7, "knomial", none, ""},
             {8, "scatter_allgather", A::scatter_allgather, "recursive-doubling allgather; ngx: ring allgather"},
             {9, "scatter_allgather_ring", A::scatter_allgather, ""}}};
}

// ompi_coll_tuned_reduce_intra_dec_fixed, commutative operations.
Rules reduce_rules()
{
    return {{{4, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}, {any, 3}}},
             {8, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}, {any, 1}}},
             {16, {{8192, 4}, {any, 5}}},
             {32, {{4096, 4}, {any, 5}}},
             {256, {{any, 5}}},
             {512, {{8192, 5}, {16384, 6}, {any, 5}}},
             {2048, {{any, 5}}},
             {4096, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}, {any, 5}}},
             {any, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}, {any, 5}}}},
            {{1, "linear", none, ""},
             {2, "chain", none, ""},
             {3, "pipeline", none, ""},
             {4, "binary", none, ""},
             {5, "binomial", A::binomial, ""},
             {6, "in-order_binary", none, ""},
             {7, "rabenseifner", A::rabenseifner, ""}}};
}

// ompi_coll_tuned_allgather_intra_dec_fixed.
Rules allgather_rules()
{
    return {{{3, {{any, 6}}},
             {32, {{any, 3}}},
             {64, {{1024, 3}, {65536, 5}, {any, 4}}},
             {128, {{512, 3}, {65536, 5}, {any, 4}}},
             {256, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {any, 4}}},
             {512, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {any, 4}}},
             {1024, {{64, 3}, {256, 2}, {2048, 3}, {any, 5}}},
             {2048, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}, {any, 5}}},
             {4096, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}, {any, 5}}},
             {any, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}, {any, 5}}}},
            {{1, "linear", none, ""},
             {2, "bruck", A::bruck, ""},
             {3, "recursive_doubling", A::recursive_doubling, ""},
             {4, "ring", A::ring, ""},
             {5, "neighbor", none, ""},
             {6, "two_proc", A::ring, "one exchange, as the ring at P = 2"}}};
}

// ompi_coll_tuned_alltoall_intra_dec_fixed.
Rules alltoall_rules()
{
    return {
        {{3, {{2, 2}, {4, 5}, {16, 2}, {64, 5}, {256, 2}, {4096, 5}, {32768, 2}, {262144, 4}, {1048576, 5}, {any, 2}}},
         {8, {{8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}, {any, 1}}},
         {16, {{262144, 4}, {any, 1}}},
         {32, {{4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}, {any, 4}}},
         {64, {{512, 3}, {524288, 1}, {any, 4}}},
         {128, {{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}, {any, 2}}},
         {256, {{1024, 3}, {2048, 4}, {262144, 1}, {any, 2}}},
         {512, {{1024, 3}, {8192, 4}, {32768, 1}, {any, 2}}},
         {1024, {{512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}, {any, 2}}},
         {2048, {{512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}, {any, 4}}},
         {4096, {{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}, {any, 1}}},
         {8192, {{2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}, {any, 4}}},
         {any, {{any, 2}}}},
        {{1, "linear", A::linear, "every isend and irecv at once"},
         {2, "pairwise", A::pairwise, ""},
         {3, "modified_bruck", A::bruck, ""},
         {4, "linear_sync", A::linear,
          "at most coll_tuned_alltoall_max_requests requests at a time; its default 0: every one at once, as linear"},
         {5, "two_proc", A::pairwise, "one exchange, as pairwise at P = 2"}}};
}

// ompi_coll_tuned_gather_intra_dec_fixed.
Rules gather_rules()
{
    return {{{4, {{2, 3}, {4, 1}, {32768, 2}, {65536, 1}, {131072, 2}, {any, 3}}},
             {8, {{1024, 2}, {8192, 1}, {32768, 2}, {262144, 1}, {any, 3}}},
             {256, {{any, 2}}},
             {512, {{2048, 2}, {8192, 1}, {any, 2}}},
             {any, {{any, 2}}}},
            {{1, "basic_linear", A::linear, ""},
             {2, "binomial", A::binomial, ""},
             {3, "linear_sync", A::linear, "linear with a synchronising first segment; ngx: linear"}}};
}

// ompi_coll_tuned_scatter_intra_dec_fixed.
Rules scatter_rules()
{
    return {{{4, {{2, 3}, {131072, 1}, {262144, 3}, {any, 1}}},
             {8, {{2048, 2}, {4096, 1}, {8192, 2}, {32768, 1}, {1048576, 3}, {any, 1}}},
             {16, {{16384, 2}, {1048576, 3}, {any, 1}}},
             {32, {{16384, 2}, {32768, 1}, {any, 3}}},
             {64, {{512, 2}, {8192, 3}, {16384, 2}, {any, 3}}},
             {any, {{512, 2}, {any, 3}}}},
            {{1, "basic_linear", A::linear, ""},
             {2, "binomial", A::binomial, ""},
             {3, "linear_nb", A::linear, "non-blocking linear sends; ngx: linear"}}};
}

// ompi_coll_tuned_barrier_intra_dec_fixed (by communicator size only).
Rules barrier_rules()
{
    return {{{4, {{any, 3}}},
             {8, {{any, 1}}},
             {64, {{any, 3}}},
             {256, {{any, 4}}},
             {512, {{any, 6}}},
             {1024, {{any, 4}}},
             {4096, {{any, 6}}},
             {any, {{any, 4}}}},
            {{1, "linear", none, ""},
             {2, "double_ring", none, ""},
             {3, "recursive_doubling", A::recursive_doubling, ""},
             {4, "bruck", A::dissemination, "Open MPI's bruck barrier is the dissemination pattern"},
             {5, "two_proc", A::recursive_doubling, ""},
             {6, "tree", none, ""}}};
}

Rules rules_of(CollectiveOp op)
{
    switch (op) {
    case CollectiveOp::allreduce:
        return allreduce_rules();
    case CollectiveOp::bcast:
        return bcast_rules();
    case CollectiveOp::reduce:
        return reduce_rules();
    case CollectiveOp::allgather:
        return allgather_rules();
    case CollectiveOp::alltoall:
        return alltoall_rules();
    case CollectiveOp::gather:
        return gather_rules();
    case CollectiveOp::scatter:
        return scatter_rules();
    case CollectiveOp::barrier:
        return barrier_rules();
    }
    return {};
}

// What the chosen algorithm really runs for a small count (see the header).
OmpiChoice with_fallback(OmpiChoice choice, CollectiveOp op, long long ranks, double count)
{
    long long below = 1;
    while (below * 2 <= ranks)
        below *= 2;
    const bool ring = op == CollectiveOp::allreduce && (choice.id == 4 || choice.id == 5);
    if (ring && count < double(ranks)) {
        choice.modeled = Algorithm::recursive_doubling;
        choice.note = "count < P: Open MPI's ring runs recursive doubling";
    }
    const bool rabenseifner =
        (op == CollectiveOp::allreduce && choice.id == 6) || (op == CollectiveOp::reduce && choice.id == 7);
    if (rabenseifner && count < double(below)) {
        choice.modeled = std::nullopt;
        choice.note = "count < " + std::to_string(below) + ": Open MPI runs the linear algorithm instead";
    }
    return choice;
}

} // namespace

OmpiChoice ompi_tuned_choice(CollectiveOp op, long long ranks, double bytes, double element_bytes)
{
    const Rules rules = rules_of(op);
    int id = 0;
    for (const Row& row : rules.rows) {
        if (ranks >= row.ranks_below)
            continue;
        for (const Step& step : row.steps)
            if (step.bytes_below == any || bytes < double(step.bytes_below)) {
                id = step.id;
                break;
            }
        break;
    }
    const double count = element_bytes > 0 ? std::floor(bytes / element_bytes) : bytes;
    for (const Named& n : rules.names)
        if (n.id == id)
            return with_fallback({id, n.name, n.modeled, n.note, bytes}, op, ranks, count);
    return {id, "?", std::nullopt, "", bytes};
}

} // namespace ngx::fit
