// libFuzzer target: the size-list and byte-count parsers of the command line
// (core/include/ngx/sizes.hpp) and the option-value parsers every module uses
// (ngx::mod::parse_unsigned / parse_double). The first byte picks the step
// rule; the rest is the text. Any result is fine; a crash, a sanitizer report
// or an invariant broken here is a bug.
#include <ngx/module_support.hpp>
#include <ngx/sizes.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

ngx::StepRule rule_of(uint8_t byte)
{
    if (byte & 0x80)
        return ngx::StepRule::linear(uint64_t(byte & 0x7f) * 97 + 1);
    return ngx::StepRule::geometric(1.0001 + double(byte) / 8.0);
}

void check_sizes(const std::string& text, ngx::StepRule rule)
{
    ngx::Result<std::vector<uint64_t>> sizes = ngx::parse_sizes(text, rule);
    if (!sizes) {
        if (sizes.status().message().empty())
            std::abort(); // an error must say what is wrong
        return;
    }
    if (sizes->empty() || sizes->size() > ngx::max_size_count)
        std::abort();
    for (size_t i = 0; i < sizes->size(); ++i)
        if ((*sizes)[i] > ngx::max_message_bytes || (i > 0 && (*sizes)[i] <= (*sizes)[i - 1]))
            std::abort(); // sorted, unique, within the limit
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    check_sizes(text, rule_of(data[0]));
    ngx::Result<uint64_t> bytes = ngx::parse_byte_count(text);
    if (bytes && ngx::format_bytes(*bytes).empty())
        std::abort();
    (void)ngx::mod::parse_unsigned(text.c_str(), 0, UINT64_MAX);
    (void)ngx::mod::parse_double(text.c_str(), -1e300, 1e300);
    return 0;
}
