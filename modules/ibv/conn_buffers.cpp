// The ibv connection's registered memory: alloc (mapped and registered),
// adopt (registered only), release, and the lookup of the region holding
// a buffer, with the length checks of the message path.
#include "conn.hpp"
#include "conn_detail.hpp"

#include <ngx/module_support.hpp>

#include <sys/mman.h>

#include <algorithm>

namespace ngx::ibv {

using ngx::mod::errno_text;
using ngx::mod::fail;

using detail::access_flags;
using detail::map_zeroed;
using detail::round_page;

// ---- buffers ---------------------------------------------------------------

ngx_status Conn::alloc(size_t len, void** buf, ngx_error* err)
{
    size_t n = std::max<size_t>(len, 1);
    uint8_t* p = map_zeroed(n);
    if (p == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "alloc: cannot map %zu bytes", n);
    ibv_mr* mr = ibv_reg_mr(pd_, p, n, access_flags);
    if (mr == nullptr) {
        int e = errno;
        munmap(p, round_page(n));
        return fail(err, NGX_ERR_SYSTEM, "alloc: ibv_reg_mr(%zu bytes): %s (ulimit -l?)", n, errno_text(e));
    }
    regions_.push_back({p, n, mr});
    *buf = p;
    return NGX_OK;
}

ngx_status Conn::adopt(void* buf, size_t len, ngx_error* err)
{
    size_t n = std::max<size_t>(len, 1);
    ibv_mr* mr = ibv_reg_mr(pd_, buf, n, access_flags);
    if (mr == nullptr)
        return fail(err, NGX_ERR_SYSTEM, "send to self: ibv_reg_mr(%zu bytes): %s (ulimit -l?)", n, errno_text(errno));
    regions_.push_back({static_cast<uint8_t*>(buf), n, mr, false});
    return NGX_OK;
}

void Conn::release(void* buf)
{
    for (size_t i = 0; i < regions_.size(); ++i)
        if (regions_[i].addr == buf) {
            ibv_dereg_mr(regions_[i].mr);
            if (regions_[i].owned)
                munmap(regions_[i].addr, round_page(regions_[i].len));
            regions_.erase(regions_.begin() + long(i));
            last_region_ = 0;
            return;
        }
}

const Conn::Region* Conn::find_region(const void* buf, size_t len)
{
    auto* p = static_cast<const uint8_t*>(buf);
    auto inside = [&](const Region& r) { return p >= r.addr && p + len <= r.addr + r.len; };
    if (last_region_ < regions_.size() && inside(regions_[last_region_]))
        return &regions_[last_region_];
    for (size_t i = 0; i < regions_.size(); ++i)
        if (inside(regions_[i])) {
            last_region_ = i;
            return &regions_[i];
        }
    return nullptr;
}

ngx_status Conn::need_region(const void* buf, size_t len, const char* op, const Region** out, ngx_error* err)
{
    *out = find_region(buf, len);
    if (*out != nullptr)
        return NGX_OK;
    return fail(err, NGX_ERR_UNSUPPORTED,
                "%s: buffer %p (%zu bytes) is not registered memory: the ibv module needs buffers from its alloc() "
                "(NGX_CAP_REGISTERED_MEMORY)",
                op, buf, len);
}

ngx_status Conn::check_len(size_t len, const char* op, ngx_error* err) const
{
    uint64_t limit = std::min<uint64_t>(peer_.slot_size, settings_.slot_size);
    if (!connected_)
        return fail(err, NGX_ERR_PROTOCOL, "%s before connect", op);
    if (len > limit || len > UINT32_MAX)
        return fail(err, NGX_ERR_UNSUPPORTED,
                    "%s: %zu bytes exceed the %llu-byte messages the module was initialised for (max_message_size)", op,
                    len, static_cast<unsigned long long>(limit));
    return NGX_OK;
}

} // namespace ngx::ibv
