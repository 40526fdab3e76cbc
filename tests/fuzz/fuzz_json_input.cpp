// libFuzzer target: the checks every JSON input of fit, predict and compare
// passes (core/include/ngx/json_input.hpp): the file read back as only a
// regular file is, its schema_version and "pattern" fields, and every
// member of every object taken as a byte count and as a finite number, as
// the readers take from_bytes, to_bytes and size_bytes. A refusal must be a
// usage error with a message; an accepted byte count must lie in its range;
// and in a document the reader accepted, every size or count member
// (size_bytes, from_bytes, to_bytes, count) that is a number is a whole one
// byte_field takes: no reader can meet a -5 or a 1e300 there.
#include <ngx/json_input.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

void require_usage(const ngx::Status& status)
{
    if (!status.is_ok() && (status.kind() != ngx::ErrorKind::usage || status.message().empty()))
        std::abort();
}

bool is_size_or_count(const std::string& key)
{
    return key == "size_bytes" || key == "from_bytes" || key == "to_bytes" || key == "count";
}

void walk(const ngx::Json& value, int depth)
{
    if (depth > 64)
        return;
    if (value.is_object()) {
        for (const auto& [key, member] : value.items()) {
            ngx::Result<uint64_t> bytes = ngx::byte_field(value, key, "fuzz");
            require_usage(bytes.status());
            if (bytes && *bytes > ngx::max_json_bytes_field)
                std::abort();
            if (is_size_or_count(key) && member.is_number() && !bytes) // the reader let a bad one through
                std::abort();
            require_usage(ngx::finite_field(value, key, "fuzz").status());
            walk(member, depth + 1);
        }
    } else if (value.is_array()) {
        for (const ngx::Json& item : value)
            walk(item, depth + 1);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const std::string path = "/tmp/ngx-fuzz-json-input-" + std::to_string(getpid()) + ".json";
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    }
    ngx::Result<ngx::Json> document = ngx::read_json_input(path);
    require_usage(document.status());
    if (document)
        walk(*document, 0);
    std::remove(path.c_str());
    return 0;
}
