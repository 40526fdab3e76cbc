// The state the parts of the tcp module share: its options, the loopback
// connection of send to self and the per-module Context that tcp.cpp
// creates in init. Overview in tcp.cpp.
#ifndef NGX_TCP_CONTEXT_HPP
#define NGX_TCP_CONTEXT_HPP

#include <ngx/module_support.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ngx::tcp::detail {

using ngx::mod::errno_text;
using ngx::mod::fail;

struct Options {
    std::string address; // empty: use the bootstrap's local address
    uint16_t port = 0;
    bool port_per_rank = false; // listen on port + the listening rank
    int sndbuf = 0;             // 0: kernel default
    int rcvbuf = 0;
    bool poll = false; // --tcp-progress poll: spin on recv(MSG_DONTWAIT)
};

// The loopback connection of send to self: `out` was connected to a
// listener of this process, whose accept() gave `in`.
struct SelfLink {
    int out = -1;
    int in = -1;
    const char* pending = nullptr; // what send() left for recv() to push
    size_t pending_len = 0;
};

struct Context {
    Options options;
    uint64_t timeout_ns = 0;
    const volatile int* cancel = nullptr;
    int fd = -1;          // the selected peer's connection
    bool to_self = false; // set_layout's to_self: send/recv go through `self`
    SelfLink self;
    std::vector<std::pair<int, int>> links; // ABI 1.5: (peer rank, connection), one per peer
};

} // namespace ngx::tcp::detail

#endif
