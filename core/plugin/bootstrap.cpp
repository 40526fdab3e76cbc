// The C view of a bootstrap that modules receive (see bootstrap.hpp).
#include <ngx/bootstrap.hpp>

#include <algorithm>
#include <cstdio>

namespace ngx {
namespace {

ngx_status exchange_thunk(void* ctx, const void* mine, size_t mine_len, void* theirs, size_t theirs_capacity,
                          size_t* theirs_len, ngx_error* err)
{
    auto* boot = static_cast<Bootstrap*>(ctx);
    const auto* first = static_cast<const uint8_t*>(mine);
    Bytes received;
    Status status = boot->exchange(mine_len == 0 ? Bytes() : Bytes(first, first + mine_len), received);
    if (!status) {
        std::snprintf(err->message, sizeof err->message, "bootstrap exchange: %s", status.message().c_str());
        return status.kind() == ErrorKind::interrupted ? NGX_ERR_INTERRUPTED : NGX_ERR_PEER_LOST;
    }
    if (received.size() > theirs_capacity) {
        std::snprintf(err->message, sizeof err->message,
                      "bootstrap exchange: the peer sent %zu bytes, more than the %zu expected", received.size(),
                      theirs_capacity);
        return NGX_ERR_PROTOCOL;
    }
    std::copy(received.begin(), received.end(), static_cast<uint8_t*>(theirs));
    *theirs_len = received.size();
    return NGX_OK;
}

// A pairwise barrier: both peers have arrived once each has the other's empty blob.
ngx_status barrier_thunk(void* ctx, ngx_error* err)
{
    uint8_t nothing[1] = {0};
    size_t ignored = 0;
    return exchange_thunk(ctx, nothing, 0, nothing, 0, &ignored, err);
}

} // namespace

ngx_bootstrap Bootstrap::c_view()
{
    local_address_copy_ = local_address();
    peer_address_copy_ = peer_address();
    ngx_bootstrap view{};
    view.size = sizeof view;
    view.ctx = this;
    view.rank = rank();
    view.nranks = nranks();
    view.peer = peer();
    view.local_address = local_address_copy_.c_str();
    view.peer_address = peer_address_copy_.c_str();
    view.exchange = exchange_thunk;
    view.barrier = barrier_thunk;
    return view;
}

std::string known_host_address(const Bootstrap& boot, int rank)
{
    const auto* directory = dynamic_cast<const HostDirectory*>(&boot);
    return directory != nullptr ? directory->host_address_of(rank) : std::string();
}

Bytes to_bytes(const std::string& text)
{
    return Bytes(text.begin(), text.end());
}

std::string to_string(const Bytes& bytes)
{
    return std::string(bytes.begin(), bytes.end());
}

std::string Bootstrap::name() const
{
    switch (kind()) {
    case BootstrapKind::local:
        return "local";
    case BootstrapKind::tcp:
        return "tcp";
    case BootstrapKind::mpi:
        return "mpi";
    }
    return "unknown";
}

} // namespace ngx
