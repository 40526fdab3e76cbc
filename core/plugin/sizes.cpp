// Parses size lists such as "1-64Ki", "1,8,64,4K" and "0-1M" (see sizes.hpp).
#include <ngx/size_token.hpp>
#include <ngx/sizes.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ngx {
namespace {

struct Unit {
    std::string_view suffix;
    uint64_t factor;
};

// Longest suffixes first so that "Ki" is not read as "K" + junk.
constexpr Unit units[] = {
    {"Ki", uint64_t(1) << 10},
    {"Mi", uint64_t(1) << 20},
    {"Gi", uint64_t(1) << 30},
    {"K", 1000},
    {"k", 1000},
    {"M", 1000000},
    {"G", 1000000000},
    {"B", 1},
    {"", 1},
};

Status bad_size(std::string_view text, const std::string& why)
{
    return Status::usage("invalid size '" + std::string(text) + "': " + why + " (units: " + size_units_text + ")");
}

Result<uint64_t> unit_factor(std::string_view text, std::string_view suffix)
{
    for (const Unit& unit : units)
        if (suffix == unit.suffix)
            return unit.factor;
    return bad_size(text, "unknown unit '" + std::string(suffix) + "' (use K, Ki, M, Mi, G or Gi)");
}

std::vector<std::string_view> split(std::string_view text, char separator)
{
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == separator) {
            parts.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    return parts;
}

Status expand_range(uint64_t first, uint64_t last, StepRule rule, std::vector<uint64_t>& out)
{
    uint64_t value = first;
    while (value < last) {
        out.push_back(value);
        if (out.size() > max_size_count)
            return Status::usage("size list expands to more than " + std::to_string(max_size_count) +
                                 " sizes; use a larger --grade or --step");
        uint64_t next = rule.step != 0 ? value + rule.step : uint64_t(std::floor(double(value) * rule.grade));
        value = std::max(next, value + 1);
    }
    out.push_back(last);
    return Status::ok();
}

Status parse_item(std::string_view item, StepRule rule, std::vector<uint64_t>& out)
{
    if (item.empty())
        return Status::usage("empty item in size list (two commas in a row, or a trailing comma?)");
    size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
        NGX_ASSIGN_OR_RETURN(uint64_t size, parse_byte_count(item));
        out.push_back(size);
        return Status::ok();
    }
    if (dash == 0)
        return bad_size(item, "sizes cannot be negative and a range needs a start");
    NGX_ASSIGN_OR_RETURN(uint64_t first, parse_byte_count(item.substr(0, dash)));
    NGX_ASSIGN_OR_RETURN(uint64_t last, parse_byte_count(item.substr(dash + 1)));
    if (last <= first)
        return Status::usage("invalid size range '" + std::string(item) + "': its end must be larger than its start");
    return expand_range(first, last, rule, out);
}

} // namespace

Result<uint64_t> parse_byte_count(std::string_view text)
{
    if (text.empty())
        return bad_size(text, "empty");
    uint64_t number = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (end == text.data())
        return bad_size(text, text.front() == '-' ? "sizes cannot be negative" : "not a number");
    if (error == std::errc::result_out_of_range)
        return bad_size(text, "too large");
    NGX_ASSIGN_OR_RETURN(uint64_t factor, unit_factor(text, std::string_view(end, text.data() + text.size() - end)));
    if (number > max_message_bytes / factor)
        return bad_size(text, "larger than the limit of 1 GiB");
    return number * factor;
}

Result<std::vector<uint64_t>> parse_sizes(std::string_view text, StepRule rule)
{
    if (rule.step == 0 && !(rule.grade > 1.0 && std::isfinite(rule.grade)))
        return Status::usage("--grade must be a number larger than 1");
    if (text.empty())
        return Status::usage("the size list is empty");
    std::vector<uint64_t> sizes;
    for (std::string_view item : split(text, ','))
        NGX_TRY(parse_item(item, rule, sizes));
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

std::string format_bytes(uint64_t bytes)
{
    if (bytes >= (uint64_t(1) << 30) && bytes % (uint64_t(1) << 30) == 0)
        return std::to_string(bytes >> 30) + " GiB";
    if (bytes >= (uint64_t(1) << 20) && bytes % (uint64_t(1) << 20) == 0)
        return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= 1024 && bytes % 1024 == 0)
        return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " B";
}

std::string size_token(uint64_t bytes)
{
    std::string text = format_bytes(bytes);
    text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
    return text;
}

} // namespace ngx
