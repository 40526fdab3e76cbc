// Progress of a live run on stderr (see progress_reporter.hpp).
#include "progress_reporter.hpp"

#include <ngx/sizes.hpp>

#include <cstdio>

namespace ngx {

void ProgressReporter::size_done(const RunRecord& run, const SizeRecord& size)
{
    std::fprintf(stderr, "\r\033[K%s %s: %s done (%zu/%zu)", run.module.c_str(), run.pattern.c_str(),
                 format_bytes(size.size_bytes).c_str(), run.sizes.size(), sizes_per_run_);
    std::fflush(stderr);
}

void ProgressReporter::pass_done(const RunRecord& run, uint64_t done, uint64_t planned)
{
    if (done <= planned)
        std::fprintf(stderr, "\r\033[K%s %s: pass %llu/%llu done", run.module.c_str(), run.pattern.c_str(),
                     (unsigned long long)done, (unsigned long long)planned);
    else
        std::fprintf(stderr, "\r\033[K%s %s: extra pass %llu done", run.module.c_str(), run.pattern.c_str(),
                     (unsigned long long)(done - planned));
    std::fflush(stderr);
}

void ProgressReporter::run_finished(const RunRecord&)
{
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
}

} // namespace ngx
