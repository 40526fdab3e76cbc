// Put, get and flush as docs/sim.md times them (see sim_context.hpp).
#include "sim_context.hpp"

#include <cstring>

namespace ngx::sim {

using ngx::mod::fail;

namespace {

// put, get and flush as docs/sim.md ("One-sided calls") times them.

ngx_status check_peer_window(const Context* c, const char* op, size_t offset, size_t len, ngx_error* err)
{
    if (c->peer_window_len == 0)
        return fail(err, NGX_ERR_PROTOCOL, "%s: no window exposed (both peers call expose first)", op);
    if (offset > c->peer_window_len || len > c->peer_window_len - offset)
        return fail(err, NGX_ERR_INVALID_OPTION, "%s of %zu bytes at offset %zu: beyond the peer's window of %zu bytes",
                    op, len, offset, c->peer_window_len);
    return NGX_OK;
}

} // namespace

ngx_status sim_expose(void* ctx, const ngx_bootstrap* boot, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    c->window = static_cast<uint8_t*>(buf);
    c->window_len = len;
    std::string theirs;
    if (ngx_status s = ngx::mod::exchange_blob(boot, std::to_string(len), &theirs, 32, err); s != NGX_OK)
        return s;
    c->peer_window_len = size_t(std::strtoull(theirs.c_str(), nullptr, 10));
    return NGX_OK;
}

ngx_status sim_put(void* ctx, const void* local, size_t offset, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (ngx_status s = check_peer_window(c, "put", offset, len, err); s != NGX_OK)
        return s;
    const Model& m = c->timing;
    uint64_t cpu_done = eager_cpu(c, call_time(c), len);
    uint64_t injection = std::max(cpu_done, c->nic_free);
    c->nic_free = injection + m.g() + m.wire(len);
    uint64_t arrival = injection + m.L() + m.wire(len);
    c->flush_until = std::max(c->flush_until, arrival + m.L());
    if (ngx_status s = write_message(c, Kind::put, arrival, len, local, len, err, offset); s != NGX_OK)
        return s;
    return return_at(c, c->sends, cpu_done, "put", err);
}

ngx_status sim_get(void* ctx, void* local, size_t offset, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (ngx_status s = check_peer_window(c, "get", offset, len, err); s != NGX_OK)
        return s;
    const Model& m = c->timing;
    uint64_t cpu_done = call_time(c) + noisy_call(c, m.o_s());
    uint64_t answer = std::max(cpu_done + m.L(), c->peer_nic_free);
    c->peer_nic_free = answer + m.g() + m.wire(len);
    c->flush_until = std::max(c->flush_until, answer + m.L() + m.wire(len));
    c->gets.emplace_back(local, len);
    if (ngx_status s = write_message(c, Kind::get_request, answer, len, nullptr, 0, err, offset); s != NGX_OK)
        return s;
    return return_at(c, c->sends, cpu_done, "get", err);
}

ngx_status sim_flush(void* ctx, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    uint64_t start = call_time(c);
    for (const auto& [local, len] : c->gets) {
        Stamp reply{};
        if (ngx_status s = read_message(c, Kind::get_reply, len, local, len, "flush", &reply, err); s != NGX_OK)
            return s;
    }
    c->gets.clear();
    return return_at(c, c->sends, std::max(start, c->flush_until), "flush", err);
}

} // namespace ngx::sim
