// Streaming reader of libngx-trace.so's rank files (see trace_reader.hpp).
#include "trace_reader.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

namespace ngx::trace {
namespace {

namespace fs = std::filesystem;

Status check_header(const ngx_trace_header& h, const std::string& path)
{
    if (std::memcmp(h.magic, NGX_TRACE_MAGIC, 8) != 0)
        return Status::usage(path + ": not an ngx trace (no NGXTRACE magic)");
    if (h.byte_order != NGX_TRACE_BYTE_ORDER)
        return Status::usage(path + ": written on a host of the other byte order");
    if (h.version != NGX_TRACE_VERSION || h.header_size != NGX_TRACE_HEADER_SIZE ||
        h.record_size != NGX_TRACE_RECORD_SIZE)
        return Status::usage(path + ": trace format version " + std::to_string(h.version) + " (header " +
                             std::to_string(h.header_size) + " B, record " + std::to_string(h.record_size) +
                             " B); this ngx reads version " + std::to_string(NGX_TRACE_VERSION));
    if (h.world_size < 1 || h.rank < 0 || h.rank >= h.world_size)
        return Status::usage(path + ": rank " + std::to_string(h.rank) + " of " + std::to_string(h.world_size) +
                             " ranks is not a rank");
    return Status::ok();
}

bool is_rank_file(const fs::path& p)
{
    const std::string name = p.filename().string();
    return name.size() == 15 && name.rfind("rank-", 0) == 0 && name.substr(10) == ".ngxt";
}

} // namespace

std::string kind_label(unsigned kind)
{
    const char* name = ngx_trace_kind_name(kind);
    return name != nullptr ? name : "kind " + std::to_string(kind);
}

Result<RankReader> RankReader::open(const std::string& path)
{
    RankReader r;
    r.path_ = path;
    std::error_code ec;
    const uintmax_t size = fs::file_size(path, ec);
    if (ec)
        return Status::usage(path + ": cannot be read: " + ec.message());
    if (size < NGX_TRACE_HEADER_SIZE)
        return Status::usage(path + ": truncated: " + std::to_string(size) + " bytes, shorter than the header");
    if ((size - NGX_TRACE_HEADER_SIZE) % NGX_TRACE_RECORD_SIZE != 0)
        return Status::usage(path +
                             ": truncated: " + std::to_string((size - NGX_TRACE_HEADER_SIZE) % NGX_TRACE_RECORD_SIZE) +
                             " bytes after the last whole record");
    r.records_ = (size - NGX_TRACE_HEADER_SIZE) / NGX_TRACE_RECORD_SIZE;
    r.file_.reset(std::fopen(path.c_str(), "rb"));
    if (!r.file_)
        return Status::usage(path + ": cannot be opened: " + std::strerror(errno));
    if (std::fread(&r.header_, sizeof r.header_, 1, r.file_.get()) != 1)
        return Status::usage(path + ": cannot read its header");
    if (Status s = check_header(r.header_, path); !s)
        return s;
    return r;
}

Status RankReader::rewind()
{
    comms_.clear();
    if (std::fseek(file_.get(), NGX_TRACE_HEADER_SIZE, SEEK_SET) != 0)
        return Status::runtime(path_ + ": cannot seek");
    return Status::ok();
}

Result<bool> RankReader::read_record(ngx_trace_record& r)
{
    if (std::fread(&r, sizeof r, 1, file_.get()) == 1)
        return true;
    if (std::ferror(file_.get()))
        return Status::runtime(path_ + ": read error");
    return false;
}

namespace {

// A record's times must be a clock's: 0 <= t_call <= t_return, below 2^61 ns
// (73 years), so that the replay's differences and sums of them cannot
// overflow whatever a damaged file holds.
constexpr int64_t max_trace_ns = int64_t(1) << 61;

Status check_times(const ngx_trace_record& r, const std::string& path)
{
    if (r.t_call < 0 || r.t_return < r.t_call || r.t_return >= max_trace_ns)
        return Status::usage(path + ": a " + kind_label(r.kind) +
                             " record returns before it was called or at an "
                             "impossible time (t_call " +
                             std::to_string(r.t_call) + " ns, t_return " + std::to_string(r.t_return) + " ns)");
    return Status::ok();
}

// Adds a flush record's time to what the tracer spent before the call.
Status add_tracer_time(const ngx_trace_record& flush, int64_t& tracer_ns, const std::string& path)
{
    NGX_TRY(check_times(flush, path));
    tracer_ns += flush.t_return - flush.t_call;
    if (tracer_ns >= max_trace_ns)
        return Status::usage(path + ": the tracer's flushes add up to an impossible time");
    return Status::ok();
}

} // namespace

Result<bool> RankReader::next(TraceCall& out)
{
    out.completions.clear();
    out.tracer_ns = 0;
    ngx_trace_record r;
    // Skip the tracer's own records to the next call.
    while (true) {
        Result<bool> got = read_record(r);
        if (!got || !*got)
            return got;
        if (r.kind == NGX_TRACE_FLUSH) {
            NGX_TRY(add_tracer_time(r, out.tracer_ns, path_));
        } else if (r.kind == NGX_TRACE_COMM_DEF) {
            comms_[r.comm] = r.request;
        } else if (r.kind == NGX_TRACE_COMPLETION) {
            return Status::usage(path_ + ": a completion record without a call before it");
        } else if (ngx_trace_kind_name(r.kind) == nullptr) {
            return Status::usage(path_ + ": record of unknown kind " + std::to_string(r.kind));
        } else {
            break;
        }
    }
    NGX_TRY(check_times(r, path_));
    out.call = r;
    if (!ngx_trace_kind_completes(r.kind))
        return true;
    const int expected = std::max(r.aux, 0);
    while (int(out.completions.size()) < expected) {
        ngx_trace_record c;
        NGX_ASSIGN_OR_RETURN(bool got, read_record(c));
        if (!got)
            return Status::usage(path_ + ": ends inside a " + kind_label(r.kind) + "'s completion records");
        if (c.kind == NGX_TRACE_FLUSH)
            NGX_TRY(add_tracer_time(c, out.tracer_ns, path_));
        else if (c.kind == NGX_TRACE_COMM_DEF)
            comms_[c.comm] = c.request;
        else if (c.kind == NGX_TRACE_COMPLETION)
            out.completions.push_back(c);
        else
            return Status::usage(path_ + ": a " + kind_label(r.kind) + " announces " + std::to_string(expected) +
                                 " completions but a " + kind_label(c.kind) + " follows");
    }
    return true;
}

uint64_t RankReader::comm_key(uint32_t comm) const
{
    if (comm == 0)
        return 0;
    auto it = comms_.find(comm);
    // MPI_COMM_SELF and an undefined id: private to the rank.
    return it != comms_.end() ? it->second : (uint64_t(1) << 63) | (uint64_t(header_.rank) << 32) | comm;
}

double RankReader::aligned_ns(int64_t t) const
{
    const ngx_trace_clock& a = header_.init;
    const ngx_trace_clock& b = header_.fini;
    double drift = 0;
    if (finalized() && b.t_local != a.t_local)
        drift = double(b.offset - a.offset) / double(b.t_local - a.t_local);
    return double(t) - (double(a.offset) + drift * double(t - a.t_local));
}

Result<std::vector<RankReader>> open_trace(const std::string& dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return Status::usage(dir + ": not a trace directory");
    std::vector<std::string> paths;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
        if (is_rank_file(e.path()))
            paths.push_back(e.path().string());
    if (paths.empty())
        return Status::usage(dir + ": no rank-NNNNN.ngxt files (is it a trace directory?)");
    std::sort(paths.begin(), paths.end());
    std::vector<RankReader> ranks;
    for (const std::string& p : paths) {
        NGX_ASSIGN_OR_RETURN(RankReader r, RankReader::open(p));
        ranks.push_back(std::move(r));
    }
    const int P = ranks[0].header().world_size;
    std::set<int> seen;
    for (const RankReader& r : ranks) {
        if (r.header().world_size != P)
            return Status::usage(r.path() + ": a trace of " + std::to_string(r.header().world_size) + " ranks, but " +
                                 ranks[0].path() + " says " + std::to_string(P));
        seen.insert(r.header().rank);
    }
    if (int(seen.size()) != P || int(ranks.size()) != P)
        return Status::usage(dir + ": holds " + std::to_string(ranks.size()) + " rank files for a run of " +
                             std::to_string(P) + " ranks");
    std::sort(ranks.begin(), ranks.end(),
              [](const RankReader& a, const RankReader& b) { return a.header().rank < b.header().rank; });
    return ranks;
}

} // namespace ngx::trace
