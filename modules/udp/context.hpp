// The state the parts of the udp module share: limits, options, the
// per-connection Context, the lazily read deadline, and the entry points of
// socket.cpp (setup) and datapath.cpp (send and receive) that udp.cpp puts
// in the module's operations table. Overview in udp.cpp.
#ifndef NGX_UDP_CONTEXT_HPP
#define NGX_UDP_CONTEXT_HPP

#include "fragment.hpp"

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ngx::udp {

using ngx::mod::errno_text;
using ngx::mod::fail;

constexpr size_t send_batch = 64; // datagrams per sendmmsg()
// Messages up to this size go through a copy in `bounce` and plain send()/recv():
// measured on loopback, sendmsg()/recvmsg() with a header iovec cost 0.2 us
// more per call than the copy of a small payload.
constexpr size_t bounce_limit = 1024;
constexpr size_t max_payload_v4 = 65507; // 65535 - 20 (IPv4) - 8 (UDP)
constexpr size_t max_payload_v6 = 65527; // 65535 - 8 (UDP); the IPv6 header is outside
constexpr size_t ip_overhead_v4 = 20 + 8;
constexpr size_t ip_overhead_v6 = 40 + 8;
constexpr size_t min_buffer_auto = size_t{16} << 20; // a limit, not an allocation: bursts of messages fit
constexpr size_t datagram_overhead = 1024;           // sk_buff, headers and allocation slack per queued datagram
constexpr size_t max_buffer_auto = size_t{256} << 20;
constexpr size_t presized_message = size_t{64} << 20; // larger messages size the fragment bitmap on first use
constexpr uint64_t ms = 1000000;
// Before the first datagram of a message arrives, the peer may first have had
// to receive one as large (ping-pong): the wait allows for that at no less
// than 100 Mbit/s and 50 us per datagram, on top of the loss timeout.
constexpr uint64_t allowance_ns_per_byte = 80;
constexpr uint64_t allowance_ns_per_datagram = 50000;
constexpr const char* blob_tag = "ngx-udp/1";

struct Options {
    std::string address;    // empty: the bootstrap's local address
    uint16_t port = 0;      // 0: ephemeral
    size_t mtu_payload = 0; // UDP payload per datagram incl. our header; 0: auto
    uint64_t loss_timeout_ns = 100 * ms;
    bool busy_poll = false;
    size_t buffer = 0; // SO_RCVBUF/SO_SNDBUF; 0: auto
};

// The headers and vectors of one sendmmsg() batch, built once.
struct SendBatch {
    std::array<std::array<unsigned char, header_size>, send_batch> headers{};
    std::array<std::array<iovec, 2>, send_batch> iov{};
    std::array<mmsghdr, send_batch> msgs{};
};

struct Context {
    Options options;
    uint64_t timeout_ns = 0; // the core's bound on every blocking step; 0: none
    const volatile int* cancel = nullptr;
    size_t max_message = 0;
    int fd = -1;
    Layout layout;
    Reassembly reassembly{layout};
    std::vector<unsigned char> scratch; // overflow of a fragment guessed into the short last slot
    alignas(64) std::array<unsigned char, header_size + bounce_limit> bounce{}; // small messages, header first
    SendBatch batch;
    uint32_t send_seq = 0;
    uint64_t recv_budget_ns = 0; // min(loss timeout, core timeout)
    uint64_t slice_ns = 0;       // SO_RCVTIMEO / SO_SNDTIMEO
    uint64_t stale = 0;          // datagrams dropped as stale, for messages
    uint64_t duplicates = 0;
    // Send to self (set_layout's to_self): a second socket of this process,
    // connected to itself (connect_to_self), used while `to_self` is set.
    bool to_self = false;
    std::unique_ptr<Context> self;
    // Per-peer links (ABI 1.5 open_link / select_peer): the rank this socket
    // is connected to (-1: none, a connect that only set up), and one
    // Context of its own for each further peer. `selected` is the link
    // select_peer chose (nullptr: this one).
    int peer = -1;
    std::vector<std::unique_ptr<Context>> links;
    Context* selected = nullptr;
    // Where send and recv go instead of this Context (nullptr: here): the
    // socket to self while `to_self` is set, else `selected`. One pointer,
    // so the data path pays one test for both.
    Context* route = nullptr;
};

// ---- deadlines -------------------------------------------------------------

// A deadline that costs nothing until the first idle wait: the clock is read
// only once the socket reported that it had nothing for `waited_ns`, and the
// wait is counted from when that idle period began. A budget of 0 never ends.
class LazyDeadline {
public:
    explicit LazyDeadline(uint64_t budget_ns) : budget_ns_(budget_ns) {}

    // Starts counting now rather than at the first idle wait.
    void start_now() { end_ns_ = ngx::mod::monotonic_ns() + budget_ns_; }
    // Progress was made: count `budget_ns` again from the next idle wait.
    void restart(uint64_t budget_ns)
    {
        budget_ns_ = budget_ns;
        end_ns_ = 0;
    }

    bool expired(uint64_t waited_ns)
    {
        if (budget_ns_ == 0)
            return false;
        uint64_t now = ngx::mod::monotonic_ns();
        if (end_ns_ == 0)
            end_ns_ = now - std::min(waited_ns, now) + budget_ns_;
        return now >= end_ns_;
    }

private:
    uint64_t budget_ns_;
    uint64_t end_ns_ = 0;
};

// Binds, swaps addresses and the datagram size with the peer through the
// bootstrap, connects and sizes the socket (socket.cpp).
ngx_status connect_steps(Context* c, const ngx_bootstrap* boot, ngx_error* err);

// Binds `self` (options, deadlines and limits copied from `main` by the
// caller) to the address of main's socket, connects it to itself and sizes
// it like main: the same datagram payload and buffers (socket.cpp).
ngx_status connect_to_self(Context* self, const Context& main, ngx_error* err);

// The data path (datapath.cpp): one message per call, see the loss semantics there.
ngx_status udp_send(void* ctx, const void* buf, size_t len, ngx_error* err);
ngx_status udp_recv(void* ctx, void* buf, size_t len, ngx_error* err);

} // namespace ngx::udp

#endif
