// Send and receive as docs/sim.md times them (see sim_context.hpp):
// blocking and non-blocking calls, strided data and send to self.
#include "sim_context.hpp"

#include <cstring>

namespace ngx::sim {

using ngx::mod::fail;

// ---- strided data and send to self (ABI 1.2) -------------------------------------

namespace {

// The extra busy time of packing or unpacking a message of len bytes, in clock ticks.
uint64_t strided_cost(const Context* c, size_t len)
{
    return c->stride > 1 ? uint64_t(std::llround(double(len / c->element) * c->timing.strided_per_element)) : 0;
}

void copy_elements(const Context* c, const uint8_t* from, size_t from_step, uint8_t* to, size_t to_step, size_t len)
{
    for (size_t i = 0; i < len / c->element; ++i)
        std::memcpy(to + i * to_step, from + i * from_step, c->element);
}

// The contiguous bytes of a message: buf itself, or its elements packed.
const void* gathered(Context* c, const void* buf, size_t len)
{
    if (c->stride == 1)
        return buf;
    c->staging.resize(len);
    copy_elements(c, static_cast<const uint8_t*>(buf), c->element * c->stride, c->staging.data(), c->element, len);
    return c->staging.data();
}

void scatter(Context* c, const uint8_t* packed, void* buf, size_t len)
{
    if (c->stride == 1)
        std::memcpy(buf, packed, len);
    else
        copy_elements(c, packed, c->element, static_cast<uint8_t*>(buf), c->element * c->stride, len);
}

ngx_status self_send(Context* c, const void* buf, size_t len, ngx_error* err)
{
    uint64_t start = call_time(c);
    if (c->self_pending)
        return fail(err, NGX_ERR_PROTOCOL, "send to self: the previous message to self was not received");
    const auto* data = static_cast<const uint8_t*>(gathered(c, buf, len));
    c->self_message.assign(data, data + len);
    c->self_pending = true;
    c->self_ready = start + c->timing.o_s(len) + strided_cost(c, len);
    return return_at(c, c->sends, c->self_ready, "send to self", err);
}

ngx_status self_recv(Context* c, void* buf, size_t len, ngx_error* err)
{
    uint64_t start = call_time(c);
    if (!c->self_pending || c->self_message.size() != len)
        return fail(err, NGX_ERR_PROTOCOL, "recv from self: no message of %zu bytes was sent to self", len);
    scatter(c, c->self_message.data(), buf, len);
    c->self_pending = false;
    return return_at(c, c->recvs, std::max(start, c->self_ready) + c->timing.o_r(len) + strided_cost(c, len),
                     "recv from self", err);
}

} // namespace

ngx_status sim_set_layout(void* ctx, const ngx_layout* layout, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (layout->element == 0 || layout->stride == 0)
        return fail(err, NGX_ERR_INVALID_OPTION, "set_layout: element and stride must be at least 1");
    c->element = layout->element;
    c->stride = layout->stride;
    c->to_self = layout->to_self != 0;
    return NGX_OK;
}

// ---- send and recv ----------------------------------------------------------------

namespace {

// A free slot of `slots`, the vector growing only when every slot is pending.
template <class Pending>
size_t free_slot(std::vector<Pending>& slots)
{
    for (size_t i = 0; i < slots.size(); ++i)
        if (!slots[i].active)
            return i;
    slots.emplace_back();
    return slots.size() - 1;
}

} // namespace

// The end of an eager send's CPU part, called at t: o_s(s), packing, the buffered copy.
uint64_t eager_cpu(Context* c, uint64_t t, size_t len)
{
    return t + noisy_call(c, c->timing.o_s(len)) + strided_cost(c, len) + c->timing.copy(len);
}

namespace {

// Sends the data whose CPU part ends at `cpu_done` as soon as the NIC is
// free; *injection is when it leaves.
ngx_status push_data(Context* c, const void* buf, size_t len, uint64_t cpu_done, uint64_t* injection, ngx_error* err)
{
    const Model& m = c->timing;
    *injection = std::max(cpu_done, c->nic_free);
    c->nic_free = *injection + m.g() + m.wire(len);
    uint64_t arrival = *injection + (c->noise.any() ? c->noise.flight(m.L(), m.wire(len)) : m.L() + m.wire(len)) +
                       c->link.share(len, *injection);
    return write_message(c, Kind::data, arrival, len, buf, len, err);
}

// The first part of a send called at t: the rendezvous request (busy o_s,
// it arrives at t + o_s + L), or the eager data. Leaves the rest to
// finish_send; *post_end is when the CPU part ends (an isend returns there).
ngx_status start_send(Context* c, PendingSend& p, const void* buf, size_t len, uint64_t t, uint64_t* post_end,
                      ngx_error* err)
{
    const Model& m = c->timing;
    p = PendingSend{true, m.rendezvous(len), buf, len, 0};
    if (!p.rendezvous) {
        *post_end = eager_cpu(c, t, len);
        return push_data(c, buf, len, *post_end, &p.done, err);
    }
    *post_end = t + m.o_s();
    return write_message(c, Kind::request, *post_end + m.L(), len, nullptr, 0, err);
}

// A synchronous send's acknowledgement of the receiver's match: its arrival.
ngx_status take_match_ack(Context* c, size_t len, uint64_t* arrival, ngx_error* err)
{
    if (std::exchange(c->match_ack_taken, false)) {
        *arrival = c->match_ack_arrival;
        return NGX_OK;
    }
    Stamp ack{};
    ngx_status s = read_message(c, Kind::match_ack, len, nullptr, 0, "send", &ack, err);
    *arrival = ack.arrival;
    return s;
}

// The rest of the pending send: a rendezvous takes the ack (T4 + T5 after
// the call: it arrives, o_r) and pushes the data; a synchronous one takes
// the receiver's match. *done: when the send completes, in model time.
ngx_status finish_send(Context* c, PendingSend& p, uint64_t* done, ngx_error* err)
{
    p.active = false;
    if (p.rendezvous) {
        Stamp ack{};
        if (ngx_status s = read_message(c, Kind::ack, p.len, nullptr, 0, "send", &ack, err); s != NGX_OK)
            return s;
        uint64_t ready = ack.arrival + c->timing.o_r();
        if (ngx_status s = spin_until(c, ready, "send", err); s != NGX_OK)
            return s;
        if (ngx_status s = push_data(c, p.buf, p.len, eager_cpu(c, ready, p.len), &p.done, err); s != NGX_OK)
            return s;
    }
    *done = p.done;
    if (!c->timing.match_ack(p.len))
        return NGX_OK;
    uint64_t matched = 0;
    ngx_status s = take_match_ack(c, p.len, &matched, err);
    *done = std::max(*done, matched);
    return s;
}

} // namespace

ngx_status sim_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->to_self)
        return self_send(c, buf, len, err);
    uint64_t start = call_time(c);
    if (c->probe_wait != 0) [[unlikely]] // CallCost at connect: the way in and out, nothing sent
        return return_at(c, c->probes, start + c->probe_wait, "send", err);
    if (any_pending(c->isends))
        return fail(err, NGX_ERR_UNSUPPORTED, "send: an isend is pending (sim: wait for it first)");
    PendingSend blocking;
    uint64_t post_end = 0, done = 0;
    if (ngx_status s = start_send(c, blocking, gathered(c, buf, len), len, start, &post_end, err); s != NGX_OK)
        return s;
    if (ngx_status s = finish_send(c, blocking, &done, err); s != NGX_OK)
        return s;
    return return_at(c, c->sends, done, "send", err);
}

namespace {

// Receiver's half of the rendezvous for a receive called at t: take the
// request, answer it.
ngx_status take_request_and_ack(Context* c, uint64_t t, size_t size, ngx_error* err)
{
    const Model& m = c->timing;
    Stamp request{};
    if (ngx_status s = read_message(c, Kind::request, size, nullptr, 0, "recv", &request, err); s != NGX_OK)
        return s;
    uint64_t noticed = std::max(request.arrival, t) + m.o_r();
    if (ngx_status s = spin_until(c, noticed, "recv", err); s != NGX_OK)
        return s;
    if (ngx_status s = write_message(c, Kind::ack, noticed + m.o_s() + m.L(), size, nullptr, 0, err); s != NGX_OK)
        return s;
    return spin_until(c, noticed + m.o_s(), "recv", err);
}

} // namespace

// Two ranks exchanging rendezvous messages at once (isend + irecv each, as
// an exchange step of recursive doubling): the peer's request reaches this
// side ahead of the acknowledgement its isend waits for (expect_message).
// The oldest pending irecv without a message takes it: answered as a
// receive posted at its irecv (LogGPS's receiver half, progress being
// asynchronous), its data then taken by its wait. Without a pending irecv
// it is a protocol error, as before.
ngx_status answer_crossing_request(Context* c, bool* answered, ngx_error* err)
{
    *answered = false;
    PendingRecv* oldest = nullptr;
    for (PendingRecv& r : c->irecvs)
        if (r.active && !r.taken && !r.answered && (oldest == nullptr || r.order < oldest->order))
            oldest = &r;
    if (oldest == nullptr || !c->timing.rendezvous(oldest->len))
        return NGX_OK;
    oldest->answered = *answered = true;
    return take_request_and_ack(c, oldest->posted, oldest->len, err);
}

namespace {

// The message of a receive called (or posted) at t, into buf: the
// rendezvous answered (unless a crossing isend's wait already did), the
// data taken, a synchronous sender's match acknowledged (at
// max(arrival, t) + L). *arrival: the data's.
ngx_status take_data(Context* c, void* buf, size_t len, uint64_t t, uint64_t* arrival, ngx_error* err,
                     bool answered = false)
{
    if (c->timing.rendezvous(len) && !answered)
        if (ngx_status s = take_request_and_ack(c, t, len, err); s != NGX_OK)
            return s;
    Stamp stamp{};
    void* target = buf;
    if (c->stride > 1) {
        c->staging.resize(len);
        target = c->staging.data();
    }
    if (ngx_status s = read_message(c, Kind::data, len, target, len, "recv", &stamp, err); s != NGX_OK)
        return s;
    if (target != buf)
        scatter(c, c->staging.data(), buf, len);
    *arrival = stamp.arrival;
    if (!c->timing.match_ack(len))
        return NGX_OK;
    return write_message(c, Kind::match_ack, std::max(stamp.arrival, t) + c->timing.L(), len, nullptr, 0, err);
}

// irecv at t: the receive's whole CPU cost now; its end.
uint64_t post_recv(Context* c, PendingRecv& p, void* buf, size_t len, uint64_t t)
{
    p = PendingRecv{true, buf, len, t, c->irecvs_posted++, false, 0, false};
    return t + noisy_call(c, c->timing.o_r(len)) + strided_cost(c, len);
}

} // namespace

ngx_status sim_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->to_self)
        return self_recv(c, buf, len, err);
    if (any_pending(c->irecvs))
        return fail(err, NGX_ERR_UNSUPPORTED, "recv: an irecv is pending (sim: wait for it first)");
    uint64_t start = call_time(c), arrival = 0;
    if (c->timing.nonblocking_calls) { // irecv + wait: the overhead at the post, then the arrival
        PendingRecv blocking;
        uint64_t posted = post_recv(c, blocking, buf, len, start);
        if (ngx_status s = take_data(c, buf, len, start, &arrival, err); s != NGX_OK)
            return s;
        return return_at(c, c->recvs, std::max(posted, arrival), "recv", err);
    }
    if (ngx_status s = take_data(c, buf, len, start, &arrival, err); s != NGX_OK)
        return s;
    return return_at(c, c->recvs, std::max(arrival, start) + noisy_call(c, c->timing.o_r(len)) + strided_cost(c, len),
                     "recv", err);
}

// ---- non-blocking calls -------------------------------------------------------------

namespace {

// A request names its kind and its slot: (slot << 2) | kind.
enum RequestKind : ngx_request { send_request = 1, recv_request = 2, self_request = 3 };
ngx_request request_of(RequestKind kind, size_t slot)
{
    return ngx_request(slot) << 2 | kind;
}

// The pending isend or irecv a request names; nullptr: none.
template <class Pending>
Pending* pending_of(std::vector<Pending>& slots, ngx_request req, RequestKind kind)
{
    size_t slot = size_t(req >> 2);
    if ((req & 3) != kind || slot >= slots.size() || !slots[slot].active)
        return nullptr;
    return &slots[slot];
}

// Whether a send must be the only pending isend: its wait reads the peer's
// answer (a rendezvous acknowledgement, a synchronous match) off the ring.
bool needs_answer(const Context* c, size_t len)
{
    return c->timing.rendezvous(len) || c->timing.match_ack(len);
}

} // namespace

ngx_status sim_isend(void* ctx, const void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    *req = self_request;
    if (c->to_self)
        return self_send(c, buf, len, err);
    uint64_t start = call_time(c);
    bool alone = std::any_of(c->isends.begin(), c->isends.end(),
                             [c](const PendingSend& p) { return p.active && needs_answer(c, p.len); });
    if (alone || (needs_answer(c, len) && any_pending(c->isends)))
        return fail(err, NGX_ERR_UNSUPPORTED,
                    "isend: sim keeps a rendezvous or synchronous isend pending alone; wait for the previous ones");
    const void* data = gathered(c, buf, len);
    if (data != buf) { // packed: kept apart from the staging a recv may reuse before the wait
        c->isend_packed = c->staging;
        data = c->isend_packed.data();
    }
    size_t slot = free_slot(c->isends);
    uint64_t post_end = 0;
    if (ngx_status s = start_send(c, c->isends[slot], data, len, start, &post_end, err); s != NGX_OK)
        return s;
    *req = request_of(send_request, slot);
    return return_at(c, c->sends, post_end, "isend", err);
}

ngx_status sim_irecv(void* ctx, void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    uint64_t start = call_time(c);
    if (c->to_self)
        return fail(err, NGX_ERR_UNSUPPORTED, "irecv from self: sim receives from self with recv");
    size_t slot = free_slot(c->irecvs);
    *req = request_of(recv_request, slot);
    return return_at(c, c->recvs, post_recv(c, c->irecvs[slot], buf, len, start), "irecv", err);
}

namespace {

// The next message on the ring goes to the pending irecv posted first
// that has none yet.
ngx_status take_oldest(Context* c, ngx_error* err)
{
    PendingRecv* oldest = nullptr;
    for (PendingRecv& p : c->irecvs)
        if (p.active && !p.taken && (oldest == nullptr || p.order < oldest->order))
            oldest = &p;
    if (oldest == nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "wait: no irecv waits for a message");
    oldest->taken = true;
    return take_data(c, oldest->buf, oldest->len, oldest->posted, &oldest->arrival, err, oldest->answered);
}

} // namespace

ngx_status sim_wait(void* ctx, ngx_request* req, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    ngx_request which = std::exchange(*req, 0);
    if (which == self_request)
        return NGX_OK;
    uint64_t done = 0;
    ngx_status s = NGX_OK;
    if (PendingSend* p = pending_of(c->isends, which, send_request)) {
        s = finish_send(c, *p, &done, err);
    } else if (PendingRecv* r = pending_of(c->irecvs, which, recv_request)) {
        while (s == NGX_OK && !r->taken) // earlier-posted irecvs take their messages first
            s = take_oldest(c, err);
        r->active = false;
        done = r->arrival;
    } else {
        return fail(err, NGX_ERR_PROTOCOL, "wait: no such pending request");
    }
    return s == NGX_OK ? spin_until(c, done, "wait", err) : s;
}

// Done when nothing more is needed from the peer (an eager send past its
// injection), or when what is needed is on the ring: then it completes as wait.
ngx_status sim_test(void* ctx, ngx_request* req, int* done, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    Stamp next{};
    bool on_ring = c->channel != nullptr && c->channel->in.peek(&next, sizeof next);
    if (const PendingSend* p = pending_of(c->isends, *req, send_request)) {
        // In virtual time nothing moves the clock while the caller polls: a local
        // send is done at its injection, as polling until then would find it.
        bool local = !needs_answer(c, p->len);
        *done = local ? c->clock.is_virtual() || c->clock.now() >= p->done : on_ring;
    } else if (PendingRecv* r = pending_of(c->irecvs, *req, recv_request)) {
        if (!r->taken && on_ring) // the next message goes to the oldest irecv, maybe this one
            if (ngx_status s = take_oldest(c, err); s != NGX_OK)
                return s;
        *done = r->taken;
    } else {
        *done = *req == self_request;
    }
    return *done ? sim_wait(ctx, req, err) : NGX_OK;
}

} // namespace ngx::sim
