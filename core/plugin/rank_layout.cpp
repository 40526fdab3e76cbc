// The rounds of each rank layout (see rank_layout.hpp).
#include <ngx/rank_layout.hpp>

#include <algorithm>
#include <numeric>

namespace ngx {
namespace {

struct Named {
    LayoutKind kind;
    std::string_view name;
};

constexpr Named layout_names[] = {
    {LayoutKind::fixed_pairs, "fixed-pairs"},
    {LayoutKind::shift_rounds, "shift"},
    {LayoutKind::one_at_a_time, "one-at-a-time"},
    {LayoutKind::random_matchings, "random-matchings"},
    {LayoutKind::one_to_many, "one-to-many"},
    {LayoutKind::many_to_one, "many-to-one"},
    {LayoutKind::group, "group"},
};

// Both directions between a and b.
void add_pair(Round& round, int a, int b)
{
    round.transfers.push_back({a, b});
    round.transfers.push_back({b, a});
}

std::vector<Round> fixed_pairs(int nranks)
{
    Round round;
    const int half = nranks / 2;
    for (int i = 0; i < half; ++i)
        add_pair(round, i, i + half);
    return {round};
}

std::vector<Round> shift_rounds(int nranks)
{
    std::vector<Round> rounds(size_t(nranks - 1));
    for (int r = 1; r < nranks; ++r)
        for (int i = 0; i < nranks; ++i)
            rounds[size_t(r - 1)].transfers.push_back({i, (i + r) % nranks});
    return rounds;
}

std::vector<Round> one_at_a_time(int nranks)
{
    std::vector<Round> rounds;
    for (int from = 0; from < nranks; ++from)
        for (int to = 0; to < nranks; ++to)
            if (from != to)
                rounds.push_back(Round{{{from, to}}, false});
    return rounds;
}

// A small, portable generator (splitmix64), so that a seed gives the same
// matchings with every standard library.
class SplitMix {
public:
    explicit SplitMix(uint64_t seed) : state_(seed) {}
    uint64_t next()
    {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // Uniform in [0, bound), without modulo bias.
    uint64_t below(uint64_t bound)
    {
        const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
        uint64_t value = 0;
        do
            value = next();
        while (value >= limit);
        return value % bound;
    }

private:
    uint64_t state_;
};

std::vector<Round> random_matchings(int nranks, uint64_t count, uint64_t seed)
{
    SplitMix random(seed);
    std::vector<int> order(size_t(nranks), 0);
    std::vector<Round> rounds;
    for (uint64_t k = 0; k < count; ++k) {
        std::iota(order.begin(), order.end(), 0);
        for (size_t i = order.size() - 1; i > 0; --i) // Fisher-Yates
            std::swap(order[i], order[size_t(random.below(i + 1))]);
        Round round;
        for (size_t i = 0; i + 1 < order.size(); i += 2)
            add_pair(round, order[i], order[i + 1]);
        rounds.push_back(std::move(round));
    }
    return rounds;
}

// Round n = 1..P-1: the root and the n ranks after it (cyclically).
std::vector<Round> root_rounds(int nranks, int root, bool root_sends)
{
    std::vector<Round> rounds;
    for (int n = 1; n < nranks; ++n) {
        Round round;
        for (int k = 1; k <= n; ++k) {
            int other = (root + k) % nranks;
            round.transfers.push_back(root_sends ? Transfer{root, other} : Transfer{other, root});
        }
        rounds.push_back(std::move(round));
    }
    return rounds;
}

} // namespace

std::string_view layout_name(LayoutKind kind)
{
    for (const Named& named : layout_names)
        if (named.kind == kind)
            return named.name;
    return "unknown";
}

Result<LayoutKind> parse_layout(std::string_view name)
{
    std::string known;
    for (const Named& named : layout_names) {
        if (named.name == name)
            return named.kind;
        known += (known.empty() ? "" : ", ") + std::string(named.name);
    }
    return Status::usage("unknown rank layout '" + std::string(name) + "' (known: " + known + ")");
}

Result<std::vector<Round>> plan_layout(const LayoutRequest& request)
{
    const std::string name(layout_name(request.kind));
    if (request.nranks < 2)
        return Status::usage("layout " + name + " needs at least 2 ranks, the run has " +
                             std::to_string(request.nranks));
    switch (request.kind) {
    case LayoutKind::fixed_pairs:
        return fixed_pairs(request.nranks);
    case LayoutKind::shift_rounds:
        return shift_rounds(request.nranks);
    case LayoutKind::one_at_a_time:
        return one_at_a_time(request.nranks);
    case LayoutKind::random_matchings:
        if (request.rounds == 0)
            return Status::usage("layout random-matchings needs at least one matching (K = 0 given)");
        return random_matchings(request.nranks, request.rounds, request.seed);
    case LayoutKind::one_to_many:
    case LayoutKind::many_to_one:
        if (request.root < 0 || request.root >= request.nranks)
            return Status::usage("layout " + name + ": root rank " + std::to_string(request.root) +
                                 " is not one of the run's ranks 0.." + std::to_string(request.nranks - 1));
        return root_rounds(request.nranks, request.root, request.kind == LayoutKind::one_to_many);
    case LayoutKind::group:
        return std::vector<Round>{Round{{}, true}};
    }
    return Status::usage("unknown rank layout");
}

RoundRole role_of(const Round& round, int rank)
{
    RoundRole role;
    for (const Transfer& t : round.transfers) {
        if (t.from == rank)
            role.send_to.push_back(t.to);
        if (t.to == rank)
            role.recv_from.push_back(t.from);
    }
    return role;
}

std::vector<int> peers_of(const std::vector<Round>& rounds, int rank)
{
    std::vector<int> peers;
    for (const Round& round : rounds)
        for (const Transfer& t : round.transfers)
            if (t.from == rank || t.to == rank)
                peers.push_back(t.from == rank ? t.to : t.from);
    std::sort(peers.begin(), peers.end());
    peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
    return peers;
}

} // namespace ngx
