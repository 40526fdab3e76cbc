// A bootstrap that carries simulated time (sim --sim-clock virtual).
//
// In virtual time every process has its own clock, which only its module's
// calls advance. Messages of the simulated network carry their arrival time,
// so the clocks stay causal through the module; what the processes say to
// each other through the bootstrap (a pattern's barriers, rooted barriers,
// exchanges) must carry time as well, or a barrier would leave the peers'
// clocks apart. This decorator appends the sender's clock to every blob and
// advances the receiver's clock to it, as a message that costs nothing: a
// barrier (an exchange of two ranks, or a gather and a broadcast) releases
// every rank at the latest rank's time, as a perfect barrier would.
//
//     VirtualBootstrap timed(boot, clock);   // clock: Transport::virtual_clock()
//     PatternContext context{transport, timed, Timer::virtual_time(clock), ...};
#ifndef NGX_VIRTUAL_BOOTSTRAP_HPP
#define NGX_VIRTUAL_BOOTSTRAP_HPP

#include <ngx/bootstrap.hpp>

namespace ngx {

class VirtualBootstrap : public Bootstrap, public HostDirectory {
public:
    VirtualBootstrap(Bootstrap& inner, const ngx_virtual_clock& clock) : inner_(inner), clock_(clock) {}

    BootstrapKind kind() const override { return inner_.kind(); }
    int rank() const override { return inner_.rank(); }
    int nranks() const override { return inner_.nranks(); }
    int peer() const override { return inner_.peer(); }
    bool is_driver() const override { return inner_.is_driver(); }
    std::string local_address() const override { return inner_.local_address(); }
    std::string peer_address() const override { return inner_.peer_address(); }
    std::string host_address_of(int rank) const override { return known_host_address(inner_, rank); }

    bool has_pair_channel() const override { return inner_.has_pair_channel(); }
    Status raw_exchange(const Bytes& mine, Bytes& theirs) override;
    Status raw_broadcast(Bytes& value) override;
    Status raw_gather(const Bytes& mine, std::vector<Bytes>& all) override;

private:
    Bytes stamped(const Bytes& blob) const;
    // Strips the stamp off `blob` and advances this clock to it.
    Status take_stamp(Bytes& blob, const char* step) const;

    Bootstrap& inner_;
    ngx_virtual_clock clock_;
};

} // namespace ngx

#endif
