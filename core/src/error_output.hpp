// How the program reports a failed Status on stderr: "ngx: MESSAGE", or
// "ngx (SIDE): MESSAGE" for a process the user did not start itself.
//
//     print_error(status, "", false);                       // ngx: ...
//     print_error(status, "forked peer, rank 1", false);    // ngx (forked peer, rank 1): ...
#ifndef NGX_ERROR_OUTPUT_HPP
#define NGX_ERROR_OUTPUT_HPP

#include <ngx/status.hpp>

#include <string>

namespace ngx {

// `side` names the process when it is not the one the user started: "" for
// the driver or a lone server, "forked peer, rank 1", "rank 3" under MPI.
// Nothing is printed for a success or when `quiet`.
void print_error(const Status& status, const std::string& side, bool quiet);

} // namespace ngx

#endif
