// The offline commands' JSON input, checked (see ngx/json_input.hpp).
#include <ngx/json_input.hpp>
#include <ngx/reporter.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <iterator>
#include <optional>
#include <string_view>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ngx {
namespace {

// Saved results are small; a file beyond this is not one.
constexpr off_t max_input_bytes = off_t(1) << 30;

// Saved files nest a few levels; the walk below recurses, so a deeper one
// (a crafted "[[[[..."), which is no ngx file, is refused instead.
constexpr int max_json_depth = 64;

// Members the readers turn into unsigned integers (sizes, counts, ranges,
// ranks): wherever they appear, a number there (or in an array there) must
// be a whole one in 0..max_json_bytes_field.
constexpr std::string_view whole_number_fields[] = {
    "size_bytes",   "from_bytes",    "to_bytes",        "count",  "launch_count", "passes",
    "range",        "points",        "pairs",           "rank",   "ranks",        "element_bytes",
    "stride_bytes", "latency_bytes", "bandwidth_bytes", "warmup", "messages"};

bool holds_whole_number(std::string_view name)
{
    return std::find(std::begin(whole_number_fields), std::end(whole_number_fields), name) !=
           std::end(whole_number_fields);
}

// The one test of a number the readers use as an unsigned integer.
std::optional<uint64_t> whole_number(const Json& value, uint64_t max)
{
    if (value.is_number_unsigned())
        return value.get<uint64_t>() <= max ? std::optional<uint64_t>(value.get<uint64_t>()) : std::nullopt;
    if (!value.is_number_float())
        return std::nullopt; // a negative integer, or not a number
    double number = value.get<double>();
    if (std::isfinite(number) && number >= 0 && number <= double(max) && number == std::floor(number))
        return uint64_t(number);
    return std::nullopt;
}

Status not_whole(const std::string& where, const std::string& name, const Json& value, uint64_t max)
{
    return Status::usage(where + ": \"" + name + "\" is " + value.dump() + ", expected a whole number in 0.." +
                         std::to_string(max));
}

// "runs[0].results[3]": where a member sits in the document.
std::string member_path(const std::string& parent, const std::string& key)
{
    return parent.empty() ? key : parent + "." + key;
}

Status check_whole_numbers(const Json& node, const std::string& at, const std::string& where, int depth)
{
    if (depth > max_json_depth)
        return Status::usage(where + ": nested deeper than " + std::to_string(max_json_depth) +
                             " levels; not an ngx file");
    const std::string place = at.empty() ? where : where + ": " + at;
    if (node.is_array())
        for (size_t i = 0; i < node.size(); ++i)
            if (node[i].is_structured()) // not each of a million raw samples
                NGX_TRY(check_whole_numbers(node[i], at + "[" + std::to_string(i) + "]", where, depth + 1));
    if (!node.is_object())
        return Status::ok();
    for (const auto& [key, value] : node.items()) {
        if (holds_whole_number(key)) {
            if (value.is_number() && !whole_number(value, max_json_bytes_field))
                return not_whole(place, key, value, max_json_bytes_field);
            if (value.is_array())
                for (size_t i = 0; i < value.size(); ++i)
                    if (value[i].is_number() && !whole_number(value[i], max_json_bytes_field))
                        return not_whole(place, key + "[" + std::to_string(i) + "]", value[i], max_json_bytes_field);
        }
        if (value.is_structured())
            NGX_TRY(check_whole_numbers(value, member_path(at, key), where, depth + 1));
    }
    return Status::ok();
}

} // namespace

Result<std::string> read_regular_file(const std::string& path)
{
    // O_NONBLOCK: opening a FIFO without a writer must not wait for one.
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return Status::usage(path + ": cannot be read: " + std::strerror(errno));
    struct stat info {};
    Status verdict;
    if (fstat(fd, &info) != 0)
        verdict = Status::usage(path + ": " + std::strerror(errno));
    else if (!S_ISREG(info.st_mode))
        verdict = Status::usage(path + ": not a regular file (a FIFO, device or directory is refused)");
    else if (info.st_size > max_input_bytes)
        verdict = Status::usage(path + ": larger than 1 GiB, not a saved ngx file");
    std::string text;
    if (verdict) {
        text.resize(size_t(info.st_size));
        size_t done = 0;
        while (done < text.size()) {
            ssize_t got = read(fd, text.data() + done, text.size() - done);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                break;
            done += size_t(got);
        }
        text.resize(done);
    }
    close(fd);
    if (!verdict)
        return verdict;
    return text;
}

Status check_json_document(const Json& document, const std::string& where)
{
    if (!document.is_object())
        return Status::ok();
    if (document.contains("schema_version")) {
        const Json& version = document["schema_version"];
        if (!version.is_number_integer() || version.get<int64_t>() != json_schema_version)
            return Status::usage(where + ": \"schema_version\" is " + version.dump() + "; this ngx reads version " +
                                 std::to_string(json_schema_version));
    }
    if (document.contains("pattern") && !document["pattern"].is_string())
        return Status::usage(where + ": \"pattern\" is not a string");
    if (document.contains("runs") && document["runs"].is_array())
        for (size_t i = 0; i < document["runs"].size(); ++i) {
            const Json& run = document["runs"][i];
            if (run.is_object() && run.contains("pattern") && !run["pattern"].is_string())
                return Status::usage(where + ": runs[" + std::to_string(i) + "]: \"pattern\" is not a string");
        }
    return check_whole_numbers(document, "", where, 0);
}

Result<Json> read_json_input(const std::string& path)
{
    NGX_ASSIGN_OR_RETURN(std::string text, read_regular_file(path));
    Json document = Json::parse(text, nullptr, false);
    if (document.is_discarded())
        return Status::usage(path + ": not a JSON file");
    NGX_TRY(check_json_document(document, path));
    return document;
}

Result<uint64_t> byte_field(const Json& object, const std::string& name, const std::string& where, uint64_t max)
{
    if (!object.is_object() || !object.contains(name) || !object[name].is_number())
        return Status::usage(where + ": no numeric \"" + name + "\"");
    if (std::optional<uint64_t> number = whole_number(object[name], max))
        return *number;
    return not_whole(where, name, object[name], max);
}

Result<double> finite_field(const Json& object, const std::string& name, const std::string& where)
{
    if (!object.is_object() || !object.contains(name) || !object[name].is_number())
        return Status::usage(where + ": no numeric \"" + name + "\"");
    double number = object[name].get<double>();
    if (!std::isfinite(number))
        return Status::usage(where + ": \"" + name + "\" is " + object[name].dump() + ", not a finite number");
    return number;
}

} // namespace ngx
