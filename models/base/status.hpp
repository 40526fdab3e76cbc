// How a model's fit fails: every fit returns an ngx::Result<T> (ngx/status.hpp, the
// one error type of ngx) holding the fitted value or the ngx::Status that says
// what failed and where. No fit throws across its API, prints or does
// I/O. The four constructors below give a failure its Reason (callers and
// tests branch on it) and a message that starts with the reason:
//
//     Result<LineFit> r = fit_line(x, y);
//     if (!r) return r.status();   // "too few points: 2 sizes, a line needs 3"
//     NGX_ASSIGN_OR_RETURN(LineFit line, fit_line(x, y));
//
// Which kind (and so which exit code) a fit failure is:
//  - invalid_input and too_few_points are usage errors (exit 2): the data or
//    options handed to the fit cannot give the quantity asked for, whatever
//    the machine measured -- a model file, a size range or an option the user
//    chose to `ngx fit`, or a pattern asking for a fit it cannot have.
//  - degenerate and not_converged are runtime errors (exit 1): the inputs
//    were well-formed but the measured values admit no (unique) solution.
// A caller that knows better (a pattern's own measurements are never the
// user's input) may report the message under its own kind.
#ifndef NGX_FIT_STATUS_HPP
#define NGX_FIT_STATUS_HPP

#include <ngx/status.hpp>

#include <string>

namespace ngx::fit {

inline Status invalid_input(const std::string& what)
{
    return Status::usage("invalid input: " + what, Reason::invalid_input);
}

inline Status too_few_points(const std::string& what)
{
    return Status::usage("too few points: " + what, Reason::too_few_points);
}

inline Status degenerate(const std::string& what)
{
    return Status::runtime("degenerate data: " + what, Reason::degenerate);
}

inline Status not_converged(const std::string& what)
{
    return Status::runtime("did not converge: " + what, Reason::not_converged);
}

} // namespace ngx::fit

#endif
