// Device, port and GID selection for the ibv module.
//
//     DeviceChoice dev;
//     if (ngx_status s = open_device({"", 0, std::nullopt}, dev, err); s != NGX_OK) return s;
//     ... use dev.context, dev.port, dev.gid_index ...; close_device(dev);
//
// Defaults: the first device (in ibv_get_device_list order) with an ACTIVE
// port, its first ACTIVE port, and the GID that gid.hpp's rule picks (RoCE:
// the IPv4-mapped RoCE v2 GID; InfiniBand: none, LIDs are used).
#ifndef NGX_IBV_DEVICE_HPP
#define NGX_IBV_DEVICE_HPP

#include "gid.hpp"

#include <ngx/module.h>

#include <infiniband/verbs.h>

#include <optional>
#include <string>

namespace ngx::ibv {

struct DeviceRequest {
    std::string name;            // empty: first device with an ACTIVE port
    unsigned port = 0;           // 0: first ACTIVE port
    std::optional<uint32_t> gid; // nullopt: the default rule
};

struct DeviceChoice {
    ibv_context* context = nullptr;
    std::string name;
    uint8_t port = 0;
    ibv_port_attr port_attr{};
    ibv_device_attr device_attr{};
    bool ethernet = false;
    int gid_index = -1; // -1: no GID (InfiniBand with LIDs)
    GidBytes gid{};
    GidType gid_type = GidType::ib;
};

ngx_status open_device(const DeviceRequest& request, DeviceChoice& out, ngx_error* err);
void close_device(DeviceChoice& dev);

// "rxe0 port 1 gid[1] ::ffff:10.0.2.15 (RoCE v2)" or "mlx5_0 port 1 lid 3 (InfiniBand)".
std::string describe(const DeviceChoice& dev);

const char* port_state_name(ibv_port_state state);

} // namespace ngx::ibv

#endif
