// Option values: one parser per kind of value, each with its range, and one
// message format for every bad value, used alike by the command line, the
// patterns, the modules and the subcommands:
//
//     --NAME 'VALUE': WHY          e.g.  --loggp-n '1': expected a whole number in 2..10000
//
// Header-only and free of the core's types, so an out-of-tree module can use
// it with nothing but the installed headers. A pattern or module reads its
// options through an OptionReader, which keeps the first error:
//
//     ngx::opt::OptionReader read(values);
//     uint64_t n = read.whole_number("loggp-n", 2, 10000);
//     std::string detector = read.choice("loggp-detector", {"robust", "paper", "none"});
//     if (!read.ok()) return Status::usage(read.error());
//
// Options are declared as OptionSpec lists; the core's command-line layer
// turns them into --help text and hands back OptionValues (name -> text,
// defaults filled in).
#ifndef NGX_OPTIONS_HPP
#define NGX_OPTIONS_HPP

#include <ngx/module.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ngx {

// Every option of one module, pattern or command: name (without "--") and text.
using OptionValues = std::vector<std::pair<std::string, std::string>>;

namespace opt {

enum class OptionKind {
    value,       // takes a value
    flag,        // present or absent; its value is "1" when given
    output_file, // a value that names a file to write: checked before measuring
};

// One declared option. An empty default with has_default = false means the
// option is absent unless given.
struct OptionSpec {
    std::string name; // "loggp-n", spelled --loggp-n
    std::string default_value;
    std::string help;
    OptionKind kind = OptionKind::value;
    bool has_default = true;
    bool repeatable = false; // may be given several times (-o A -o B)
};

// An option without a default (absent unless the user gives it).
inline OptionSpec optional_value(std::string name, std::string help, OptionKind kind = OptionKind::value)
{
    return {std::move(name), "", std::move(help), kind, false};
}

inline OptionSpec flag(std::string name, std::string help)
{
    return {std::move(name), "", std::move(help), OptionKind::flag, false};
}

// The one message format for a bad value.
inline std::string bad_value(std::string_view name, std::string_view value, std::string_view why)
{
    return "--" + std::string(name) + " '" + std::string(value) + "': " + std::string(why);
}

// A parsed value or the message saying why it is not one.
template <typename T>
struct Parsed {
    std::optional<T> value;
    std::string error;

    explicit operator bool() const { return value.has_value(); }
    const T& operator*() const { return *value; }
};

template <typename T>
Parsed<T> failed(std::string_view name, std::string_view text, std::string_view why)
{
    return {std::nullopt, bad_value(name, text, why)};
}

// A number as people write it in a range: 1, 0.001, 1e+06 -> "1000000".
inline std::string number_text(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", value);
    return text;
}

inline std::string range_text(double min, double max)
{
    return number_text(min) + ".." + number_text(max);
}

// "a,b,,c" -> {"a", "b", "", "c"}; a trailing comma gives a last empty item.
inline std::vector<std::string> split_list(std::string_view text)
{
    std::vector<std::string> items;
    size_t start = 0;
    for (size_t comma; (comma = text.find(',', start)) != std::string_view::npos; start = comma + 1)
        items.emplace_back(text.substr(start, comma - start));
    items.emplace_back(text.substr(start));
    return items;
}

inline Parsed<uint64_t> whole_number(std::string_view name, std::string_view text, uint64_t min, uint64_t max)
{
    uint64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    std::string range = std::to_string(min) + ".." + std::to_string(max);
    if (text.empty() || end != text.data() + text.size() || error != std::errc())
        return failed<uint64_t>(name, text, "expected a whole number in " + range);
    if (value < min || value > max)
        return failed<uint64_t>(name, text, "must be in " + range);
    return {value, {}};
}

inline Parsed<double> number(std::string_view name, std::string_view text, double min, double max)
{
    double value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || end != text.data() + text.size() || error != std::errc() || !std::isfinite(value))
        return failed<double>(name, text, "expected a number in " + range_text(min, max));
    if (!(value >= min && value <= max))
        return failed<double>(name, text, "must be in " + range_text(min, max));
    return {value, {}};
}

// A percentage: "50%" or "50", in [min, max] percent.
inline Parsed<double> percentage(std::string_view name, std::string_view text, double min = 0, double max = 100)
{
    std::string_view digits = text.ends_with('%') ? text.substr(0, text.size() - 1) : text;
    Parsed<double> value = number(name, digits, min, max);
    if (!value)
        return failed<double>(name, text, "expected a percentage in " + range_text(min, max) + "%");
    return value;
}

// The factor of a size unit: "" 1, K/k 1000, Ki 1024, M 10^6, Mi 2^20, G 10^9, Gi 2^30.
inline std::optional<uint64_t> unit_factor(std::string_view unit)
{
    static constexpr std::pair<std::string_view, uint64_t> units[] = {
        {"", 1},           {"B", 1},          {"K", 1000},       {"k", 1000},      {"Ki", 1024},
        {"M", 1000000},    {"Mi", 1u << 20},  {"G", 1000000000}, {"Gi", 1u << 30}, {"KiB", 1024},
        {"MiB", 1u << 20}, {"GiB", 1u << 30}, {"KB", 1000},      {"MB", 1000000},  {"GB", 1000000000}};
    for (const auto& [suffix, factor] : units)
        if (unit == suffix)
            return factor;
    return std::nullopt;
}

// A byte count with an optional unit ("64Ki", "1M") in [min, max].
inline Parsed<uint64_t> byte_count(std::string_view name, std::string_view text, uint64_t min, uint64_t max)
{
    uint64_t count = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
    std::optional<uint64_t> factor = unit_factor(std::string_view(end, size_t(text.data() + text.size() - end)));
    bool valid = !text.empty() && end != text.data() && error == std::errc() && factor &&
                 count <= UINT64_MAX / *factor && count * *factor >= min && count * *factor <= max;
    if (!valid)
        return failed<uint64_t>(name, text,
                                "expected a size such as 4Ki in " + std::to_string(min) + ".." + std::to_string(max) +
                                    " bytes");
    return {count * *factor, {}};
}

// "robust, paper or none"
inline std::string choices_text(std::initializer_list<std::string_view> choices)
{
    std::string text;
    size_t i = 0;
    for (std::string_view choice : choices) {
        if (i > 0)
            text += i + 1 == choices.size() ? " or " : ", ";
        text += choice;
        ++i;
    }
    return text;
}

inline Parsed<std::string> choice(std::string_view name, std::string_view text,
                                  std::initializer_list<std::string_view> choices)
{
    for (std::string_view allowed : choices)
        if (text == allowed)
            return {std::string(text), {}};
    return failed<std::string>(name, text, "expected " + choices_text(choices));
}

inline const std::string* find(const OptionValues& values, std::string_view name)
{
    for (const auto& [key, value] : values)
        if (key == name)
            return &value;
    return nullptr;
}

// The options of a module's init(), as OptionValues.
inline OptionValues values_of(const ngx_init_args* args)
{
    OptionValues values;
    for (size_t i = 0; i < args->option_count; ++i)
        values.emplace_back(args->options[i].name, args->options[i].value ? args->options[i].value : "");
    return values;
}

// Reads typed values out of OptionValues, keeping the first error. A value
// asked for but absent is an error too (declare a default, or ask given()).
class OptionReader {
public:
    explicit OptionReader(OptionValues values) : values_(std::move(values)) {}

    bool given(std::string_view name) const { return find(values_, name) != nullptr; }
    const std::string& text(std::string_view name) { return lookup(name); }

    uint64_t whole_number(std::string_view name, uint64_t min, uint64_t max)
    {
        return keep(opt::whole_number(name, lookup(name), min, max), uint64_t(0));
    }
    double number(std::string_view name, double min, double max)
    {
        return keep(opt::number(name, lookup(name), min, max), 0.0);
    }
    double percentage(std::string_view name, double min = 0, double max = 100)
    {
        return keep(opt::percentage(name, lookup(name), min, max), 0.0);
    }
    uint64_t byte_count(std::string_view name, uint64_t min, uint64_t max)
    {
        return keep(opt::byte_count(name, lookup(name), min, max), uint64_t(0));
    }
    std::string choice(std::string_view name, std::initializer_list<std::string_view> choices)
    {
        return keep(opt::choice(name, lookup(name), choices), std::string());
    }

    // Records an error found by the caller (a rule between two options).
    void fail(std::string message)
    {
        if (error_.empty())
            error_ = std::move(message);
    }

    bool ok() const { return error_.empty(); }
    const std::string& error() const { return error_; }

private:
    const std::string& lookup(std::string_view name)
    {
        static const std::string absent;
        const std::string* value = find(values_, name);
        if (value == nullptr)
            fail("--" + std::string(name) + ": required");
        return value != nullptr ? *value : absent;
    }

    template <typename T>
    T keep(Parsed<T> parsed, T fallback)
    {
        if (!parsed) {
            fail(parsed.error);
            return fallback;
        }
        return *parsed;
    }

    OptionValues values_;
    std::string error_;
};

} // namespace opt
} // namespace ngx

#endif
