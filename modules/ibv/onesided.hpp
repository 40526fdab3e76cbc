// One-sided communication of the ibv module (ABI 1.7, NGX_CAP_ONE_SIDED)
// over one connected Conn, as thin as perftest's ib_write_bw and ib_read_bw
// loops: each call posts one work request and returns.
//
//   expose  registers the buffer (alloc() did already; other memory is
//           registered here) and swaps address, rkey and length with the
//           peer through the bootstrap: each side then knows the peer's
//           window.
//   put     one RDMA WRITE from local memory to the peer's window + offset.
//   get     one RDMA READ from the peer's window + offset into local memory.
//           A QP has at most max_rd_atomic reads outstanding (Conn::max_reads,
//           what to_rts gave it): before read k is posted, read k - max_reads
//           must have completed. Every (max_reads / 2)-th read is signalled,
//           so that any max_reads reads in a row hold a signalled one that
//           covers the oldest, and a window of more gets polls for it.
//   flush   returns at once when no put or get was started since the last
//           flush (the side of an epoch that started nothing); else waits
//           until every WR posted so far completed. RC completes a
//           send queue in order: the completion of the last WR covers all
//           before it. When that WR was unsignalled, a signalled 0-byte RDMA
//           WRITE follows it, whose completion is the one waited for.
//
// put and get are signalled as the message path's sends are (every
// --ibv-signal-th WR; room kept in the send queue) and never wait for their
// own completion: their local buffers are the caller's again after flush, as
// the ABI says. Every wait has the module's deadline (Conn::wait_done).
#ifndef NGX_IBV_ONESIDED_HPP
#define NGX_IBV_ONESIDED_HPP

#include "conn.hpp"

#include <ngx/module.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ngx::ibv {

class OneSided {
public:
    explicit OneSided(Conn& conn) : conn_(conn) {}
    const Conn& conn() const { return conn_; }

    ngx_status expose(const ngx_bootstrap* boot, void* buf, size_t len, ngx_error* err);
    ngx_status put(const void* local, size_t offset, size_t len, ngx_error* err);
    ngx_status get(void* local, size_t offset, size_t len, ngx_error* err);
    ngx_status flush(ngx_error* err);

private:
    // The peer's window: where put and get land, as expose() learnt it.
    struct Window {
        uint64_t addr = 0;
        uint32_t rkey = 0;
        uint64_t len = 0;
    };

    ngx_status check(const char* op, const void* local, size_t offset, size_t len, uint32_t* lkey,
                     ngx_error* err) const;
    ngx_status room_for_read(ngx_error* err);

    Conn& conn_;
    bool exposed_ = false;
    Window peer_;
    std::vector<uint64_t> read_seqs_; // send-queue sequence of each of the last max_reads reads (a ring)
    uint64_t reads_ = 0;              // reads posted
    bool started_ = false;            // a put or get since the last flush
};

} // namespace ngx::ibv

#endif
