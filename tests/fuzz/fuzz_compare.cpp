// libFuzzer target: `ngx compare BASELINE FUZZED` on saved JSON
// (core/comparison/compare.*), through the command itself so that the file
// checks run exactly as for a user: the input is written to a scratch file
// and compared with a valid baseline run, and alone with --json against
// itself. Output is discarded; the exit code must be 0 (compared) or 2 (a
// usage error: a bad file), nothing else, and never a crash.
#include "compare.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

const char* baseline_json = R"({"module":"tcp","pattern":"pingpong","metric":"half round trip","results":[
{"size_bytes":1,"count":10,"median_us":5.0},{"size_bytes":64,"count":10,"median_us":6.5}],
"model":{"ranges":[{"from_bytes":1,"to_bytes":64,"L_us":1,"o_us":1,"g_us":1,"G_us_per_byte":0.001}]}})";

std::string scratch(const char* tag)
{
    return "/tmp/ngx-fuzz-compare-" + std::to_string(getpid()) + "-" + tag + ".json";
}

void write_file(const std::string& path, const char* data, size_t size)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data, std::streamsize(size));
}

int run_quietly(const ngx::CommandInfo& command, const std::vector<std::string>& arguments)
{
    std::ostringstream sink;
    std::streambuf* out = std::cout.rdbuf(sink.rdbuf());
    std::streambuf* err = std::cerr.rdbuf(sink.rdbuf());
    static const ngx::PatternCatalog no_patterns; // compare needs none
    int code = command.run(arguments, no_patterns);
    std::cout.rdbuf(out);
    std::cerr.rdbuf(err);
    return code;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const ngx::CommandInfo command = ngx::compare_command();
    static const std::string base = [] {
        std::string path = scratch("base");
        write_file(path, baseline_json, std::char_traits<char>::length(baseline_json));
        return path;
    }();
    std::string fuzzed = scratch("input");
    write_file(fuzzed, reinterpret_cast<const char*>(data), size);
    for (const std::vector<std::string>& arguments :
         {std::vector<std::string>{base, fuzzed}, std::vector<std::string>{"--json", fuzzed, fuzzed}}) {
        int code = run_quietly(command, arguments);
        if (code != 0 && code != 2)
            std::abort();
    }
    std::remove(fuzzed.c_str());
    return 0;
}
