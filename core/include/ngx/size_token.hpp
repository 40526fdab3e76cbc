// Sizes as a table prints them for scripts and the units -s reads.
//
// A table row gives a size twice: the plain byte count, which a script reads,
// and beside it the same size in binary units as one token, so that columns
// split on blanks stay aligned ("4096 4KiB", never "4 KiB").
//
//     size_token(65536);   // "64KiB"
//     size_token(1000);    // "1000B"
#ifndef NGX_SIZE_TOKEN_HPP
#define NGX_SIZE_TOKEN_HPP

#include <cstdint>
#include <string>

namespace ngx {

// format_bytes (ngx/sizes.hpp) without its blank: "1B", "4KiB", "1MiB".
std::string size_token(uint64_t bytes);

// How -s reads its units, for messages and run headers.
inline constexpr const char* size_units_text = "K = 1000, Ki = 1024, M = 10^6, Mi = 2^20, G = 10^9, Gi = 2^30";

} // namespace ngx

#endif
