// Option values: typed rows declared once, one parser per type of value,
// each with its range, and one message format for every bad value, used alike
// by the command line, the patterns, the modules and the subcommands:
//
//     --NAME 'VALUE': WHY          e.g.  --loggp-n '1': must be in 2..10000
//
// Header-only and free of the core's types, so an out-of-tree module can use
// it with nothing but the installed headers. A plugin declares each option
// once as a typed row (name, type, default, range or choices, help), lists
// its rows in a Table, and reads them back through the rows themselves, so
// a misspelt name cannot compile and a row left out of the table is an error:
//
//     constexpr auto loggp_n = opt::row::whole_number("loggp-n", "16", 2, 10000, "messages n of PRTT(n,0,s)");
//     constexpr auto loggp_detector = opt::row::choice("loggp-detector", "robust", {"robust", "paper", "none"},
//                                                      "how protocol changes are found");
//     opt::Table table("loggp", {loggp_n, loggp_detector});        // info.options = table.specs()
//
//     opt::Reader read(table, values);                           // rows only: no read by a name
//     uint64_t n = read(loggp_n);                                // parsed, range-checked
//     std::string detector = read(loggp_detector);
//     if (!read.ok()) return Status::usage(read.error());
//
// The core's command-line layer turns the table's OptionSpecs into --help
// text (the row's type and range appended to its help) and hands back
// OptionValues (name -> text, defaults filled in).
#ifndef NGX_OPTIONS_HPP
#define NGX_OPTIONS_HPP

#include <ngx/module.h>

#include <algorithm>
#include <array>
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

// ---- typed rows ----------------------------------------------------------

// What an option's value is: decides its parser, its range check and what
// --help says of it.
enum class Type {
    whole_number,  // 16
    number,        // 0.5, 1e-3
    percentage,    // 50 or 50%
    byte_count,    // 64Ki, 1M
    auto_or_bytes, // auto (read as 0: the plugin picks) or a byte count
    choice,        // one of the row's words
    yes_no,        // 1, yes, true, on or 0, no, false, off
    text,          // any text (a path, a list the plugin parses itself)
    flag,          // present or absent
    output_file,   // a file to write, checked before measuring
    size_list,     // byte counts: 4Ki, a range 8-1Mi (doubling) or a list 8,64,1Ki
    count_list,    // whole numbers: 16, a range 4-64 (doubling) or a list 4,16,64
};

inline constexpr size_t max_choices = 24;
inline constexpr const char* no_default = nullptr; // the option is absent unless given

// One declared option. Build rows with the opt::row:: functions, which fix
// the value type T that reading the row gives (Option<T>).
struct Row {
    std::string_view name; // "loggp-n", spelled --loggp-n; "output,o" adds -o
    Type type = Type::text;
    std::string_view default_text; // parsed when the option is not given
    bool has_default = false;
    std::string_view help;
    uint64_t min = 0, max = UINT64_MAX; // whole numbers and byte counts
    double low = 0, high = 0;           // numbers and percentages
    std::array<std::string_view, max_choices> choices{};
    size_t choice_count = 0;
    bool repeatable = false; // may be given several times (-o A -o B)

    // The name without its short form: "output,o" -> "output".
    constexpr std::string_view long_name() const { return name.substr(0, name.find(',')); }
};

template <typename T>
struct Option : Row {
};

namespace row {

template <typename T>
constexpr Option<T> make(std::string_view name, Type type, const char* default_text, std::string_view help)
{
    Option<T> option;
    option.name = name;
    option.type = type;
    option.has_default = default_text != nullptr;
    option.default_text = default_text != nullptr ? std::string_view(default_text) : std::string_view();
    option.help = help;
    return option;
}

constexpr Option<uint64_t> whole_number(std::string_view name, const char* default_text, uint64_t min, uint64_t max,
                                        std::string_view help)
{
    Option<uint64_t> option = make<uint64_t>(name, Type::whole_number, default_text, help);
    option.min = min;
    option.max = max;
    return option;
}

constexpr Option<uint64_t> byte_count(std::string_view name, const char* default_text, uint64_t min, uint64_t max,
                                      std::string_view help)
{
    Option<uint64_t> option = whole_number(name, default_text, min, max, help);
    option.type = Type::byte_count;
    return option;
}

// "auto" (read as 0) or a byte count in [min, max].
constexpr Option<uint64_t> auto_or_bytes(std::string_view name, const char* default_text, uint64_t min, uint64_t max,
                                         std::string_view help)
{
    Option<uint64_t> option = whole_number(name, default_text, min, max, help);
    option.type = Type::auto_or_bytes;
    return option;
}

constexpr Option<double> number(std::string_view name, const char* default_text, double low, double high,
                                std::string_view help)
{
    Option<double> option = make<double>(name, Type::number, default_text, help);
    option.low = low;
    option.high = high;
    return option;
}

constexpr Option<double> percentage(std::string_view name, const char* default_text, double low, double high,
                                    std::string_view help)
{
    Option<double> option = number(name, default_text, low, high, help);
    option.type = Type::percentage;
    return option;
}

constexpr Option<std::string> choice(std::string_view name, const char* default_text,
                                     std::initializer_list<std::string_view> choices, std::string_view help)
{
    Option<std::string> option = make<std::string>(name, Type::choice, default_text, help);
    for (std::string_view word : choices)
        if (option.choice_count < max_choices) // more is a declaration error: the last ones are never accepted
            option.choices[option.choice_count++] = word;
    return option;
}

constexpr Option<bool> yes_no(std::string_view name, const char* default_text, std::string_view help)
{
    return make<bool>(name, Type::yes_no, default_text, help);
}

constexpr Option<std::string> text(std::string_view name, const char* default_text, std::string_view help)
{
    return make<std::string>(name, Type::text, default_text, help);
}

constexpr Option<bool> flag(std::string_view name, std::string_view help)
{
    return make<bool>(name, Type::flag, no_default, help);
}

constexpr Option<std::string> output_file(std::string_view name, std::string_view help,
                                          const char* default_text = no_default, bool repeatable = false)
{
    Option<std::string> option = make<std::string>(name, Type::output_file, default_text, help);
    option.repeatable = repeatable;
    return option;
}

// A list of sizes (or of counts, `bytes` false): "4Ki", "8-1Mi", "8,64,1Ki";
// the value read is the sorted list without repeats.
constexpr Option<std::vector<uint64_t>> list(std::string_view name, const char* default_text, uint64_t min,
                                             uint64_t max, bool bytes, std::string_view help)
{
    Option<std::vector<uint64_t>> option =
        make<std::vector<uint64_t>>(name, bytes ? Type::size_list : Type::count_list, default_text, help);
    option.min = min;
    option.max = max;
    return option;
}

// The same row, given any number of times (-o A -o B); read() reads the first, all() every one.
template <typename T>
constexpr Option<T> repeatable(Option<T> option)
{
    option.repeatable = true;
    return option;
}

} // namespace row

// A byte count as people write it: 1073741824 -> "1Gi", 65536 -> "64Ki".
inline std::string size_text(uint64_t bytes)
{
    static constexpr std::pair<uint64_t, const char*> units[] = {{1u << 30, "Gi"}, {1u << 20, "Mi"}, {1024, "Ki"}};
    for (const auto& [factor, suffix] : units)
        if (bytes >= factor && bytes % factor == 0)
            return std::to_string(bytes / factor) + suffix;
    return std::to_string(bytes);
}

inline std::string whole_range_text(uint64_t min, uint64_t max, bool bytes)
{
    auto show = [bytes](uint64_t value) { return bytes ? size_text(value) : std::to_string(value); };
    return max == UINT64_MAX ? "at least " + show(min) : show(min) + ".." + show(max);
}

inline std::string choices_text(const Row& row)
{
    std::string text;
    for (size_t i = 0; i < row.choice_count; ++i)
        text += std::string(i == 0 ? "" : i + 1 == row.choice_count ? " or " : ", ") + std::string(row.choices[i]);
    return text;
}

// What --help says of a row's value, from its type and range: "whole number, 2..10000".
inline std::string describe(const Row& row)
{
    switch (row.type) {
    case Type::whole_number:
        return "whole number, " + whole_range_text(row.min, row.max, false);
    case Type::byte_count:
        return "bytes, " + whole_range_text(row.min, row.max, true);
    case Type::auto_or_bytes:
        return "auto or bytes, " + whole_range_text(row.min, row.max, true);
    case Type::number:
        return "number, " + range_text(row.low, row.high);
    case Type::percentage:
        return "percent, " + range_text(row.low, row.high);
    case Type::choice:
        return choices_text(row);
    case Type::yes_no:
        return "yes or no";
    case Type::output_file:
        return "file to write";
    case Type::size_list:
        return "bytes or a list of them, " + whole_range_text(row.min, row.max, true);
    case Type::count_list:
        return "whole number or a list of them, " + whole_range_text(row.min, row.max, false);
    case Type::text:
    case Type::flag:
        return "";
    }
    return "";
}

// The row as the core's command-line layer takes it: its help with the type and range appended.
inline OptionSpec spec_of(const Row& row)
{
    std::string help(row.help);
    if (std::string type = describe(row); !type.empty())
        help += " [" + type + "]";
    OptionKind kind = row.type == Type::flag          ? OptionKind::flag
                      : row.type == Type::output_file ? OptionKind::output_file
                                                      : OptionKind::value;
    return {std::string(row.name), std::string(row.default_text), help, kind, row.has_default, row.repeatable};
}

// Parses `text` as the row says; the value or the message saying why not.
inline Parsed<uint64_t> parse_value(const Option<uint64_t>& row, std::string_view text)
{
    if (row.type == Type::auto_or_bytes) {
        if (text == "auto")
            return {uint64_t(0), {}};
        if (Parsed<uint64_t> bytes = byte_count(row.long_name(), text, row.min, row.max))
            return bytes;
        return failed<uint64_t>(row.long_name(), text,
                                "expected auto or a byte count in " + std::to_string(row.min) + ".." +
                                    std::to_string(row.max));
    }
    return row.type == Type::byte_count ? byte_count(row.long_name(), text, row.min, row.max)
                                        : whole_number(row.long_name(), text, row.min, row.max);
}

inline Parsed<double> parse_value(const Option<double>& row, std::string_view text)
{
    return row.type == Type::percentage ? percentage(row.long_name(), text, row.low, row.high)
                                        : number(row.long_name(), text, row.low, row.high);
}

inline Parsed<std::string> parse_value(const Option<std::string>& row, std::string_view text)
{
    if (row.type != Type::choice)
        return {std::string(text), {}};
    for (size_t i = 0; i < row.choice_count; ++i)
        if (text == row.choices[i])
            return {std::string(text), {}};
    return failed<std::string>(row.long_name(), text, "expected " + choices_text(row));
}

inline Parsed<bool> parse_value(const Option<bool>& row, std::string_view text)
{
    if (row.type == Type::flag)
        return {true, {}};
    static constexpr std::string_view yes[] = {"1", "yes", "true", "on"}, no[] = {"0", "no", "false", "off"};
    for (std::string_view word : yes)
        if (text == word)
            return {true, {}};
    for (std::string_view word : no)
        if (text == word)
            return {false, {}};
    return failed<bool>(row.long_name(), text, "expected 0, 1, no, yes, false, true, off or on");
}

inline constexpr size_t max_list_items = 100000;

// One item of a list: a value, or a range FIRST-LAST expanded by doubling
// (FIRST, 2 FIRST, ..., LAST: the end is always included).
inline bool expand_item(const Option<std::vector<uint64_t>>& row, std::string_view item, std::vector<uint64_t>& out)
{
    auto one = [&row](std::string_view text) {
        return row.type == Type::size_list ? byte_count(row.long_name(), text, row.min, row.max)
                                           : whole_number(row.long_name(), text, row.min, row.max);
    };
    const size_t dash = item.find('-');
    Parsed<uint64_t> first = one(item.substr(0, dash));
    Parsed<uint64_t> last = dash == std::string_view::npos ? first : one(item.substr(dash + 1));
    if (!first || !last || *last < *first)
        return false;
    for (uint64_t value = *first; value < *last && out.size() <= max_list_items; value = std::max(value * 2, value + 1))
        out.push_back(value);
    out.push_back(*last);
    return out.size() <= max_list_items;
}

inline Parsed<std::vector<uint64_t>> parse_value(const Option<std::vector<uint64_t>>& row, std::string_view text)
{
    std::vector<uint64_t> values;
    for (const std::string& item : split_list(text))
        if (!expand_item(row, item, values))
            return failed<std::vector<uint64_t>>(
                row.long_name(), text,
                std::string(row.type == Type::size_list
                                ? "expected a size such as 4Ki, a range 8-1Mi or a list 8,64,1Ki"
                                : "expected a count such as 16, a range 4-64 or a list 4,16,64") +
                    " in " + whole_range_text(row.min, row.max, row.type == Type::size_list) + " (at most " +
                    std::to_string(max_list_items) + " values)");
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return {values, {}};
}

// The options one plugin (or command) declared: its name, for messages, and its rows.
class Table {
public:
    Table(std::string owner, std::initializer_list<Row> rows) : owner_(std::move(owner)), rows_(rows) {}

    void add(const Row& row) { rows_.push_back(row); }
    void add(const Table& other) { rows_.insert(rows_.end(), other.rows_.begin(), other.rows_.end()); }

    const std::string& owner() const { return owner_; }
    const std::vector<Row>& rows() const { return rows_; }

    // The declared row of that name and type, or nullptr.
    const Row* find(const Row& wanted) const
    {
        for (const Row& row : rows_)
            if (row.long_name() == wanted.long_name() && row.type == wanted.type)
                return &row;
        return nullptr;
    }

    std::vector<OptionSpec> specs() const
    {
        std::vector<OptionSpec> specs;
        for (const Row& row : rows_)
            specs.push_back(spec_of(row));
        return specs;
    }

private:
    std::string owner_;
    std::vector<Row> rows_;
};

// Reads a plugin's options through its rows, keeping the first error. A row
// not given reads as its default; a row with no default and not given is an
// error ("--NAME: required") unless read with optional(). A row that is not
// in the table is refused, naming the option and the plugin.
class Reader {
public:
    Reader(Table table, OptionValues values) : table_(std::move(table)), values_(std::move(values)) {}

    template <typename T>
    T operator()(const Option<T>& option)
    {
        if (!declared(option))
            return T{};
        if (!option.has_default && option.type != Type::flag && find(values_, option.long_name()) == nullptr) {
            fail("--" + std::string(option.long_name()) + ": required");
            return T{};
        }
        return optional(option).value_or(T{});
    }

    // The value given, else the default; nullopt when neither (or on error).
    template <typename T>
    std::optional<T> optional(const Option<T>& option)
    {
        if (!declared(option))
            return std::nullopt;
        const std::string* given = find(values_, option.long_name());
        if (given == nullptr && !option.has_default)
            return std::nullopt;
        Parsed<T> parsed = parse_value(option, given != nullptr ? std::string_view(*given) : option.default_text);
        if (!parsed) {
            fail(parsed.error);
            return std::nullopt;
        }
        return parsed.value;
    }

    // Every value given for a repeatable row (-o A -o B, or bare FILE arguments), in order, each parsed.
    template <typename T>
    std::vector<T> all(const Option<T>& option)
    {
        std::vector<T> values;
        if (!declared(option))
            return values;
        for (const auto& [key, text] : values_)
            if (key == option.long_name()) {
                Parsed<T> parsed = parse_value(option, text);
                if (!parsed) {
                    fail(parsed.error);
                    return {};
                }
                values.push_back(*parsed.value);
            }
        return values;
    }

    // Whether the user (or the core, filling in a default) gave the option.
    bool given(const Row& option) { return declared(option) && find(values_, option.long_name()) != nullptr; }

    // The text as given (or the default), unparsed: for a value the plugin parses itself.
    std::string text_of(const Row& option)
    {
        if (!declared(option))
            return {};
        const std::string* given = find(values_, option.long_name());
        return given != nullptr ? *given : std::string(option.default_text);
    }

    // A value the plugin rejects for its own reason, in the one format.
    void reject(const Row& option, std::string_view why) { fail(bad_value(option.long_name(), text_of(option), why)); }

    // Records an error found by the caller (a rule between two options).
    void fail(std::string message)
    {
        if (error_.empty())
            error_ = std::move(message);
    }

    bool ok() const { return error_.empty(); }
    const std::string& error() const { return error_; }

private:
    bool declared(const Row& option)
    {
        if (table_.find(option) != nullptr)
            return true;
        fail("option --" + std::string(option.long_name()) + " is read by " + table_.owner() +
             " but not declared in its table of options");
        return false;
    }

    Table table_;
    OptionValues values_;
    std::string error_;
};

} // namespace opt
} // namespace ngx

#endif
