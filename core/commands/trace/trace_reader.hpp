// Reading a trace of libngx-trace.so (format: tools/trace/ngx_trace_format.h) as a
// stream of calls, one rank at a time: memory per rank is one call and its
// completion records, whatever the trace's length.
//
//     Result<std::vector<RankReader>> ranks = open_trace("trace-dir");
//     TraceCall call;
//     while (true) { Result<bool> more = (*ranks)[0].next(call); ... if (!*more) break; }
//
// open_trace refuses (usage errors, exit 2) a directory without rank files,
// a file whose header is not the format's, files that disagree on the
// number of ranks or miss a rank, and a truncated record area.
#ifndef NGX_TRACE_READER_HPP
#define NGX_TRACE_READER_HPP

#include "ngx_trace_format.h" // tools/trace, the tracer's format

#include <ngx/status.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ngx::trace {

// One intercepted call and the completion records that follow it.
struct TraceCall {
    ngx_trace_record call{};
    std::vector<ngx_trace_record> completions;
    int64_t tracer_ns = 0; // the tracer's own flushes since the previous call (not computation)
};

class RankReader {
public:
    static Result<RankReader> open(const std::string& path);

    const ngx_trace_header& header() const { return header_; }
    const std::string& path() const { return path_; }
    bool finalized() const { return (header_.flags & NGX_TRACE_FLAG_FINALIZED) != 0; }
    uint64_t records() const { return records_; }

    // The next call (false at the end); a call cut off before its completion
    // records is an error naming the file.
    Result<bool> next(TraceCall& call);
    // Back to the first record.
    Status rewind();
    // The COMM_DEF hash of a communicator id of this rank (0 for the world).
    uint64_t comm_key(uint32_t comm) const;
    // A local time (ns) on rank 0's clock (ns), by the header's two alignments.
    double aligned_ns(int64_t t) const;

private:
    struct FileCloser {
        void operator()(std::FILE* f) const { std::fclose(f); }
    };
    Result<bool> read_record(ngx_trace_record& r);
    std::string path_;
    std::unique_ptr<std::FILE, FileCloser> file_;
    ngx_trace_header header_{};
    uint64_t records_ = 0;
    std::unordered_map<uint32_t, uint64_t> comms_; // comm id -> COMM_DEF hash
};

// The MPI name of a record kind ("send"), "kind N" for a kind the format does not know.
std::string kind_label(unsigned kind);

// Every rank file of a trace directory, checked against each other.
Result<std::vector<RankReader>> open_trace(const std::string& dir);

} // namespace ngx::trace

#endif
