// The postal model T = s + r n (Gropp et al. 2016, Gropp, Olson, Samfass, "Is it
// Time to Retire the Ping Pong Test": "the classic performance model"):
// a startup time s and one rate 1/r for an n-byte message, independent of
// how many processes communicate at once. Fitted by least squares.
//
//     std::vector<double> n{8, 64, 512, 4096}, t{2.1, 2.3, 3.0, 8.9};
//     Result<PostalFit> f = fit_postal(n, t);
//     f->params.s; f->params.r;          // startup, time per byte
//     f->params.time(1024);              // s + r * 1024
//     f->error.max_rel;                  // fit quality on its own data
//
// Gropp et al. 2016 fits it to 1 pair, to 16 pairs and to all pair counts pooled;
// pass the (n, T) of whichever set you mean (the NodeCommPoint overload
// pools every k). Relative weights (1/T^2) by default, so that short and
// long messages count alike, as the paper's relative-error tables do.
//
// Predictions assume T is the time of one message (a half round trip):
// ping-pong rtt = 2 T; the broadcasts serialise whole messages, since the
// model has no overhead/latency split to overlap: linear (P-1) T, binomial
// tree ceil(log2 P) T.
#ifndef NGX_FIT_POSTAL_HPP
#define NGX_FIT_POSTAL_HPP

#include <models/base/least_squares.hpp>
#include <models/base/measured.hpp>
#include <models/base/model_error.hpp>
#include <models/base/status.hpp>

#include <span>

namespace ngx::fit {

// One nodecomm measurement (Gropp et al. 2016): k concurrent pairs between two
// nodes, each exchanging n bytes, taking time t.
struct NodeCommPoint {
    double k = 1;
    double n = 0;
    double t = 0;
};

struct PostalParams {
    double s = 0; // startup time
    double r = 0; // time per byte (1/rate)

    double time(double n) const noexcept { return s + r * n; } // Gropp et al. 2016: T = s + r n
    double rtt(double n) const noexcept { return 2 * time(n); }
    double linear_bcast(double P, double n) const noexcept;
    double tree_bcast(double P, double n) const noexcept;
};

struct PostalOptions {
    bool relative_weights = true;
    double level = 0.95;
};

struct PostalFit {
    PostalParams params;
    Measured s, r;    // with regression intervals
    LineFit line;     // T against n
    ModelError error; // time(n) against every input point
};

Result<PostalFit> fit_postal(std::span<const double> n, std::span<const double> t, const PostalOptions& options = {});
Result<PostalFit> fit_postal(std::span<const NodeCommPoint> points, const PostalOptions& options = {});

} // namespace ngx::fit

#endif
