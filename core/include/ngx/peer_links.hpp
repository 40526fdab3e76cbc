// Per-peer links for rank layouts (module ABI 1.5): a pattern walking the
// rounds of a layout (ngx/rank_layout.hpp) asks for the links of each round
// before it uses them; links are opened lazily, the first time a round needs
// them, and kept.
//
// Opening is collective: every rank calls open_for() with the same round.
// The new links are split into matchings (no rank in two links of one
// matching); in each, the two ranks of a link run the module's open_link
// together while the others wait. A link's exchanges go through the run's
// bootstrap as relay steps (a gather to rank 0 and a broadcast back), so
// this works under every bootstrap (local fork, --listen/--connect, MPI)
// with the bootstrap's deadline on every step; a rank that fails ends the
// step for all with an error that names it.
//
//     NGX_TRY(PeerLinks::check_module(transport.module(), LayoutKind::shift_rounds, rounds, boot.nranks()));
//     Result<PeerLinks> links = PeerLinks::create(transport, boot, LayoutKind::shift_rounds);
//     for (const Round& round : rounds) {
//         NGX_TRY(links.open_for(round));
//         NGX_TRY(links.use(role_of(round, me).send_to[0]));
//         ...
//     }
#ifndef NGX_PEER_LINKS_HPP
#define NGX_PEER_LINKS_HPP

#include <ngx/bootstrap.hpp>
#include <ngx/rank_layout.hpp>
#include <ngx/status.hpp>
#include <ngx/transport.hpp>

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ngx {

// An unordered pair of ranks (first < second): one link.
using Link = std::pair<int, int>;
Link link_between(int a, int b);

// The links of `links` split into matchings, greedily in the given order;
// the same input gives the same matchings on every rank.
std::vector<std::vector<Link>> split_into_matchings(const std::vector<Link>& links);

// The collective core of PeerLinks, apart from any module (so that it can be
// tested with threads): for every link of `links`, its two ranks call
// `open_one` with a bootstrap addressed to the other one (its peer_address()
// from `addresses`, by rank); every rank of `boot` calls this with the same
// `links`.
Status open_links_collectively(Bootstrap& boot, const std::vector<Link>& links,
                               const std::function<Status(Bootstrap& to_peer)>& open_one,
                               const std::vector<std::string>& addresses = {});

// The address the links to each rank dial: known_host_address(boot, r)
// where the bootstrap knows rank r's host first-hand, else what rank r said
// of itself (`relayed[r]`, its local_address()).
std::vector<std::string> link_addresses(const Bootstrap& boot, const std::vector<std::string>& relayed);

class PeerLinks {
public:
    // Collective: learns which link each rank's connect() opened: none for a
    // module with per-peer links (connect only set it up, see
    // PatternInfo::layouts), else the one to the bootstrap's peer.
    static Result<PeerLinks> create(Transport& transport, Bootstrap& boot, LayoutKind layout);

    // A usage error naming the module and the layout when the layout needs
    // more than one peer for some rank and the module has no per-peer links.
    // (A module without them runs layouts whose links are those of fixed pairs.)
    static Status check_module(const LoadedModule& module, LayoutKind layout, const std::vector<Round>& rounds,
                               int nranks);

    // Collective: opens the links of `round` that are not open yet.
    Status open_for(const Round& round);
    // The following send/recv address `peer` (its link must be open).
    Status use(int peer);
    bool is_open(int a, int b) const { return open_.count(link_between(a, b)) != 0; }

private:
    PeerLinks(Transport& transport, Bootstrap& boot, LayoutKind layout, std::set<Link> open)
            : transport_(&transport), boot_(&boot), layout_(layout), open_(std::move(open))
    {
    }
    Transport* transport_;
    Bootstrap* boot_;
    LayoutKind layout_;
    std::set<Link> open_;                // every rank's links: the same set on every rank
    std::vector<std::string> addresses_; // every rank's host: known_host_address(), else its local_address()
    int connect_peer_ = -1;
    int current_ = -1;
};

} // namespace ngx

#endif
