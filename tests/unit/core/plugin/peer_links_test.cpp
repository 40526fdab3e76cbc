// Per-peer links opened collectively: ranks as threads over an in-memory
// bootstrap (gather and broadcast only, as the relay needs), odd and even P,
// and a rank that fails its link: every rank ends with an error naming it.
#include <ngx/peer_links.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace ngx {
namespace {

// The collectives of P threads, each call matched by its sequence number.
class Hub {
public:
    explicit Hub(int nranks) : nranks_(nranks) {}

    Status gather(int rank, uint64_t call, const Bytes& mine, std::vector<Bytes>& all)
    {
        std::unique_lock<std::mutex> lock(mutex_);
        std::vector<Bytes>& slots = gathered_[call];
        slots.resize(size_t(nranks_));
        slots[size_t(rank)] = mine;
        ++arrived_[call];
        changed_.notify_all();
        if (rank != 0)
            return Status::ok();
        if (!changed_.wait_for(lock, deadline, [&] { return arrived_[call] == nranks_; }))
            return Status::runtime("gather: a rank never came");
        all = gathered_[call];
        return Status::ok();
    }

    Status broadcast(int rank, uint64_t call, Bytes& value)
    {
        std::unique_lock<std::mutex> lock(mutex_);
        if (rank == 0) {
            broadcasts_[call] = value;
            changed_.notify_all();
            return Status::ok();
        }
        if (!changed_.wait_for(lock, deadline, [&] { return broadcasts_.count(call) != 0; }))
            return Status::runtime("broadcast: rank 0 never came");
        value = broadcasts_[call];
        return Status::ok();
    }

private:
    static constexpr std::chrono::seconds deadline{10};
    int nranks_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<uint64_t, std::vector<Bytes>> gathered_;
    std::map<uint64_t, int> arrived_;
    std::map<uint64_t, Bytes> broadcasts_;
};

class ThreadBootstrap final : public Bootstrap {
public:
    ThreadBootstrap(Hub& hub, int rank, int nranks) : hub_(hub), rank_(rank), nranks_(nranks) {}
    BootstrapKind kind() const override { return BootstrapKind::local; }
    int rank() const override { return rank_; }
    int nranks() const override { return nranks_; }
    std::string local_address() const override { return "addr" + std::to_string(rank_); }
    std::string peer_address() const override { return ""; }
    bool has_pair_channel() const override { return false; }
    Status raw_exchange(const Bytes&, Bytes&) override { return Status::runtime("no pairwise exchange here"); }
    Status raw_broadcast(Bytes& value) override { return hub_.broadcast(rank_, calls_++, value); }
    Status raw_gather(const Bytes& mine, std::vector<Bytes>& all) override
    {
        return hub_.gather(rank_, calls_++, mine, all);
    }

private:
    Hub& hub_;
    int rank_, nranks_;
    uint64_t calls_ = 0;
};

std::vector<Link> all_links(int nranks)
{
    std::vector<Link> links;
    for (int a = 0; a < nranks; ++a)
        for (int b = a + 1; b < nranks; ++b)
            links.push_back({a, b});
    return links;
}

// Runs `body` as every rank of an nranks-thread run; returns each rank's status.
std::vector<Status> run_ranks(int nranks, const std::function<Status(Bootstrap&)>& body)
{
    Hub hub(nranks);
    std::vector<Status> results(static_cast<size_t>(nranks));
    std::vector<std::thread> threads;
    for (int rank = 0; rank < nranks; ++rank)
        threads.emplace_back([&, rank] {
            ThreadBootstrap boot(hub, rank, nranks);
            results[size_t(rank)] = body(boot);
        });
    for (std::thread& t : threads)
        t.join();
    return results;
}

// A bootstrap that knows the hosts of the even ranks first-hand (as
// --listen/--connect knows every rank's).
class KnownHosts final : public Bootstrap, public HostDirectory {
public:
    BootstrapKind kind() const override { return BootstrapKind::tcp; }
    int rank() const override { return 0; }
    int nranks() const override { return 4; }
    std::string local_address() const override { return "10.0.0.1"; }
    std::string peer_address() const override { return ""; }
    std::string host_address_of(int rank) const override
    {
        return rank % 2 == 0 ? "10.0.0." + std::to_string(rank / 2 + 1) : "";
    }
    Status raw_exchange(const Bytes&, Bytes&) override { return Status::runtime("unused"); }
    Status raw_broadcast(Bytes&) override { return Status::runtime("unused"); }
    Status raw_gather(const Bytes&, std::vector<Bytes>&) override { return Status::runtime("unused"); }
};

TEST(PeerLinks, LinksDialTheHostTheBootstrapKnowsNotWhatARankSays)
{
    KnownHosts boot;
    std::vector<std::string> said = {"192.0.2.9", "addr1", "192.0.2.9", "addr3"};
    EXPECT_EQ(link_addresses(boot, said), (std::vector<std::string>{"10.0.0.1", "addr1", "10.0.0.2", "addr3"}));
    Hub hub(2);
    ThreadBootstrap none(hub, 0, 2); // knows no host: the ranks' own word
    EXPECT_EQ(link_addresses(none, {"addr0", "addr1"}), (std::vector<std::string>{"addr0", "addr1"}));
}

TEST(PeerLinks, MatchingsNeverUseARankTwiceAndKeepEveryLink)
{
    std::vector<Link> links = all_links(7);
    std::vector<std::vector<Link>> matchings = split_into_matchings(links);
    size_t total = 0;
    for (const std::vector<Link>& matching : matchings) {
        std::vector<int> used;
        for (const Link& link : matching) {
            EXPECT_EQ(std::count(used.begin(), used.end(), link.first), 0);
            EXPECT_EQ(std::count(used.begin(), used.end(), link.second), 0);
            used.push_back(link.first);
            used.push_back(link.second);
        }
        total += matching.size();
    }
    EXPECT_EQ(total, links.size());
}

class Collective : public ::testing::TestWithParam<int> {};

TEST_P(Collective, EveryLinksTwoRanksExchangeWithEachOther)
{
    const int nranks = GetParam();
    std::vector<std::vector<int>> opened(static_cast<size_t>(nranks));
    std::vector<Status> results = run_ranks(nranks, [&](Bootstrap& boot) {
        return open_links_collectively(
            boot, all_links(nranks),
            [&](Bootstrap& to_peer) -> Status {
                const int me = to_peer.rank(), peer = to_peer.peer();
                Bytes theirs;
                NGX_TRY(
                    to_peer.exchange(to_bytes(std::to_string(me) + ">" + std::to_string(peer)), theirs, "test: hello"));
                if (to_string(theirs) != std::to_string(peer) + ">" + std::to_string(me))
                    return Status::runtime("rank " + std::to_string(me) + " got '" + to_string(theirs) + "'");
                if (to_peer.peer_address() != "addr" + std::to_string(peer))
                    return Status::runtime("wrong peer address " + to_peer.peer_address());
                NGX_TRY(to_peer.barrier("test: barrier"));
                opened[size_t(me)].push_back(peer);
                return Status::ok();
            },
            {"addr0", "addr1", "addr2", "addr3", "addr4", "addr5", "addr6"});
    });
    for (int rank = 0; rank < nranks; ++rank) {
        EXPECT_TRUE(results[size_t(rank)].is_ok()) << results[size_t(rank)].message();
        std::sort(opened[size_t(rank)].begin(), opened[size_t(rank)].end());
        std::vector<int> others;
        for (int peer = 0; peer < nranks; ++peer)
            if (peer != rank)
                others.push_back(peer);
        EXPECT_EQ(opened[size_t(rank)], others) << "rank " << rank;
    }
}

INSTANTIATE_TEST_SUITE_P(OddAndEven, Collective, ::testing::Values(2, 3, 5, 6));

TEST(PeerLinks, AFailedLinkEndsEveryRankWithAnErrorNamingIt)
{
    std::vector<Status> results = run_ranks(4, [](Bootstrap& boot) {
        return open_links_collectively(boot, all_links(4), [](Bootstrap& to_peer) -> Status {
            if (to_peer.rank() == 2 && to_peer.peer() == 3)
                return Status::runtime("no route");
            Bytes theirs;
            return to_peer.exchange(to_bytes("hello"), theirs, "test: hello");
        });
    });
    for (int rank = 0; rank < 4; ++rank) {
        ASSERT_FALSE(results[size_t(rank)].is_ok()) << "rank " << rank << " did not see the failure";
        if (rank != 2 && rank != 3) {
            EXPECT_NE(results[size_t(rank)].message().find("rank 2 could not open its link"), std::string::npos)
                << results[size_t(rank)].message();
        }
    }
    EXPECT_NE(results[2].message().find("no route"), std::string::npos) << results[2].message();
    EXPECT_NE(results[3].message().find("rank 2"), std::string::npos) << results[3].message();
}

} // namespace
} // namespace ngx
