// The log3P model of Cameron, Ge and Sun (2007, "log_n P and log_3 P:
// Accurate Analytical Models of Point-to-Point Communication in Distributed
// Systems"): a message costs
//     T = o_mw + l_mw + o_net                                  eq. (6)
// middleware overhead o_mw (unit-stride cost at sender and receiver),
// middleware latency l_mw (the extra cost of strided data: packing and
// unpacking) and network overhead o_net, each a function of the size s
// (l_mw also of the stride d). Measured as in Cameron et al. 2007, section 4.1,
// from half round trips (pattern `strided`):
//     T_00(s)   = o_mw/2 + T_mem + o_mw/2          send to self, contiguous
//     T_01(s)   = o_mw/2 + o_net + o_mw/2          remote, contiguous
//     T_00(s,d) = o_mw/2 + l_mw/2 + T_mem + l_mw/2 + o_mw/2   self, strided
// so o_mw = T_00 - T_mem, o_net = T_01 - o_mw, l_mw = T_00(s,d) - T_mem -
// o_mw; the remote strided time T_01(s,d) = o_mw + l_mw + o_net is then a
// prediction, which Cameron et al. 2007 checks against its measurement.
//
//     std::vector<Log3PSample> c = ...;          // per size: T_00, T_01, T_mem
//     std::vector<Log3PStridedSample> st = ...;  // per (size, stride): T_00(s,d) [, T_01(s,d)]
//     Result<Log3PFit> f = fit_log3p(c, st);
//     f->params.time(16384, 1024);              // predicted T_01(16 KiB, stride 1 KiB)
//     f->params.tree_bcast(32, 16384, 1024);
//     f->validation.mean_rel;                   // vs measured T_01(s,d), if given
//
// The parameters are tables over the measured sizes (they are functions of
// s, not constants). Between measured sizes values are interpolated
// linearly in s, beyond them extrapolated from the end segment; strided
// samples at sizes without a contiguous sample use interpolated o_mw, T_mem.
// Between measured strides l_mw is interpolated linearly in log2(d); outside
// them the nearest stride is used. Stride d <= 0 means contiguous (l_mw = 0).
//
// The packed path (an extension, optional): Cameron et al. 2007 takes o_net from
// contiguous transfers and sets the network's strided cost l_1 to zero,
// since the middleware packs strided data into contiguous packets. Where a
// module moves contiguous and packed data on different paths (Open MPI over
// shared memory: one single copy for a contiguous message, copy-in/copy-out
// fragments for a derived datatype), the network term of strided transfers
// is o_net of that packed path instead: calibrate_packed_network() takes it,
// per size, from measured remote strided transfers as
// T_01(s,d) - o_mw(s) - l_mw(s,d); l_1 = 0 still holds across strides.
//
// Collectives (Cameron et al. 2007, section 4.3.3): linear broadcast
// P (o_mw/2 + l_mw/2) + o_net, tree broadcast (o_mw + l_mw + o_net) log2(P),
// with log2(P) rounded up to whole rounds for P not a power of two; P = 1
// costs nothing.
#ifndef NGX_FIT_LOG3P_HPP
#define NGX_FIT_LOG3P_HPP

#include <models/base/least_squares.hpp>
#include <models/base/model_error.hpp>
#include <models/base/status.hpp>

#include <optional>
#include <span>
#include <vector>

namespace ngx::fit {

// Contiguous measurements at one size (half round trips, one time unit).
struct Log3PSample {
    double size = 0;     // s, bytes
    double t_self = 0;   // T_00(s): send to self
    double t_remote = 0; // T_01(s): to the other node
    double t_mem = 0;    // T_mem(s): memcpy of s bytes
};

// Strided measurements at one (size, stride).
struct Log3PStridedSample {
    double size = 0;                // s, bytes of payload
    double stride = 0;              // d, bytes between elements (> 0)
    double t_self = 0;              // T_00(s,d)
    std::optional<double> t_remote; // T_01(s,d), to validate the prediction
};

struct Log3PParams {
    // Per contiguous size (increasing).
    std::vector<double> sizes, o_mw, o_net, t_mem;
    // l_mw(s, d) per measured stride (increasing strides, increasing sizes).
    struct StrideTable {
        double stride = 0;
        std::vector<double> sizes, l_mw;
    };
    std::vector<StrideTable> strided;
    // The packed path (empty: Cameron et al. 2007's form): o_net of strided transfers
    // per size, used for strides d > unit_stride (bytes).
    std::vector<double> packed_sizes, packed_o_net;
    double unit_stride = 0;

    double o_mw_at(double s) const noexcept;
    double o_net_at(double s) const noexcept;
    double t_mem_at(double s) const noexcept;
    double l_mw_at(double s, double d) const noexcept; // 0 for d <= 0
    // The network term of a transfer of stride d: o_net, or the packed
    // path's o_net for d > unit_stride when it was calibrated.
    double network_at(double s, double d) const noexcept;

    // Point to point, eq. (6): o_mw + l_mw + o_net (a half round trip).
    double time(double s, double d = 0) const noexcept;
    double rtt(double s, double d = 0) const noexcept { return 2 * time(s, d); }
    // Send to self: o_mw + l_mw + T_mem.
    double self_time(double s, double d = 0) const noexcept;
    double linear_bcast(double P, double s, double d = 0) const noexcept;
    double tree_bcast(double P, double s, double d = 0) const noexcept;
};

struct Log3PFit {
    Log3PParams params;
    std::optional<LineFit> o_mw_line;  // o_mw against s (summary: per-byte cost)
    std::optional<LineFit> o_net_line; // o_net against s
    // Reproduction of the fitted measurements (T_01(s), T_00(s), T_00(s,d)).
    // Zero up to rounding by construction; kept for uniformity with the
    // other models.
    ModelError error;
    // Predicted T_01(s,d) against the measured remote strided times (count
    // 0 when none were given): the accuracy Cameron et al. 2007 reports.
    ModelError validation;
};

// Sets params.packed_* from the samples with a measured T_01 and stride >
// unit_stride: per size the mean of T_01(s,d) - o_mw(s) - l_mw(s,d). Without
// such samples the tables stay empty (Cameron et al. 2007's form).
void calibrate_packed_network(Log3PParams& params, double unit_stride, std::span<const Log3PStridedSample> remote);

// Contiguous samples: increasing sizes >= 0, finite times, at least one.
// Strided samples: stride > 0, any order.
Result<Log3PFit> fit_log3p(std::span<const Log3PSample> contiguous, std::span<const Log3PStridedSample> strided = {});

} // namespace ngx::fit

#endif
