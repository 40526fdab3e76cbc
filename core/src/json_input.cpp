// The offline commands' JSON input, checked (see ngx/json_input.hpp).
#include <ngx/json_input.hpp>
#include <ngx/reporter.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ngx {
namespace {

// Saved results are small; a file beyond this is not one.
constexpr off_t max_input_bytes = off_t(1) << 30;

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
    return Status::ok();
}

Result<Json> read_json_input(const std::string& path)
{
    Result<std::string> text = read_regular_file(path);
    if (!text)
        return text.status();
    Json document = Json::parse(*text, nullptr, false);
    if (document.is_discarded())
        return Status::usage(path + ": not a JSON file");
    NGX_TRY(check_json_document(document, path));
    return document;
}

Result<uint64_t> byte_field(const Json& object, const std::string& name, const std::string& where, uint64_t max)
{
    if (!object.is_object() || !object.contains(name) || !object[name].is_number())
        return Status::usage(where + ": no numeric \"" + name + "\"");
    const Json& value = object[name];
    if (value.is_number_unsigned() && value.get<uint64_t>() <= max)
        return value.get<uint64_t>();
    double number = value.get<double>();
    if (value.is_number_float() && std::isfinite(number) && number >= 0 && number <= double(max) &&
        number == std::floor(number))
        return uint64_t(number);
    return Status::usage(where + ": \"" + name + "\" is " + value.dump() + ", expected a whole number in 0.." +
                         std::to_string(max));
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
