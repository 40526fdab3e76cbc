// One pair of a run's ranks measured while the other ranks idle: a
// two-rank Bootstrap for the pair (driver = rank 0 of the view, its partner
// = rank 1), whose every step is a relay step of the whole run (a gather of
// every rank's frame to rank 0 and a broadcast of all of them back, under
// the run's bootstrap and its deadlines), so that a measurement written for
// two ranks (barriers, rooted barriers, exchanges) runs unchanged between
// any two ranks of P. The idle ranks take part in every relay step until
// both ranks of the pair have said they finished.
//
// The steps are released by the run's rank 0 (its broadcast): rank 0 leaves
// a step first and the others one control-channel latency later, so a
// rooted barrier of the view is rooted at rank 0 whatever root it names.
// Under virtual time (sim --sim-clock virtual) the run's bootstrap carries
// the clocks, so every rank leaves a step at the latest rank's time.
//
//     PairRelay view(boot, driver, responder);        // on the pair's two ranks
//     Status measured = measure(context_over(view));
//     NGX_TRY(view.finish(measured));                  // every rank learns how it ended
//     ...
//     NGX_TRY(idle_while_pair_measures(boot, driver, responder, progress));  // on every other rank
#ifndef NGX_LOGHSSP_PAIR_RELAY_HPP
#define NGX_LOGHSSP_PAIR_RELAY_HPP

#include <ngx/bootstrap.hpp>
#include <ngx/progress.hpp>

#include <string>
#include <vector>

namespace ngx::patterns {

class PairRelay final : public Bootstrap {
public:
    // `all` must hold both ranks, driver != responder.
    PairRelay(Bootstrap& all, int driver, int responder);

    BootstrapKind kind() const override { return all_.kind(); }
    int rank() const override { return all_.rank() == driver_ ? 0 : 1; }
    int nranks() const override { return 2; }
    int peer() const override { return 1 - rank(); }
    bool is_driver() const override { return all_.rank() == driver_; }
    std::string local_address() const override { return all_.local_address(); }
    std::string peer_address() const override { return ""; } // the pair's link is open already (PeerLinks)

    Status raw_exchange(const Bytes& mine, Bytes& theirs) override;
    Status raw_broadcast(Bytes& value) override;
    Status raw_gather(const Bytes& mine, std::vector<Bytes>& all) override;

    // After the pair's measurement (`mine`: how it ended on this rank): relay
    // steps until every rank has ended, then the first failure, rank named.
    Status finish(const Status& mine);

private:
    // One step of the measurement: this rank's blob out, the partner's back.
    Result<Bytes> step(const Bytes& mine);

    Bootstrap& all_;
    int driver_, responder_;
    uint64_t steps_ = 0;
};

// What a rank outside the pair does while the pair measures: relay steps
// until both ranks of the pair have finished; a failure of either is the
// result (its rank named). `progress` is marked every step (the watchdog).
Status idle_while_pair_measures(Bootstrap& all, int driver, int responder, Progress* progress);

} // namespace ngx::patterns

#endif
