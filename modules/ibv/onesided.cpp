// The ibv module's one-sided put, get and flush (see onesided.hpp), and the
// Conn primitives they post and wait with.
#include "onesided.hpp"

#include <cstring>
#include <string>
#include <string_view>

namespace ngx::ibv {

using ngx::mod::fail;

// ---- Conn's one-sided primitives ---------------------------------------------

ngx_status Conn::keys_of(void* buf, size_t len, bool register_missing, const char* op, uint32_t* lkey, uint32_t* rkey,
                         ngx_error* err)
{
    const Region* r = find_region(buf, len);
    if (r == nullptr && register_missing) {
        if (ngx_status st = adopt(buf, len, err); st != NGX_OK)
            return st;
        r = &regions_.back();
    }
    if (r == nullptr)
        return need_region(buf, len, op, &r, err);
    *lkey = r->mr->lkey;
    *rkey = r->mr->rkey;
    return NGX_OK;
}

ngx_status Conn::post_rdma(ibv_wr_opcode op, void* local, size_t len, uint32_t lkey, uint64_t remote_addr,
                           uint32_t rkey, bool must_signal, ngx_error* err)
{
    return post_send(op, local, len, lkey, must_signal, remote_addr, rkey, 0, err);
}

ngx_status Conn::wait_done(uint64_t seq, const char* what, ngx_error* err)
{
    return wait_for([&] { return sq_done_ >= seq; }, what, err);
}

// ---- OneSided ----------------------------------------------------------------

namespace {

constexpr size_t window_blob = 20; // address (8), rkey (4), length (8), host order: both ends run this module

} // namespace

ngx_status OneSided::expose(const ngx_bootstrap* boot, void* buf, size_t len, ngx_error* err)
{
    if (!conn_.connected())
        return fail(err, NGX_ERR_PROTOCOL, "expose before connect");
    uint32_t lkey = 0;
    Window mine{reinterpret_cast<uintptr_t>(buf), 0, len};
    if (ngx_status st = conn_.keys_of(buf, len, true, "expose", &lkey, &mine.rkey, err); st != NGX_OK)
        return st;
    char blob[window_blob];
    std::memcpy(blob, &mine.addr, 8);
    std::memcpy(blob + 8, &mine.rkey, 4);
    std::memcpy(blob + 12, &mine.len, 8);
    std::string theirs;
    if (ngx_status st = ngx::mod::exchange_blob(boot, std::string_view(blob, window_blob), &theirs, 64, err);
        st != NGX_OK)
        return st;
    if (theirs.size() != window_blob)
        return fail(err, NGX_ERR_PROTOCOL, "expose: the peer's window is %zu bytes of description, not %zu",
                    theirs.size(), window_blob);
    std::memcpy(&peer_.addr, theirs.data(), 8);
    std::memcpy(&peer_.rkey, theirs.data() + 8, 4);
    std::memcpy(&peer_.len, theirs.data() + 12, 8);
    read_seqs_.assign(conn_.max_reads(), 0);
    exposed_ = true;
    return NGX_OK;
}

// The window exists, [offset, offset + len) lies in it, one WR carries len
// bytes, and local memory is registered (*lkey).
ngx_status OneSided::check(const char* op, const void* local, size_t offset, size_t len, uint32_t* lkey,
                           ngx_error* err) const
{
    if (!exposed_)
        return fail(err, NGX_ERR_PROTOCOL, "%s: no window exposed (both peers call expose first)", op);
    if (offset > peer_.len || len > peer_.len - offset)
        return fail(err, NGX_ERR_INVALID_OPTION,
                    "%s of %zu bytes at offset %zu: beyond the peer's window of %llu bytes", op, len, offset,
                    static_cast<unsigned long long>(peer_.len));
    if (len > conn_.max_message())
        return fail(err, NGX_ERR_UNSUPPORTED, "%s of %zu bytes: the port carries at most %u bytes in one work request",
                    op, len, conn_.max_message());
    uint32_t rkey = 0;
    return conn_.keys_of(const_cast<void*>(local), len, false, op, lkey, &rkey, err);
}

ngx_status OneSided::put(const void* local, size_t offset, size_t len, ngx_error* err)
{
    uint32_t lkey = 0;
    if (ngx_status st = check("put", local, offset, len, &lkey, err); st != NGX_OK)
        return st;
    started_ = true;
    return conn_.post_rdma(IBV_WR_RDMA_WRITE, const_cast<void*>(local), len, lkey, peer_.addr + offset, peer_.rkey,
                           false, err);
}

// Before a read beyond max_reads outstanding: the read max_reads back must
// have completed (a signalled read at or after it covers it).
ngx_status OneSided::room_for_read(ngx_error* err)
{
    if (reads_ < read_seqs_.size())
        return NGX_OK;
    return conn_.wait_done(read_seqs_[reads_ % read_seqs_.size()], "RDMA read completion (max_rd_atomic reached)", err);
}

ngx_status OneSided::get(void* local, size_t offset, size_t len, ngx_error* err)
{
    uint32_t lkey = 0;
    if (ngx_status st = check("get", local, offset, len, &lkey, err); st != NGX_OK)
        return st;
    if (ngx_status st = room_for_read(err); st != NGX_OK)
        return st;
    started_ = true;
    uint64_t span = std::max<uint64_t>(1, read_seqs_.size() / 2);
    bool signal = reads_ % span == span - 1;
    if (ngx_status st =
            conn_.post_rdma(IBV_WR_RDMA_READ, local, len, lkey, peer_.addr + offset, peer_.rkey, signal, err);
        st != NGX_OK)
        return st;
    read_seqs_[reads_++ % read_seqs_.size()] = conn_.posted();
    return NGX_OK;
}

ngx_status OneSided::flush(ngx_error* err)
{
    if (!started_)
        return NGX_OK; // no put or get since the last flush
    started_ = false;
    if (!conn_.last_posted_signalled())
        if (ngx_status st = conn_.post_rdma(IBV_WR_RDMA_WRITE, nullptr, 0, 0, peer_.addr, peer_.rkey, true, err);
            st != NGX_OK)
            return st;
    return conn_.wait_done(conn_.posted(), "completion of puts and gets (flush)", err);
}

} // namespace ngx::ibv
