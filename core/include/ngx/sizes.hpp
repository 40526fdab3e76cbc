// Message-size lists from the command line.
//
// Grammar: a comma-separated list of items; an item is a size or a range
// START-END. A size is a decimal integer with an optional unit suffix:
// K/k = 1000, Ki = 1024, M = 10^6, Mi = 2^20, G = 10^9, Gi = 2^30.
// Ranges expand by one step rule: geometric (`--grade 2`: 1, 2, 4, ...) or
// linear (`--step 1024`); the end of a range is always included. The result
// is sorted and free of duplicates.
//
//     auto sizes = parse_sizes("1-64Ki", StepRule::geometric(2.0));
//     // 1, 2, 4, ..., 65536
#ifndef NGX_SIZES_HPP
#define NGX_SIZES_HPP

#include <ngx/status.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ngx {

struct StepRule {
    double grade = 2.0; // geometric factor (> 1) when step == 0
    uint64_t step = 0;  // linear increment when non-zero

    static StepRule geometric(double factor) { return {factor, 0}; }
    static StepRule linear(uint64_t increment) { return {0.0, increment}; }
};

// The largest message size ngx accepts (1 GiB) and the most sizes one list may hold.
inline constexpr uint64_t max_message_bytes = uint64_t(1) << 30;
inline constexpr size_t max_size_count = 100000;

// One size with its unit, e.g. "64Ki" -> 65536.
Result<uint64_t> parse_byte_count(std::string_view text);

Result<std::vector<uint64_t>> parse_sizes(std::string_view text, StepRule rule);

// "1 B", "4 KiB", "1 MiB" when exact, otherwise the plain byte count.
std::string format_bytes(uint64_t bytes);

} // namespace ngx

#endif
