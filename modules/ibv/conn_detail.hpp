// Helpers the parts of the ibv connection (conn.cpp, conn_connect.cpp,
// conn_buffers.cpp) share: page-rounded anonymous mappings for registered
// memory, the access every registration and the QP grant, and an MTU enum's
// bytes. Internal to the module.
#ifndef NGX_IBV_CONN_DETAIL_HPP
#define NGX_IBV_CONN_DETAIL_HPP

#include <infiniband/verbs.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace ngx::ibv::detail {

constexpr size_t page_size = 4096;
constexpr int access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

inline size_t round_page(size_t n)
{
    return (n + page_size - 1) / page_size * page_size;
}

inline uint8_t* map_zeroed(size_t len)
{
    void* p = mmap(nullptr, round_page(len), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
}

inline unsigned mtu_bytes(ibv_mtu mtu)
{
    return 128u << unsigned(mtu);
}

} // namespace ngx::ibv::detail

#endif
