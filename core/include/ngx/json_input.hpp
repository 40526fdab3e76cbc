// Reading the JSON files ngx's offline commands take (fit, predict,
// compare): only regular files (a FIFO or a device could block or never
// end), a schema_version this ngx knows, "pattern" a string wherever it
// appears, and numbers checked against their range before they become
// integers (nlohmann's conversion turns -5 into 2^64 - 5 and 1e300 into 0):
// every member the readers use as a size, count, range or rank
// (size_bytes, from_bytes, count, ...: the list is in json_input.cpp) is
// checked wherever it appears when the file is read, and byte_field gives
// a reader the same check for a member it names. Every refusal is a usage
// error (exit 2) naming the file and the field.
//
//     Result<Json> document = read_json_input("run.json");
//     Result<uint64_t> from = byte_field(range, "from_bytes", "run.json: ranges[0]");
#ifndef NGX_JSON_INPUT_HPP
#define NGX_JSON_INPUT_HPP

#include <ngx/record.hpp>
#include <ngx/status.hpp>

#include <cstdint>
#include <string>

namespace ngx {

// The largest byte count a saved file may hold: an exact integer in a double.
inline constexpr uint64_t max_json_bytes_field = uint64_t(1) << 53;

Result<Json> read_json_input(const std::string& path);
// The whole text of a regular file, for readers that parse it themselves.
Result<std::string> read_regular_file(const std::string& path);
// The document's schema_version (absent is taken as the current one), every
// "pattern" (top level, runs[i]) and every size/count member checked;
// `where` names the file.
Status check_json_document(const Json& document, const std::string& where);

// object[name], a whole number in [0, max]; `where` prefixes the message.
Result<uint64_t> byte_field(const Json& object, const std::string& name, const std::string& where,
                            uint64_t max = max_json_bytes_field);
// object[name], a finite number.
Result<double> finite_field(const Json& object, const std::string& name, const std::string& where);

} // namespace ngx

#endif
