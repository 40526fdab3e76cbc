// A traced collective as the collective ngx can price (collectives.hpp):
// its operation, its Collective::bytes from the record (the buffer of
// bcast / reduce / allreduce, one rank's block of the others) and the
// algorithm Open MPI's tuned decision runs for it (ompi_decision.hpp).
// Where Open MPI runs an algorithm ngx has no model of (e.g. the linear
// barrier at 4..7 ranks), the first model ngx has for the operation stands
// in and `approximation` says so; the replay and the GOAL export count it.
//
//     std::optional<fit::CollectiveOp> op = collective_op(record.kind);
//     PricedCollective p = choose_algorithm(*op, P, collective_bytes(record, P));
#ifndef NGX_TRACE_COLLECTIVES_HPP
#define NGX_TRACE_COLLECTIVES_HPP

#include "ngx_trace_format.h" // tools/trace, the tracer's format

#include <models/collectives/collectives.hpp>

#include <optional>
#include <string>

namespace ngx::trace {

// The operation of a record kind; none for the v variants and point-to-point.
std::optional<fit::CollectiveOp> collective_op(unsigned kind);

// Collective::bytes as one rank's record shows it (see the format's record comment).
double collective_bytes(const ngx_trace_record& record, int ranks);

struct PricedCollective {
    fit::Collective collective; // ranks, bytes and algorithm set
    bool valid = false;         // false: check_collective refuses it
    std::string approximation;  // not empty: Open MPI's algorithm has no model; what stands in
};

PricedCollective choose_algorithm(fit::CollectiveOp op, int ranks, double bytes);

} // namespace ngx::trace

#endif
