// udp module, data path: send and receive (see udp.cpp for the overview).
//
// Wire format and reassembly: see fragment.hpp. A message that fits one
// datagram costs one send and one receive system call: up to 1 KiB a plain
// send()/recv() of header + payload through a small copy (cheaper than an
// iovec, see bounce_limit), above that sendmsg()/recvmsg() straight from and
// into the caller's buffer. A larger message goes as numbered fragments
// (sendmmsg() in batches of 64) reassembled in place in the caller's buffer.
// Nothing is allocated per message.
//
// Loss semantics (what a pattern can rely on):
// - Each direction numbers its messages; send() always uses the next number,
//   retries included. recv() accepts the oldest message it has not yet
//   completed or given up on, or any newer one (the sender moved on), and
//   drops stale datagrams (older messages, late fragments of a message it gave
//   up on) and duplicates. It never returns an older message than the last.
// - recv() declares the message lost and returns NGX_ERR_LOST ("message seq
//   N, size S lost: k/m fragments arrived ...", or "the peer already sent
//   message seq M": the peer is alive) or, when nothing at all arrived,
//   NGX_ERR_TIMEOUT (0/m fragments: lost, or the peer is silent) when nothing new of it
//   arrived for T = min(udp-loss-timeout-us, the core's timeout): T after the
//   last new fragment, so a large message on a slow link is not lost merely
//   for taking long; for the first datagram T plus an allowance for the peer
//   to have received a message as large first (ping-pong): len at 100 Mbit/s
//   or 50 us per datagram, whichever is longer (about 0.05 ms for 1 byte, 84
//   ms for 1 MiB). The core's timeout bounds the whole call. The peer must
//   therefore start sending within that time of the recv() call; slow phases
//   belong behind a bootstrap barrier. send() never waits for the peer. A newer message of
//   another length than the receive's also ends it as lost, at once.
// - NGX_ERR_PROTOCOL means a real disagreement (the awaited message itself
//   has another length, or a malformed datagram), not a loss.
// - Resynchronising a ping-pong after a loss (ABI 1.1: the resync op): the side whose recv() timed out
//   stops using the link and goes to a bootstrap resync point; so does the
//   other side, whose next recv() times out because nobody sends. Lost ping:
//   both time out. Lost pong: the responder answered and waits for the next
//   ping, which never comes. At the resync point (bootstrap exchange) the
//   driver's count of completed round trips is the truth; both call
//   resync(), which swaps each side's next send sequence number through the
//   bootstrap: every datagram still in flight is older than that and counts
//   as stale, even one delayed beyond the loss timeout. Do not resend on the
//   link without that resync: after a lost pong the responder would take the
//   resent ping as the next one and the two sides would drift one round trip
//   apart.
//
// Waiting: by default a blocking receive whose SO_RCVTIMEO is a slice of the
// deadline (so cancel and the deadline are checked while idle, at no cost on
// the fast path); with `udp-busy-poll` a spin on MSG_DONTWAIT receives.
// Errors: EINTR retries unless the cancel flag is raised; ECONNREFUSED (ICMP
// port unreachable on a connected socket) means the peer is gone.
#include "context.hpp"

#include <cerrno>
#include <cstring>
#include <new>

namespace ngx::udp {
namespace {

// ---- failures --------------------------------------------------------------

bool idle_errno(int e)
{
    return e == EAGAIN || e == EWOULDBLOCK || e == EINTR;
}

// After a failed socket call: NGX_OK to try again (nothing arrived yet, or a
// signal), anything else to give up with a message.
ngx_status after_failure(const Context& c, int e, const char* op, ngx_error* err)
{
    if (idle_errno(e))
        return ngx::mod::cancelled(c.cancel) ? fail(err, NGX_ERR_INTERRUPTED, "udp %s: interrupted", op) : NGX_OK;
    if (e == ECONNREFUSED)
        return fail(err, NGX_ERR_PEER_LOST, "udp %s: the peer's port is closed: it exited or died", op);
    if (e == EMSGSIZE)
        return fail(err, NGX_ERR_INVALID_OPTION,
                    "udp %s: a %zu-byte datagram is too large for the path; lower "
                    "--udp-mtu-payload",
                    op, c.layout.chunk() + header_size);
    return fail(err, NGX_ERR_SYSTEM, "udp %s: %s", op, errno_text(e));
}

ngx_status check_length(size_t len, const char* op, ngx_error* err)
{
    if (len > ngx::udp::max_message)
        return fail(err, NGX_ERR_INVALID_OPTION, "udp %s: %zu bytes exceed the module's limit of %llu", op, len,
                    (unsigned long long)ngx::udp::max_message);
    return NGX_OK;
}

// ---- send ------------------------------------------------------------------

// One datagram: header + the whole message.
ngx_status send_single(Context* c, uint32_t seq, const void* buf, size_t len, ngx_error* err)
{
    bool small = len <= bounce_limit;
    unsigned char* header = small ? c->bounce.data() : c->batch.headers[0].data();
    ngx::udp::encode(Header{seq, 0, 1, uint32_t(len)}, header);
    if (small && len > 0)
        std::memcpy(header + header_size, buf, len);
    iovec iov[2] = {{header, header_size}, {const_cast<void*>(buf), len}};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = len == 0 ? 1 : 2;
    LazyDeadline deadline(c->timeout_ns);
    while ((small ? send(c->fd, header, header_size + len, 0) : sendmsg(c->fd, &msg, 0)) < 0) {
        int e = errno;
        if (ngx_status s = after_failure(*c, e, "send", err); s != NGX_OK)
            return s;
        if (e != EINTR && deadline.expired(c->slice_ns))
            return fail(err, NGX_ERR_TIMEOUT, "udp send: the socket stayed full for %.1f s (message seq %u, %zu bytes)",
                        double(c->timeout_ns) / 1e9, seq, len);
    }
    return NGX_OK;
}

// Fills batch entries [0, n) with fragments first .. first + n - 1.
void fill_batch(Context* c, uint32_t seq, const unsigned char* data, size_t len, size_t first, size_t n)
{
    auto count = uint32_t(c->layout.count(len));
    for (size_t k = 0; k < n; ++k) {
        size_t index = first + k;
        ngx::udp::encode(Header{seq, uint32_t(index), count, uint32_t(len)}, c->batch.headers[k].data());
        c->batch.iov[k][0] = {c->batch.headers[k].data(), header_size};
        c->batch.iov[k][1] = {const_cast<unsigned char*>(data) + c->layout.offset(index), c->layout.length(len, index)};
        c->batch.msgs[k] = mmsghdr{};
        c->batch.msgs[k].msg_hdr.msg_iov = c->batch.iov[k].data();
        c->batch.msgs[k].msg_hdr.msg_iovlen = 2;
    }
}

// Several datagrams, sendmmsg() in batches of send_batch.
ngx_status send_fragments(Context* c, uint32_t seq, const void* buf, size_t len, ngx_error* err)
{
    const auto* data = static_cast<const unsigned char*>(buf);
    size_t count = c->layout.count(len);
    LazyDeadline deadline(c->timeout_ns);
    for (size_t next = 0; next < count;) {
        size_t n = std::min(send_batch, count - next);
        fill_batch(c, seq, data, len, next, n);
        for (size_t sent = 0; sent < n;) {
            int rc = sendmmsg(c->fd, c->batch.msgs.data() + sent, unsigned(n - sent), 0);
            if (rc > 0) {
                sent += size_t(rc);
                continue;
            }
            int e = errno;
            if (ngx_status s = after_failure(*c, e, "send", err); s != NGX_OK)
                return s;
            if (e != EINTR && deadline.expired(c->slice_ns))
                return fail(err, NGX_ERR_TIMEOUT,
                            "udp send: the socket stayed full for %.1f s (message seq %u, "
                            "fragment %zu of %zu)",
                            double(c->timeout_ns) / 1e9, seq, next + sent, count);
        }
        next += n;
    }
    return NGX_OK;
}

// ---- recv ------------------------------------------------------------------

// One received datagram: its header, its payload size, and whether the
// payload waits in `bounce` (small messages) instead of the guessed slot.
struct Datagram {
    Header header;
    size_t payload = 0; // layout.chunk() + 1 when larger than any fragment may be
    bool bounced = false;
};

// A small message: one plain recv() into the bounce buffer. MSG_TRUNC makes
// recv() return the datagram's real length even when it did not fit.
ssize_t receive_small(Context* c, size_t len, int flags, Datagram* d)
{
    ssize_t n = recv(c->fd, c->bounce.data(), header_size + len, flags | MSG_TRUNC);
    if (n >= ssize_t(header_size)) {
        d->header = ngx::udp::decode(c->bounce.data());
        d->payload = std::min(size_t(n) - header_size, c->layout.chunk() + 1);
        d->bounced = true;
    }
    return n;
}

// Any other: recvmsg() with the header apart and the payload straight into
// slot `slot` of the message (plus the scratch area when the slot is the
// short last one of a fragmented message).
ssize_t receive_in_place(Context* c, unsigned char* buf, size_t len, size_t slot, int flags, Datagram* d)
{
    unsigned char header[header_size];
    size_t slot_len = c->layout.length(len, slot);
    iovec iov[3] = {{header, header_size},
                    {buf + c->layout.offset(slot), slot_len},
                    {c->scratch.data(), c->layout.chunk() - slot_len}};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = (c->reassembly.count() > 1 && slot_len < c->layout.chunk()) ? 3 : 2;
    ssize_t n = recvmsg(c->fd, &msg, flags);
    if (n >= ssize_t(header_size)) {
        d->header = ngx::udp::decode(header);
        d->payload = (msg.msg_flags & MSG_TRUNC) ? c->layout.chunk() + 1 : size_t(n) - header_size;
        d->bounced = false;
    }
    return n;
}

// The two clocks of one recv(): `idle` (the loss timeout, capped by the
// core's, plus first_datagram_allowance() until something arrives) restarts
// whenever a new fragment arrives; `overall` (the core's timeout) bounds the
// whole call.
struct RecvDeadlines {
    LazyDeadline idle;
    LazyDeadline overall;
    uint64_t idle_wait_ns; // how long one blocking receive waits before EAGAIN
    bool looked_after_expiry = false;
};

// How much longer than the loss timeout the first datagram of a message of
// len bytes in `count` datagrams may take (see allowance_ns_per_byte).
uint64_t first_datagram_allowance(size_t len, size_t count)
{
    return std::max(uint64_t(len) * allowance_ns_per_byte, uint64_t(count) * allowance_ns_per_datagram);
}

// The time recv() waited for the first datagram of the message.
uint64_t first_wait_ns(const Context& c, size_t len)
{
    uint64_t wait = c.recv_budget_ns + first_datagram_allowance(len, c.reassembly.count());
    return c.timeout_ns == 0 ? wait : std::min(wait, c.timeout_ns);
}

// The message being received is lost: says how far it got, then gives it up.
ngx_status lost(Context* c, size_t len, bool overall, ngx_error* err)
{
    Reassembly& r = c->reassembly;
    double idle_ms = double(c->recv_budget_ns) / 1e6;
    double first_ms = double(first_wait_ns(*c, len)) / 1e6;
    ngx_status s;
    if (overall)
        s = fail(err, NGX_ERR_TIMEOUT,
                 "udp recv: message seq %u, size %zu still incomplete after the %.1f s timeout: "
                 "%zu/%zu fragments arrived",
                 r.current(), len, double(c->timeout_ns) / 1e9, r.received(), r.count());
    else if (r.assembling())
        s = fail(err, NGX_ERR_LOST,
                 "udp recv: message seq %u, size %zu lost: %zu/%zu fragments arrived, then none "
                 "for %.1f ms (%llu stale, %llu duplicate datagrams dropped so far)",
                 r.current(), len, r.received(), r.count(), idle_ms, (unsigned long long)c->stale,
                 (unsigned long long)c->duplicates);
    else // nothing arrived: lost, or the peer is silent
        s = fail(err, NGX_ERR_TIMEOUT,
                 "udp recv: message seq %u, size %zu lost: 0/%zu fragments arrived within "
                 "%.1f ms (the peer's message was lost, or it did not send)",
                 r.expected(), len, r.count(), first_ms);
    r.give_up();
    return s;
}

// The receive found nothing (errno e): NGX_OK to wait on, else why to stop.
// A deadline that passed only counts after one more look at the socket that
// also found nothing: the process may have been descheduled past the deadline
// between its last look and reading the clock.
ngx_status on_idle(Context* c, int e, size_t len, RecvDeadlines& deadlines, ngx_error* err)
{
    if (ngx_status s = after_failure(*c, e, "recv", err); s != NGX_OK)
        return s;
    if (e == EINTR)
        return NGX_OK;
    bool idle = deadlines.idle.expired(deadlines.idle_wait_ns);
    bool overall = !idle && deadlines.overall.expired(deadlines.idle_wait_ns);
    if (!idle && !overall) {
        deadlines.looked_after_expiry = false;
        return NGX_OK;
    }
    if (!deadlines.looked_after_expiry) {
        deadlines.looked_after_expiry = true; // the next receive does not block
        return NGX_OK;
    }
    return lost(c, len, overall, err);
}

// Applies the verdict on one datagram; NGX_OK to go on receiving.
ngx_status take(Context* c, Verdict verdict, const Header& h, unsigned char* buf, size_t len, size_t slot,
                size_t payload, ngx_error* err)
{
    switch (verdict) {
    case Verdict::stored:
        return NGX_OK;
    case Verdict::misplaced:
        ngx::udp::move_fragment(buf, len, c->layout, slot, h.index, c->scratch.data(), payload);
        return NGX_OK;
    case Verdict::stale:
        ++c->stale;
        return NGX_OK;
    case Verdict::duplicate:
        ++c->duplicates;
        return NGX_OK;
    case Verdict::overtaken:
        return fail(err, NGX_ERR_LOST,
                    "udp recv: message seq %u, size %zu lost: the peer already sent message "
                    "seq %u (%u bytes)",
                    c->reassembly.awaited(), len, h.seq, h.total);
    case Verdict::wrong_size:
        return fail(err, NGX_ERR_PROTOCOL,
                    "udp recv: message seq %u has %u bytes but the receive expects %zu "
                    "(the peers disagree on the message size)",
                    h.seq, h.total, len);
    case Verdict::malformed:
        break;
    }
    return fail(err, NGX_ERR_PROTOCOL,
                "udp recv: inconsistent datagram of message seq %u: fragment %u of %u with "
                "%zu bytes, for a %zu-byte message in %zu-byte fragments",
                h.seq, h.index, h.count, payload, len, c->layout.chunk());
}

} // namespace

ngx_status udp_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->route != nullptr) [[unlikely]]
        return udp_send(c->route, buf, len, err);
    if (ngx_status s = check_length(len, "send", err); s != NGX_OK)
        return s;
    uint32_t seq = c->send_seq++; // a failed send still consumes its number
    if (len <= c->layout.chunk())
        return send_single(c, seq, buf, len, err);
    return send_fragments(c, seq, buf, len, err);
}

ngx_status udp_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->route != nullptr) [[unlikely]]
        return udp_recv(c->route, buf, len, err);
    if (ngx_status s = check_length(len, "recv", err); s != NGX_OK)
        return s;
    auto* data = static_cast<unsigned char*>(buf);
    Reassembly& r = c->reassembly;
    try {
        r.start(len); // allocates only for a message larger than any before
    } catch (const std::bad_alloc&) {
        return fail(err, NGX_ERR_NO_MEMORY, "udp recv: no memory to track the fragments of %zu bytes", len);
    }
    RecvDeadlines deadlines{LazyDeadline(first_wait_ns(*c, len)), LazyDeadline(r.count() > 1 ? c->timeout_ns : 0),
                            c->options.busy_poll ? 0 : c->slice_ns};
    if (r.count() > 1)
        deadlines.overall.start_now(); // a single datagram is bounded by `idle` alone
    int flags = c->options.busy_poll ? MSG_DONTWAIT : 0;
    bool small = r.count() == 1 && len <= bounce_limit;
    Datagram d;
    do {
        size_t slot = r.guess();
        int now_flags = deadlines.looked_after_expiry ? flags | MSG_DONTWAIT : flags;
        ssize_t n = small ? receive_small(c, len, now_flags, &d) : receive_in_place(c, data, len, slot, now_flags, &d);
        if (n < 0) {
            if (ngx_status s = on_idle(c, errno, len, deadlines, err); s != NGX_OK)
                return s;
            continue;
        }
        if (size_t(n) < header_size)
            return fail(err, NGX_ERR_PROTOCOL, "udp recv: a %zd-byte datagram is shorter than the %zu-byte header", n,
                        header_size);
        deadlines.looked_after_expiry = false;
        Verdict verdict = r.offer(d.header, d.payload, slot);
        if (ngx_status s = take(c, verdict, d.header, data, len, slot, d.payload, err); s != NGX_OK)
            return s;
        if (verdict == Verdict::stored || verdict == Verdict::misplaced)
            deadlines.idle.restart(c->recv_budget_ns); // the message makes progress
        if (d.bounced && verdict == Verdict::stored && len > 0)
            std::memcpy(data, c->bounce.data() + header_size, len);
    } while (!r.complete());
    return NGX_OK;
}

} // namespace ngx::udp
