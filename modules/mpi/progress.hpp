// Errors and bounded waiting shared by the `mpi` module's two-sided
// (mpi.cpp, mpi_*.cpp) and one-sided (window.hpp) code. Header-only.
//
//     return mpi_fail(err, code, "MPI_Put");          // NGX_ERR_SYSTEM with MPI's text
//     poll_until([&](int* done) { return MPI_Test(&r, done, MPI_STATUS_IGNORE); },
//                timeout_ns, cancel, "wait", err);    // NGX_ERR_TIMEOUT past the deadline
#ifndef NGX_MPI_PROGRESS_HPP
#define NGX_MPI_PROGRESS_HPP

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#define OMPI_SKIP_MPICXX 1 // the C API only: no C++ binding headers
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

namespace ngx::mpi {

inline ngx_status mpi_fail(ngx_error* err, int code, const char* step)
{
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    return ngx::mod::fail(err, NGX_ERR_SYSTEM, "%s: %.*s", step, length, text);
}

// Calls test(&done) (an MPI_Test-like call returning an MPI error code)
// until it reports done, the deadline passes (NGX_ERR_TIMEOUT) or the
// cancel flag is raised (NGX_ERR_INTERRUPTED).
template <class Test>
ngx_status poll_until(Test test, uint64_t timeout_ns, const volatile int* cancel, const char* step, ngx_error* err)
{
    ngx::mod::Deadline deadline(timeout_ns);
    for (;;) {
        int done = 0;
        int code = test(&done);
        if (code != MPI_SUCCESS)
            return mpi_fail(err, code, step);
        if (done)
            return NGX_OK;
        if (deadline.poll_expired())
            return ngx::mod::fail(err, NGX_ERR_TIMEOUT, "%s: no progress with the peer within %.1f s (is it alive?)",
                                  step, deadline.seconds());
        if (ngx::mod::cancelled(cancel))
            return ngx::mod::fail(err, NGX_ERR_INTERRUPTED, "%s: interrupted", step);
    }
}

} // namespace ngx::mpi

#endif
