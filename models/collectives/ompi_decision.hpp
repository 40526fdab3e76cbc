// Which algorithm Open MPI would run: the fixed decision rules of its
// `tuned` collective component, coll_tuned_decision_fixed.c of Open MPI
// 4.1 (the version Debian 12 ships, 4.1.4; the tables generated from the
// ompi-collectives-tuning measurements that replaced the older rules in
// 4.1.0), functions ompi_coll_tuned_<op>_intra_dec_fixed, commutative
// operations. The thresholds are those of that file, written here as data.
//
//     OmpiChoice c = ompi_tuned_choice(CollectiveOp::allreduce, 64, 1 << 20);
//     c.name;       // "rabenseifner" (Open MPI's name)
//     c.modeled;    // the ngx algorithm that models it, if any
//
// Sizes are Open MPI's total_dsize: the datatype size times the count
// argument (the buffer of bcast / reduce / allreduce, one rank's block of
// allgather / alltoall / gather / scatter), as `Collective::bytes`.
#ifndef NGX_FIT_OMPI_DECISION_HPP
#define NGX_FIT_OMPI_DECISION_HPP

#include <models/collectives/collectives.hpp>

#include <optional>
#include <string>

namespace ngx::fit {

struct OmpiChoice {
    int id = 0;                       // Open MPI's algorithm number (coll_tuned_<op>_algorithm)
    std::string name;                 // Open MPI's name of it
    std::optional<Algorithm> modeled; // ngx's model of it; none: ngx has no model
    std::string note;                 // how close the model is, when it is not the same algorithm
    // The segment to cost `modeled` with: the fixed rules run every
    // algorithm with segsize 0 (ompi_coll_tuned_<op>_intra_do_this(...,
    // alg, 0, 0)), so a chain or pipeline bcast moves the whole buffer in
    // one piece from hop to hop: the buffer's size, not ngx's --segment.
    double segment_bytes = 0;
};

// `element_bytes` is the datatype's size: the algorithms fall back on a
// small count (coll_base_allreduce.c: the ring, segmented or not, runs
// recursive doubling when count < P; Rabenseifner's allreduce and reduce
// run the linear algorithm when count < the largest power of two <= P).
OmpiChoice ompi_tuned_choice(CollectiveOp op, long long ranks, double bytes, double element_bytes = 8);

} // namespace ngx::fit

#endif
