// Progress of a live run on stderr ("tcp pingpong: 4 KiB done (13/21)"), for
// terminals only. The engine adds it next to the table and file reporters
// (ngx/reporter.hpp) of the plugin library; plugins never see it.
//
//     reporters.push_back(std::make_unique<ProgressReporter>(settings.sizes.size()));
#ifndef NGX_PROGRESS_REPORTER_HPP
#define NGX_PROGRESS_REPORTER_HPP

#include <ngx/reporter.hpp>

#include <cstddef>
#include <cstdint>

namespace ngx {

class ProgressReporter final : public Reporter {
public:
    explicit ProgressReporter(size_t sizes_per_run) : sizes_per_run_(sizes_per_run) {}
    void size_done(const RunRecord& run, const SizeRecord& size) override;
    void pass_done(const RunRecord& run, uint64_t done, uint64_t planned) override;
    void run_finished(const RunRecord& run) override;

private:
    size_t sizes_per_run_;
};

} // namespace ngx

#endif
