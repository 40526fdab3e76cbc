// A measurement session on one process: runs the pattern over each chosen
// module through the bootstrap and, on the reporting rank, turns what the
// pattern reports into run records for the reporters.
//
//     Session session(config, boot, timer, cancel, reporters);
//     Status status = session.run_all();
//     session.close();   // always: files get the results so far
#ifndef NGX_SESSION_HPP
#define NGX_SESSION_HPP

#include "cli.hpp"
#include "cpu_share.hpp"
#include <ngx/reporter.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

namespace ngx {

class Session final : public ResultSink {
public:
    Session(const Config& config, Bootstrap& boot, const Timer& timer, const volatile int* cancel,
            std::vector<std::unique_ptr<Reporter>> reporters, Json context);

    // Runs every module in turn; stops at the first failure or interrupt.
    Status run_all();
    // Hands the document to every reporter (files are written here).
    Status close();
    const Document& document() const { return document_; }
    // Where the run is, for the watchdog.
    const Progress& progress() const { return progress_; }
    // From another thread while this one may be stuck in a blocking call: ends
    // the current run with `why` (status "error") and closes (see close()).
    Status abandon(const Status& why);
    // "mpi pingpong" (with the variant) while a run is under way, else "".
    std::string current_run_label();

    void size_done(SizeRecord record) override;
    void set_model(Json model) override;
    void count_messages(uint64_t messages) override;
    void pass_done(uint64_t done, uint64_t planned) override;
    void set_measurement(Json measurement) override;

private:
    Status run_module(const ModuleChoice& choice);
    Status measure(const ModuleChoice& choice, Pattern& pattern);
    Status run_and_conclude(Pattern& pattern, PatternContext& context);
    Status gather_cpu_usage();
    void begin_run(const ModuleChoice& choice, const Pattern& pattern);
    void end_run(const Status& status);
    void note_timer(const Timer& timer);
    Status close_locked();
    bool reporting() const { return boot_.is_driver(); } // rank 0 writes the files; other drivers show a table

    const Config& config_;
    Bootstrap& boot_;
    const Timer& timer_;
    const volatile int* cancel_;
    std::vector<std::unique_ptr<Reporter>> reporters_;
    Document document_;
    RunRecord* current_ = nullptr;
    Progress progress_;
    std::mutex mutex_; // the document and the reporters, against abandon()
    bool closed_ = false;
    std::chrono::steady_clock::time_point run_start_;
    CpuUsage cpu_start_; // this rank's use when the run began (cpu_share.hpp)
};

} // namespace ngx

#endif
