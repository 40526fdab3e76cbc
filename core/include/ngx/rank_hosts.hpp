// Which host each rank runs on, so that a layout can tell an intra-node pair
// from an inter-node one. The names come from each rank's host name
// (gathered through the bootstrap), or, for emulated nodes that share one
// kernel's host name, from the user: `--host-of a,a,b,b` (rank i on the i-th
// name) or a host file (one name per line, rank i on line i; # comments).
//
//     Result<RankHosts> hosts = parse_host_of("n0,n0,n1,n1", 4);
//     hosts->same_node(0, 1);   // true: an intra-node pair
//     hosts->nodes();           // {"n0", "n1"}
#ifndef NGX_RANK_HOSTS_HPP
#define NGX_RANK_HOSTS_HPP

#include <ngx/bootstrap.hpp>
#include <ngx/status.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ngx {

class RankHosts {
public:
    RankHosts() = default;
    explicit RankHosts(std::vector<std::string> host_of_rank) : hosts_(std::move(host_of_rank)) {}

    int nranks() const { return int(hosts_.size()); }
    const std::string& of(int rank) const { return hosts_.at(size_t(rank)); }
    bool same_node(int a, int b) const { return of(a) == of(b); }
    // The distinct hosts, in the order of their first rank.
    std::vector<std::string> nodes() const;
    const std::vector<std::string>& by_rank() const { return hosts_; }

private:
    std::vector<std::string> hosts_;
};

// The first `nranks` names of `names`; fewer names than ranks, or an empty
// name, is a usage error that says where the names came from (`source`).
Result<RankHosts> hosts_for_ranks(const std::vector<std::string>& names, int nranks, std::string_view source);
// --host-of: names separated by commas.
Result<RankHosts> parse_host_of(std::string_view list, int nranks);
// A host file: one name per line; blank lines and # comments are skipped.
Result<RankHosts> read_host_file(const std::string& path, int nranks);

// The hosts of a run's ranks: from --host-of (`host_of`: a list, or @FILE)
// when given, else every rank's host name gathered through the bootstrap.
Result<RankHosts> hosts_of_run(Bootstrap& boot, const std::string& host_of);

// This machine's host name (gethostname; "localhost" if it has none).
std::string local_host_name();
// Every rank's `mine` (its host name) reaches every rank, in rank order.
Result<RankHosts> gather_hosts(Bootstrap& boot, const std::string& mine);

} // namespace ngx

#endif
