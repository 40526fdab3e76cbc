// libFuzzer target: the raw-PRTT file reader of `ngx fit`
// (models/loggp/prtt_file.hpp): the CSV parser directly, and the whole
// file route (CSV, JSON, binary and size checks) through a scratch file.
// Every defect must come back as a usage error with a message.
#include <models/loggp/prtt_file.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

void expect_sane(const ngx::Result<ngx::PrttTable>& table)
{
    if (!table && (table.status().kind() != ngx::ErrorKind::usage || table.status().message().empty()))
        std::abort(); // a bad file is the user's problem: exit 2 with a message
}

const std::string& scratch_path()
{
    static const std::string path = "/tmp/ngx-fuzz-prtt-" + std::to_string(getpid()) + ".csv";
    return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string text(reinterpret_cast<const char*>(data), size);
    expect_sane(ngx::parse_prtt_csv(text, "fuzz.csv"));
    {
        std::ofstream out(scratch_path(), std::ios::binary | std::ios::trunc);
        out.write(text.data(), std::streamsize(text.size()));
    }
    expect_sane(ngx::read_prtt_file(scratch_path()));
    std::remove(scratch_path().c_str());
    return 0;
}
