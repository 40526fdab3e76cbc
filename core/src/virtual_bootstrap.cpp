// The bootstrap that carries simulated time (see virtual_bootstrap.hpp).
#include "virtual_bootstrap.hpp"

#include <cstring>

namespace ngx {

Bytes VirtualBootstrap::stamped(const Bytes& blob) const
{
    uint64_t now = clock_.now(clock_.ctx);
    Bytes out(blob);
    out.resize(blob.size() + sizeof now);
    std::memcpy(out.data() + blob.size(), &now, sizeof now);
    return out;
}

Status VirtualBootstrap::take_stamp(Bytes& blob, const char* step) const
{
    uint64_t then = 0;
    if (blob.size() < sizeof then)
        return Status::runtime(std::string(step) + ": a peer's message carries no simulated time (is every rank "
                                                   "running in virtual time?)");
    std::memcpy(&then, blob.data() + blob.size() - sizeof then, sizeof then);
    blob.resize(blob.size() - sizeof then);
    clock_.advance_to(clock_.ctx, then);
    return Status::ok();
}

Status VirtualBootstrap::raw_exchange(const Bytes& mine, Bytes& theirs)
{
    NGX_TRY(inner_.raw_exchange(stamped(mine), theirs));
    return take_stamp(theirs, "exchange");
}

Status VirtualBootstrap::raw_broadcast(Bytes& value)
{
    Bytes carried = rank() == 0 ? stamped(value) : Bytes{};
    NGX_TRY(inner_.raw_broadcast(carried));
    if (rank() != 0) {
        NGX_TRY(take_stamp(carried, "broadcast"));
        value = std::move(carried);
    }
    return Status::ok();
}

Status VirtualBootstrap::raw_gather(const Bytes& mine, std::vector<Bytes>& all)
{
    NGX_TRY(inner_.raw_gather(stamped(mine), all));
    for (Bytes& blob : all)
        NGX_TRY(take_stamp(blob, "gather"));
    return Status::ok();
}

} // namespace ngx
