// Messages on the shared-memory ring (see sim_context.hpp): the stamp in
// front of each, the checks of what arrives, the one-sided traffic served
// on the way.
#include "sim_context.hpp"

#include <cstring>
#include <string>

namespace ngx::sim {

using ngx::mod::fail;

ngx_status write_message(Context* c, Kind kind, uint64_t arrival, size_t size, const void* payload, size_t payload_len,
                         ngx_error* err, uint64_t offset)
{
    if (c->channel == nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "send: no link is open (connect was set-up only; open_link first)");
    Stamp stamp{arrival, size, uint32_t(kind), 0, offset};
    ngx::shm::SpinWait wait(c->timeout_ns, c->cancel, &c->channel->peer, ngx::shm::Waiting::for_space);
    return c->channel->out.write(&stamp, sizeof stamp, payload, payload_len, wait, err);
}

namespace {

const char* kind_name(uint32_t kind)
{
    switch (Kind(kind)) {
    case Kind::data:
        return "a data message";
    case Kind::request:
        return "a rendezvous request";
    case Kind::ack:
        return "a rendezvous acknowledgement";
    case Kind::match_ack:
        return "a synchronous send's acknowledgement";
    case Kind::put:
        return "a put";
    case Kind::get_request:
        return "a get";
    case Kind::get_reply:
        return "a get's data";
    }
    return "garbage";
}

// A put into this side's window (its bytes copied there) or a get from it
// (its bytes sent back, arriving when the peer's get computed), taken off
// the ring by whatever call of this side finds it.
ngx_status serve_one_sided(Context* c, const Stamp& next, ngx::shm::SpinWait& wait, ngx_error* err)
{
    if (c->window == nullptr || next.offset > c->window_len || next.size > c->window_len - next.offset)
        return fail(err, NGX_ERR_PROTOCOL, "%s of %llu bytes at offset %llu: outside the exposed window of %zu bytes",
                    kind_name(next.kind), (unsigned long long)next.size, (unsigned long long)next.offset,
                    c->window_len);
    Stamp stamp{};
    uint8_t* at = c->window + next.offset;
    bool put = next.kind == uint32_t(Kind::put);
    if (ngx_status s = c->channel->in.read(&stamp, sizeof stamp, put ? at : nullptr, put ? next.size : 0, wait, err);
        s != NGX_OK)
        return s;
    return put ? NGX_OK : write_message(c, Kind::get_reply, stamp.arrival, stamp.size, at, stamp.size, err);
}

} // namespace

// Waits for the next message and checks, before consuming it, that it is the
// kind and size this side expects.
ngx_status expect_message(Context* c, Kind kind, size_t size, const char* step, ngx_error* err)
{
    if (c->channel == nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "%s: no link is open (connect was set-up only; open_link first)", step);
    ngx::shm::SpinWait wait(c->timeout_ns, c->cancel, &c->channel->peer, ngx::shm::Waiting::for_message);
    Stamp stamp{};
    for (;;) {
        while (!c->channel->in.peek(&stamp, sizeof stamp)) {
            if (ngx_status s = wait.idle(err); s != NGX_OK)
                return s;
            ngx::sim::nap(c->sleep_margin_ns); // --sim-sleep: messages are written long before they "arrive"
        }
        if (stamp.kind == uint32_t(Kind::put) || stamp.kind == uint32_t(Kind::get_request)) {
            // The peer's one-sided access to this side's window: the NIC's work, no CPU time.
            if (ngx_status s = serve_one_sided(c, stamp, wait, err); s != NGX_OK)
                return s;
            continue;
        }
        if (kind == Kind::ack && stamp.kind == uint32_t(Kind::request)) {
            bool answered = false;
            if (ngx_status s = answer_crossing_request(c, &answered, err); s != NGX_OK)
                return s;
            if (answered)
                continue;
        }
        if (stamp.kind != uint32_t(Kind::match_ack) || kind == Kind::match_ack)
            break;
        // A synchronous isend's acknowledgement ahead of what this call
        // waits for: kept for that isend's wait.
        if (ngx_status s = c->channel->in.read(&stamp, sizeof stamp, nullptr, 0, wait, err); s != NGX_OK)
            return s;
        c->match_ack_taken = true;
        c->match_ack_arrival = stamp.arrival;
    }
    if (stamp.kind != uint32_t(kind) || stamp.size != size)
        return fail(err, NGX_ERR_PROTOCOL,
                    "%s: expected %s of %zu bytes, the peer sent %s of %llu bytes (same --sim-S on both sides? "
                    "both sending a rendezvous message at once?)",
                    step, kind_name(uint32_t(kind)), size, kind_name(stamp.kind), (unsigned long long)stamp.size);
    return NGX_OK;
}

ngx_status read_message(Context* c, Kind kind, size_t size, void* payload, size_t payload_len, const char* step,
                        Stamp* stamp, ngx_error* err)
{
    if (ngx_status s = expect_message(c, kind, size, step, err); s != NGX_OK)
        return s;
    ngx::shm::SpinWait wait(c->timeout_ns, c->cancel, &c->channel->peer, ngx::shm::Waiting::for_message);
    return c->channel->in.read(stamp, sizeof *stamp, payload, payload_len, wait, err);
}

} // namespace ngx::sim
