// Traced collectives as ngx's collective models (see trace_collectives.hpp).
#include "trace_collectives.hpp"

#include <models/collectives/ompi_decision.hpp>

#include <algorithm>

namespace ngx::trace {

std::optional<fit::CollectiveOp> collective_op(unsigned kind)
{
    switch (kind) {
    case NGX_TRACE_BARRIER:
        return fit::CollectiveOp::barrier;
    case NGX_TRACE_BCAST:
        return fit::CollectiveOp::bcast;
    case NGX_TRACE_REDUCE:
        return fit::CollectiveOp::reduce;
    case NGX_TRACE_ALLREDUCE:
        return fit::CollectiveOp::allreduce;
    case NGX_TRACE_ALLGATHER:
        return fit::CollectiveOp::allgather;
    case NGX_TRACE_ALLTOALL:
        return fit::CollectiveOp::alltoall;
    case NGX_TRACE_GATHER:
        return fit::CollectiveOp::gather;
    case NGX_TRACE_SCATTER:
        return fit::CollectiveOp::scatter;
    default:
        return std::nullopt;
    }
}

double collective_bytes(const ngx_trace_record& c, int ranks)
{
    switch (c.kind) {
    case NGX_TRACE_BCAST: // the root sends the buffer, the others receive it
        return double(std::max(c.bytes, c.bytes_recv));
    case NGX_TRACE_ALLTOALL: // P blocks sent
        return double(c.bytes) / std::max(ranks, 1);
    case NGX_TRACE_SCATTER: // every rank receives one block
        return double(c.bytes_recv);
    default: // reduce, allreduce: the buffer; allgather, gather: the block sent
        return double(c.bytes);
    }
}

PricedCollective choose_algorithm(fit::CollectiveOp op, int ranks, double bytes)
{
    PricedCollective p;
    p.collective.op = op;
    p.collective.ranks = ranks;
    p.collective.bytes = std::max(1.0, bytes);
    const fit::OmpiChoice choice = fit::ompi_tuned_choice(op, ranks, p.collective.bytes);
    if (choice.modeled) {
        p.collective.algorithm = *choice.modeled;
        p.collective.segment_bytes = choice.segment_bytes; // unsegmented, as Open MPI runs it
    } else {
        p.collective.algorithm = fit::algorithms_of(op).front();
        p.approximation = "Open MPI runs " + choice.name + ", which ngx has no model of: priced as " +
                          std::string(fit::algorithm_name(p.collective.algorithm));
    }
    p.valid = fit::check_collective(p.collective).empty();
    return p;
}

} // namespace ngx::trace
