// One-sided MPI (ABI 1.7, NGX_CAP_ONE_SIDED) for the `mpi` module: the
// exposed buffer is this rank's part of an MPI window over every rank
// (MPI_Win_create), put() and get() are MPI_Put and MPI_Get of MPI_BYTE at
// the byte displacement `offset` of the peer's part, and the
// synchronization is the user's choice (--mpi-rma-sync). What a window of
// W operations and its flush holds:
//
//   flush  passive target: MPI_Win_lock_all (MPI_MODE_NOCHECK) once, at
//          expose; a window is W MPI_Put/MPI_Get and MPI_Win_flush(peer),
//          their transfer and remote completion (osu_put_bw -s flush).
//   lock   passive target, an epoch per window: MPI_Win_lock at the first
//          operation (MPI_LOCK_EXCLUSIVE when it is a put, which writes the
//          peer's memory; MPI_LOCK_SHARED for a get, which only reads),
//          W operations, MPI_Win_unlock in flush (osu_put_bw -s lock).
//   fence  active target: MPI_Win_fence (MPI_MODE_NOPRECEDE) at expose;
//          a window is W operations and MPI_Win_fence, which both sides
//          call (the target in its flush); it closes this epoch, opens the
//          next, and waits for the target (osu_put_bw -s fence).
//   pscw   active target, generalized: the target's MPI_Win_post is open
//          from expose; a window is MPI_Win_start at the first operation,
//          W operations and MPI_Win_complete; the target's flush (it
//          started nothing) is MPI_Win_wait and the MPI_Win_post of the next
//          epoch (osu_put_bw -s pscw). In each epoch one side starts and the
//          other is its target.
//
// fence and pscw need the target's calls: the pattern calls flush() on both
// sides at the same step (module.h, ABI 1.7). A put that a flush completed
// is in the target's memory, which the unified memory model (the window's
// MPI_WIN_MODEL must be MPI_WIN_UNIFIED, checked at expose) makes visible
// to the target's loads once a later message reaches it.
//
// Deadlines: expose first meets the peer through the bootstrap (its own
// deadline), then creates the window (MPI_Win_create over every rank, so
// all of them expose at the same step); with --mpi-progress poll the target's
// MPI_Win_wait is an MPI_Win_test loop bounded by --timeout. MPI has no
// test form of MPI_Win_fence, MPI_Win_flush, MPI_Win_unlock, MPI_Win_start
// or MPI_Win_complete: a peer that stops there is caught, as for every
// blocking MPI call, by the core's watchdog (--timeout without progress).
#ifndef NGX_MPI_WINDOW_HPP
#define NGX_MPI_WINDOW_HPP

#include "progress.hpp"

#include <climits>
#include <cstdlib>
#include <string>

namespace ngx::mpi {

enum class RmaSync { flush, lock, fence, pscw };

struct RmaSettings {
    RmaSync sync = RmaSync::flush;
    bool poll = false; // --mpi-progress poll
    uint64_t timeout_ns = 0;
    const volatile int* cancel = nullptr;
};

class Window {
public:
    Window() = default;
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    // Whether `buf` is the exposed buffer.
    bool holds(const void* buf) const { return win_ != MPI_WIN_NULL && buf == buffer_; }

    // Every rank of `comm`, at the same step: `buf` becomes this rank's
    // part of the window that `peer` (a rank of `comm`) addresses.
    ngx_status expose(const ngx_bootstrap* boot, MPI_Comm comm, int peer, void* buf, size_t len,
                      const RmaSettings& settings, ngx_error* err)
    {
        if (win_ != MPI_WIN_NULL)
            return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "expose: a window is exposed already (one per run)");
        if (settings.sync == RmaSync::fence && boot->nranks > 2)
            return ngx::mod::fail(err, NGX_ERR_INVALID_OPTION,
                                  "--mpi-rma-sync fence: MPI_Win_fence synchronizes every rank of the window, which "
                                  "spans the run's %d ranks; with several pairs use flush, lock or pscw",
                                  boot->nranks);
        settings_ = settings;
        std::string theirs; // the peer's length; the exchange also proves it is in expose
        if (ngx_status s = ngx::mod::exchange_blob(boot, std::to_string(len), &theirs, 32, err); s != NGX_OK)
            return s;
        peer_len_ = size_t(std::strtoull(theirs.c_str(), nullptr, 10));
        if (ngx_status s = peer_group(comm, peer, err); s != NGX_OK)
            return s;
        int code = MPI_Win_create(buf, MPI_Aint(len), 1, MPI_INFO_NULL, comm, &win_);
        if (code != MPI_SUCCESS)
            return mpi_fail(err, code, "expose: MPI_Win_create");
        MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN);
        buffer_ = buf;
        if (ngx_status s = check_unified(err); s != NGX_OK)
            return s;
        return open_first_epoch(err);
    }

    ngx_status put(const void* local, size_t offset, size_t len, ngx_error* err)
    {
        if (ngx_status s = begin(offset, len, MPI_LOCK_EXCLUSIVE, "put", err); s != NGX_OK) [[unlikely]]
            return s;
        int n = int(len);
        int code = MPI_Put(local, n, MPI_BYTE, target_, MPI_Aint(offset), n, MPI_BYTE, win_);
        return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "MPI_Put");
    }

    ngx_status get(void* local, size_t offset, size_t len, ngx_error* err)
    {
        if (ngx_status s = begin(offset, len, MPI_LOCK_SHARED, "get", err); s != NGX_OK) [[unlikely]]
            return s;
        int n = int(len);
        int code = MPI_Get(local, n, MPI_BYTE, target_, MPI_Aint(offset), n, MPI_BYTE, win_);
        return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "MPI_Get");
    }

    // The end of this side's part of the epoch (see the table above).
    ngx_status flush(ngx_error* err)
    {
        if (win_ == MPI_WIN_NULL)
            return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "flush: no window exposed (both peers call expose first)");
        bool origin = started_;
        started_ = false;
        switch (settings_.sync) {
        case RmaSync::flush:
            return origin ? call(MPI_Win_flush(target_, win_), "MPI_Win_flush", err) : NGX_OK;
        case RmaSync::lock:
            return origin ? end_access(MPI_Win_unlock(target_, win_), "MPI_Win_unlock", err) : NGX_OK;
        case RmaSync::fence:
            return call(MPI_Win_fence(0, win_), "MPI_Win_fence", err);
        case RmaSync::pscw:
            return origin ? end_access(MPI_Win_complete(win_), "MPI_Win_complete", err) : end_exposure(true, err);
        }
        return NGX_OK;
    }

    // Ends the open epochs and frees the window (collective: both peers,
    // at the same step). Errors are the caller's to report or drop.
    ngx_status close(ngx_error* err)
    {
        if (win_ == MPI_WIN_NULL)
            return NGX_OK;
        ngx_status s = close_epochs(err);
        MPI_Win_free(&win_);
        MPI_Group_free(&peer_group_);
        buffer_ = nullptr;
        return s;
    }

private:
    // The peer's rank and group, for a window over every rank of `comm`.
    // Every rank of the run calls expose at the same step (MPI_Win_create
    // is collective; the bw pattern exposes all pairs at once). A window
    // per pair (a communicator of the two) would spare the others, but
    // Open MPI's osc/rdma names its shared-memory segment by the
    // communicator's context id, which disjoint pairs on one node share:
    // two pairs' windows would collide.
    ngx_status peer_group(MPI_Comm comm, int peer, ngx_error* err)
    {
        MPI_Group all = MPI_GROUP_NULL;
        target_ = peer;
        int code = MPI_Comm_group(comm, &all);
        if (code == MPI_SUCCESS)
            code = MPI_Group_incl(all, 1, &target_, &peer_group_);
        if (all != MPI_GROUP_NULL)
            MPI_Group_free(&all);
        return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "expose: the peer's group");
    }

    ngx_status check_unified(ngx_error* err) const
    {
        int* model = nullptr;
        int found = 0;
        MPI_Win_get_attr(win_, MPI_WIN_MODEL, &model, &found);
        if (found && model != nullptr && *model == MPI_WIN_UNIFIED)
            return NGX_OK;
        return ngx::mod::fail(err, NGX_ERR_UNSUPPORTED,
                              "expose: this MPI's window has the separate memory model (MPI_WIN_SEPARATE): the "
                              "target would not see a put in its memory after a message; ngx needs MPI_WIN_UNIFIED");
    }

    ngx_status open_first_epoch(ngx_error* err)
    {
        switch (settings_.sync) {
        case RmaSync::flush:
            return call(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all", err);
        case RmaSync::lock:
            return NGX_OK;
        case RmaSync::fence:
            return call(MPI_Win_fence(MPI_MODE_NOPRECEDE, win_), "MPI_Win_fence", err);
        case RmaSync::pscw:
            return post(err);
        }
        return NGX_OK;
    }

    // Before an operation: the bounds, and the access epoch of lock and
    // pscw opened by the window's first operation.
    ngx_status begin(size_t offset, size_t len, int lock_type, const char* op, ngx_error* err)
    {
        if (ngx_status s = ngx::mod::check_window_range(op, offset, len, win_ == MPI_WIN_NULL ? 0 : peer_len_, err);
            s != NGX_OK)
            return s;
        if (len > size_t(INT_MAX))
            return ngx::mod::fail(err, NGX_ERR_INVALID_OPTION, "%s of %zu bytes: beyond MPI's int count", op, len);
        started_ = true;
        if (access_)
            return NGX_OK;
        access_ = true;
        if (settings_.sync == RmaSync::lock)
            return call(MPI_Win_lock(lock_type, target_, 0, win_), "MPI_Win_lock", err);
        if (settings_.sync == RmaSync::pscw)
            return call(MPI_Win_start(peer_group_, 0, win_), "MPI_Win_start", err);
        return NGX_OK;
    }

    ngx_status post(ngx_error* err)
    {
        posted_ = true;
        return call(MPI_Win_post(peer_group_, 0, win_), "MPI_Win_post", err);
    }

    // pscw target: waits for the origin's MPI_Win_complete (an MPI_Win_test
    // loop with --mpi-progress poll), then posts the next epoch if `again`.
    ngx_status end_exposure(bool again, ngx_error* err)
    {
        posted_ = false;
        ngx_status s = settings_.poll ? poll_until([&](int* done) { return MPI_Win_test(win_, done); },
                                                   settings_.timeout_ns, settings_.cancel, "MPI_Win_test", err)
                                      : call(MPI_Win_wait(win_), "MPI_Win_wait", err);
        return s == NGX_OK && again ? post(err) : s;
    }

    ngx_status end_access(int code, const char* step, ngx_error* err)
    {
        access_ = false;
        return call(code, step, err);
    }

    // Before MPI_Win_free. pscw: each side's post is still open, so each
    // starts and completes an empty epoch on the other's, then waits on its own.
    ngx_status close_epochs(ngx_error* err)
    {
        switch (settings_.sync) {
        case RmaSync::flush:
            return call(MPI_Win_unlock_all(win_), "MPI_Win_unlock_all", err);
        case RmaSync::lock:
            return access_ ? end_access(MPI_Win_unlock(target_, win_), "MPI_Win_unlock", err) : NGX_OK;
        case RmaSync::fence:
            return NGX_OK;
        case RmaSync::pscw:
            if (!access_)
                if (ngx_status s = call(MPI_Win_start(peer_group_, 0, win_), "MPI_Win_start", err); s != NGX_OK)
                    return s;
            if (ngx_status s = end_access(MPI_Win_complete(win_), "MPI_Win_complete", err); s != NGX_OK)
                return s;
            return posted_ ? end_exposure(false, err) : NGX_OK;
        }
        return NGX_OK;
    }

    static ngx_status call(int code, const char* step, ngx_error* err)
    {
        return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, step);
    }

    RmaSettings settings_;
    MPI_Group peer_group_ = MPI_GROUP_NULL;
    MPI_Win win_ = MPI_WIN_NULL;
    void* buffer_ = nullptr;
    int target_ = -1; // the peer's rank
    size_t peer_len_ = 0;
    bool started_ = false; // an operation since the last flush
    bool access_ = false;  // lock, pscw: this side's access epoch is open
    bool posted_ = false;  // pscw: this side's exposure epoch is open
};

} // namespace ngx::mpi

#endif
