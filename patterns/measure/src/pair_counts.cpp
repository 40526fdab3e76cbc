// k concurrent pairs between the two halves of a run (see pair_counts.hpp).
#include <ngx/measure/pair_counts.hpp>

#include <ngx/options.hpp>

#include <algorithm>

namespace ngx::patterns {

Result<std::vector<uint64_t>> parse_pair_counts(const std::string& option, const std::string& text)
{
    std::vector<uint64_t> pairs;
    std::vector<std::string> items = opt::split_list(text);
    for (const std::string& item : items) {
        opt::Parsed<uint64_t> k = opt::whole_number(option, item, 1, max_pair_count);
        if (!k)
            return Status::usage(opt::bad_value(option, text,
                                                "expected a pair count K (1.." + std::to_string(max_pair_count) +
                                                    ") or a list of them; at least 1 pair"));
        pairs.push_back(*k);
    }
    if (items.size() == 1) {
        uint64_t k_max = pairs.front();
        pairs.clear();
        for (uint64_t k = 1; k <= k_max; ++k)
            pairs.push_back(k);
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    return pairs;
}

Status resolve_pair_counts(std::vector<uint64_t>& pairs, const Bootstrap& boot, const std::string& option)
{
    uint64_t available = uint64_t(boot.nranks() / 2);
    if (pairs.empty())
        for (uint64_t k = 1; k <= available; ++k)
            pairs.push_back(k);
    if (pairs.back() <= available)
        return Status::ok();
    std::string want = std::to_string(2 * pairs.back());
    std::string launch = boot.kind() == BootstrapKind::mpi ? "start 2K ranks: mpirun -np " + want
                         : boot.kind() == BootstrapKind::local
                             ? "start them with --pairs " + std::to_string(pairs.back())
                             : "start them with --pairs " + std::to_string(pairs.back()) + " on the --connect side";
    return Status::usage(option + ": " + std::to_string(pairs.back()) + " pairs need " + want +
                         " ranks, this run has " + std::to_string(boot.nranks()) + " (" + std::to_string(available) +
                         " pairs); " + launch);
}

} // namespace ngx::patterns
