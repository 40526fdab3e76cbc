// libFuzzer target: `ngx trace analyze` and `ngx trace export --goal` on any
// records. The input is split in two halves, each a rank's record area
// (cut to whole records) behind a valid header of a 2-rank trace, written to
// a scratch directory; then the reader, the LogGPS replay (with S between
// the sizes the seeds use) and the GOAL schedule run. Every refusal must be
// a usage error with a message; a crash or a hang is a bug.
#include "../../core/commands/trace/trace_goal.hpp"
#include "../../core/commands/trace/trace_replay.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

const std::string& scratch()
{
    static const std::string dir = [] {
        char name[] = "/tmp/fuzz_trace.XXXXXX";
        if (mkdtemp(name) == nullptr)
            std::abort();
        return std::string(name);
    }();
    return dir;
}

void write_rank(int rank, const uint8_t* records, size_t bytes)
{
    ngx_trace_header h;
    std::memset(&h, 0, sizeof h);
    std::memcpy(h.magic, NGX_TRACE_MAGIC, 8);
    h.version = NGX_TRACE_VERSION;
    h.byte_order = NGX_TRACE_BYTE_ORDER;
    h.header_size = NGX_TRACE_HEADER_SIZE;
    h.record_size = NGX_TRACE_RECORD_SIZE;
    h.rank = rank;
    h.world_size = 2;
    h.flags = NGX_TRACE_FLAG_FINALIZED;
    char path[256];
    std::snprintf(path, sizeof path, "%s/" NGX_TRACE_FILE_FORMAT, scratch().c_str(), rank);
    std::FILE* f = std::fopen(path, "wb");
    if (f == nullptr)
        std::abort();
    std::fwrite(&h, sizeof h, 1, f);
    std::fwrite(records, 1, bytes - bytes % NGX_TRACE_RECORD_SIZE, f);
    std::fclose(f);
}

void expect_usage(const ngx::Status& s)
{
    if (s.kind() != ngx::ErrorKind::usage || s.message().empty())
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const size_t half = size / 2;
    write_rank(0, data, half);
    write_rank(1, data + half, size - half);
    ngx::Result<std::vector<ngx::trace::RankReader>> ranks = ngx::trace::open_trace(scratch());
    if (!ranks) {
        expect_usage(ranks.status());
        return 0;
    }
    ngx::fit::LogGPSParams p;
    p.L = 5, p.o_prime = 1, p.O_s = 0.001, p.O_r = 0.002, p.G_s = p.G_l = 0.003, p.S = 1000;
    ngx::Result<ngx::trace::ReplayReport> replay = ngx::trace::replay_trace(*ranks, p);
    if (!replay)
        expect_usage(replay.status());
    ngx::Result<ngx::trace::GoalExport> goal = ngx::trace::trace_schedule(*ranks);
    if (!goal)
        expect_usage(goal.status());
    return 0;
}
