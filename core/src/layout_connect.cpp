// Connecting a module for a pattern (see layout_connect.hpp).
#include "layout_connect.hpp"

namespace ngx {
namespace {

// The view connect() gets for a layout pattern: this rank as its own peer,
// nothing to exchange (the links come later, from open_link).
class SetupOnlyBootstrap final : public Bootstrap {
public:
    explicit SetupOnlyBootstrap(Bootstrap& all) : all_(all) {}
    BootstrapKind kind() const override { return all_.kind(); }
    int rank() const override { return all_.rank(); }
    int nranks() const override { return all_.nranks(); }
    int peer() const override { return all_.rank(); }
    bool is_driver() const override { return all_.rank() == 0; }
    std::string local_address() const override { return all_.local_address(); }
    std::string peer_address() const override { return all_.local_address(); }
    Status raw_exchange(const Bytes&, Bytes&) override { return refuse(); }
    Status raw_broadcast(Bytes&) override { return refuse(); }
    Status raw_gather(const Bytes&, std::vector<Bytes>&) override { return refuse(); }

private:
    static Status refuse()
    {
        return Status::runtime("connect for a rank layout sets the module up only: it has no peer to talk to yet");
    }
    Bootstrap& all_;
};

} // namespace

Status connect_for_pattern(Transport& transport, Bootstrap& boot, const PatternInfo& pattern)
{
    if (pattern.layouts.empty())
        return transport.connect(boot);
    if (!transport.has(NGX_CAP_PEER_LINKS))
        return Status::usage("module " + transport.module().name() + " cannot run pattern " + pattern.name +
                             " (rank layout " + std::string(layout_name(pattern.layouts.front())) +
                             "): it keeps one link per process and has no per-peer links (NGX_CAP_PEER_LINKS, "
                             "module ABI 1.5; docs/layouts.md lists the modules that have them)");
    SetupOnlyBootstrap setup(boot);
    return transport.connect(setup);
}

} // namespace ngx
