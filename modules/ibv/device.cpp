// Opens the RDMA device, port and GID that the options name or the default
// rule picks (see device.hpp), with a reason for every refusal.
#include "device.hpp"

#include <ngx/module_support.hpp>

#include <fstream>
#include <sstream>
#include <vector>

namespace ngx::ibv {

using ngx::mod::fail;

namespace {

struct DeviceList {
    ibv_device** list = nullptr;
    int count = 0;
    DeviceList() { list = ibv_get_device_list(&count); }
    ~DeviceList()
    {
        if (list != nullptr)
            ibv_free_device_list(list);
    }
    DeviceList(const DeviceList&) = delete;
    DeviceList& operator=(const DeviceList&) = delete;
};

std::string device_names(const DeviceList& devices)
{
    std::string names;
    for (int i = 0; i < devices.count; ++i)
        names += (i ? ", " : "") + std::string(ibv_get_device_name(devices.list[i]));
    return names;
}

// The first ACTIVE port of an open device, or 0.
uint8_t first_active_port(ibv_context* ctx, const ibv_device_attr& attr, std::string& states)
{
    for (uint8_t p = 1; p <= attr.phys_port_cnt; ++p) {
        ibv_port_attr pa{};
        if (ibv_query_port(ctx, p, &pa) != 0)
            continue;
        if (pa.state == IBV_PORT_ACTIVE)
            return p;
        states += std::string(states.empty() ? "" : ", ") + ibv_get_device_name(ctx->device) + " port " +
                  std::to_string(p) + ": " + port_state_name(pa.state);
    }
    return 0;
}

// Reads the GID table from sysfs when the kernel lacks the GID-table ioctl.
std::vector<GidEntry> sysfs_gid_table(const std::string& dev, uint8_t port, uint32_t length)
{
    std::vector<GidEntry> table;
    std::string base = "/sys/class/infiniband/" + dev + "/ports/" + std::to_string(port);
    for (uint32_t i = 0; i < length; ++i) {
        std::ifstream gid_file(base + "/gids/" + std::to_string(i));
        std::ifstream type_file(base + "/gid_attrs/types/" + std::to_string(i));
        std::string gid_text, type_text;
        if (!std::getline(gid_file, gid_text) || !std::getline(type_file, type_text))
            continue; // empty entries have no type (EINVAL on read)
        auto gid = parse_gid(gid_text);
        auto type = parse_gid_type(type_text);
        if (gid && type && !is_zero(*gid))
            table.push_back({i, *gid, *type});
    }
    return table;
}

GidType to_gid_type(uint32_t type)
{
    if (type == IBV_GID_TYPE_ROCE_V2)
        return GidType::roce_v2;
    return type == IBV_GID_TYPE_ROCE_V1 ? GidType::roce_v1 : GidType::ib;
}

std::vector<GidEntry> gid_table(const DeviceChoice& dev)
{
    std::vector<ibv_gid_entry> raw(dev.device_attr.phys_port_cnt * size_t(dev.port_attr.gid_tbl_len));
    ssize_t n = ibv_query_gid_table(dev.context, raw.data(), raw.size(), 0);
    if (n < 0)
        return sysfs_gid_table(dev.name, dev.port, uint32_t(dev.port_attr.gid_tbl_len));
    std::vector<GidEntry> table;
    for (ssize_t i = 0; i < n; ++i) {
        if (raw[i].port_num != dev.port)
            continue;
        GidEntry e{raw[i].gid_index, {}, to_gid_type(raw[i].gid_type)};
        std::copy(raw[i].gid.raw, raw[i].gid.raw + 16, e.gid.begin());
        if (!is_zero(e.gid))
            table.push_back(e);
    }
    return table;
}

ngx_status pick_device(const DeviceRequest& req, const DeviceList& devices, DeviceChoice& out, ngx_error* err)
{
    std::string states;
    for (int i = 0; i < devices.count; ++i) {
        std::string name = ibv_get_device_name(devices.list[i]);
        if (!req.name.empty() && name != req.name)
            continue;
        ibv_context* ctx = ibv_open_device(devices.list[i]);
        if (ctx == nullptr)
            return fail(err, NGX_ERR_SYSTEM, "ibv_open_device(%s): %s", name.c_str(), mod::errno_text(errno));
        ibv_device_attr attr{};
        if (ibv_query_device(ctx, &attr) != 0) {
            int e = errno;
            ibv_close_device(ctx);
            return fail(err, NGX_ERR_SYSTEM, "ibv_query_device(%s): %s", name.c_str(), mod::errno_text(e));
        }
        uint8_t port = uint8_t(req.port);
        if (port > attr.phys_port_cnt) {
            ibv_close_device(ctx);
            return fail(err, NGX_ERR_INVALID_OPTION, "--ibv-port %u: %s has no such port (ports 1..%u)", req.port,
                        name.c_str(), unsigned(attr.phys_port_cnt));
        }
        if (port == 0)
            port = first_active_port(ctx, attr, states);
        if (port != 0) {
            out.context = ctx;
            out.name = name;
            out.port = port;
            out.device_attr = attr;
            return NGX_OK;
        }
        ibv_close_device(ctx);
    }
    if (!req.name.empty() && states.empty())
        return fail(err, NGX_ERR_INVALID_OPTION, "--ibv-device %s: no such RDMA device (have: %s)", req.name.c_str(),
                    device_names(devices).c_str());
    return fail(err, NGX_ERR_NO_DEVICE, "no RDMA device with an ACTIVE port (%s)", states.c_str());
}

ngx_status check_port(DeviceChoice& dev, ngx_error* err)
{
    if (ibv_query_port(dev.context, dev.port, &dev.port_attr) != 0)
        return fail(err, NGX_ERR_SYSTEM, "ibv_query_port(%s, %u): %s", dev.name.c_str(), unsigned(dev.port),
                    mod::errno_text(errno));
    if (dev.port_attr.state != IBV_PORT_ACTIVE)
        return fail(err, NGX_ERR_NO_DEVICE, "%s port %u is %s, not ACTIVE", dev.name.c_str(), unsigned(dev.port),
                    port_state_name(dev.port_attr.state));
    dev.ethernet = dev.port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
    return NGX_OK;
}

ngx_status pick_gid(const DeviceRequest& req, DeviceChoice& dev, ngx_error* err)
{
    std::vector<GidEntry> table = gid_table(dev);
    GidChoice choice = choose_gid(table, uint32_t(dev.port_attr.gid_tbl_len), dev.ethernet, req.gid);
    if (!choice.error.empty())
        return fail(err, req.gid ? NGX_ERR_INVALID_OPTION : NGX_ERR_NO_DEVICE, "%s%s port %u: %s",
                    req.gid ? "--ibv-gid: " : "", dev.name.c_str(), unsigned(dev.port), choice.error.c_str());
    dev.gid_index = choice.index;
    for (const GidEntry& e : table)
        if (int(e.index) == choice.index) {
            dev.gid = e.gid;
            dev.gid_type = e.type;
        }
    return NGX_OK;
}

} // namespace

const char* port_state_name(ibv_port_state state)
{
    switch (state) {
    case IBV_PORT_DOWN:
        return "DOWN";
    case IBV_PORT_INIT:
        return "INIT";
    case IBV_PORT_ARMED:
        return "ARMED";
    case IBV_PORT_ACTIVE:
        return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER:
        return "ACTIVE_DEFER";
    default:
        return "NOP";
    }
}

ngx_status open_device(const DeviceRequest& request, DeviceChoice& out, ngx_error* err)
{
    DeviceList devices;
    if (devices.list == nullptr || devices.count == 0)
        return fail(err, NGX_ERR_NO_DEVICE,
                    "no RDMA device (ibv_get_device_list found none; SoftRoCE: rdma link add rxe0 type rxe netdev "
                    "<netdev>)");
    DeviceChoice dev;
    if (ngx_status s = pick_device(request, devices, dev, err); s != NGX_OK)
        return s;
    ngx_status s = check_port(dev, err);
    if (s == NGX_OK)
        s = pick_gid(request, dev, err);
    if (s != NGX_OK) {
        close_device(dev);
        return s;
    }
    out = dev;
    return NGX_OK;
}

void close_device(DeviceChoice& dev)
{
    if (dev.context != nullptr)
        ibv_close_device(dev.context);
    dev.context = nullptr;
}

std::string describe(const DeviceChoice& dev)
{
    std::ostringstream text;
    text << dev.name << " port " << unsigned(dev.port);
    if (dev.gid_index >= 0)
        text << " gid[" << dev.gid_index << "] " << format_gid(dev.gid) << " (" << gid_type_name(dev.gid_type) << ")";
    else
        text << " lid " << dev.port_attr.lid << " (InfiniBand)";
    return text.str();
}

} // namespace ngx::ibv
