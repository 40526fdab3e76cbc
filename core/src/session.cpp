// One process's share of a measurement (see session.hpp).
#include "session.hpp"

#include "comparison.hpp"
#include "layout_connect.hpp"
#include "setting_warnings.hpp"
#include "sysinfo.hpp"
#include "virtual_bootstrap.hpp"

#include <algorithm>
#include <chrono>

namespace ngx {
namespace {

Json module_options_json(const ModuleChoice& choice)
{
    Json options = Json::object();
    for (const auto& [name, value] : choice.options)
        options[name] = value;
    return options;
}

Json run_options_json(const Config& config, const ModuleChoice& choice, const Pattern& pattern)
{
    const RunSettings& settings = config.settings;
    Json options = {{"sizes", settings.sizes},
                    {"count", settings.count},
                    {"warmup", settings.warmup},
                    {"timeout_s", double(settings.timeout_ns) / 1e9},
                    {"cpus", config.cpus},
                    {"verify", settings.verify},
                    {"retries", settings.retries == RunSettings::no_retry_cap ? Json() : Json(settings.retries)},
                    {"max_loss_percent", settings.max_loss * 100},
                    {"passes", settings.passes == 0 ? Json("auto") : Json(settings.passes)},
                    {"max_rel_ci_percent", settings.max_rel_ci * 100},
                    {"adaptive", settings.adaptive},
                    {"max_size_time_s", settings.adaptive ? Json(double(settings.max_size_ns) / 1e9) : Json()},
                    {"buffer_offset", config.buffer_offset ? Json(*config.buffer_offset) : Json("module")},
                    {"host_of", settings.host_of.empty() ? Json() : Json(settings.host_of)},
                    {"module_options", module_options_json(choice)},
                    {"pattern_options", pattern.options_json()}};
    if (!settings.percentiles.empty())
        options["percentiles"] = settings.percentiles;
    return options;
}

const char* run_status_name(const Status& status)
{
    switch (status.kind()) {
    case ErrorKind::none:
        return "complete";
    case ErrorKind::interrupted:
        return "interrupted";
    default:
        return "error";
    }
}

// A pattern's complaint about a value the user gave as a core option
// (--strides, handed to --strided-strides) names the option the user typed.
Status in_users_terms(const Status& status, const Config& config)
{
    if (status)
        return status;
    std::string message = status.message();
    for (const auto& [option, core] : config.handed_options) {
        const std::string theirs = "--" + option, users = "--" + core;
        for (std::size_t at = 0; option != core && (at = message.find(theirs, at)) != std::string::npos;
             at += users.size())
            message.replace(at, theirs.size(), users);
    }
    return status.kind() == ErrorKind::usage ? Status::usage(message) : Status::runtime(message);
}

} // namespace

Session::Session(const Config& config, Bootstrap& boot, const Timer& timer, const volatile int* cancel,
                 std::vector<std::unique_ptr<Reporter>> reporters, Json context)
        : config_(config), boot_(boot), timer_(timer), cancel_(cancel), reporters_(std::move(reporters))
{
    document_.context = std::move(context);
    document_.runs.reserve(config.modules.size());
}

Status Session::run_all()
{
    for (const ModuleChoice& choice : config_.modules)
        NGX_TRY(run_module(choice));
    return Status::ok();
}

Status Session::run_module(const ModuleChoice& choice)
{
    std::unique_ptr<Pattern> pattern = config_.pattern->create();
    NGX_TRY(in_users_terms(pattern->configure(config_.pattern_options), config_));
    run_start_ = std::chrono::steady_clock::now();
    Status status = measure(choice, *pattern);
    mark_step(&progress_, "ending the run");
    // After Ctrl-C an error is its consequence: the run was interrupted. Under
    // MPI a signal is mostly the launcher ending the job because a rank
    // failed (mpirun cannot tell a rank why): the run ends as an error that
    // says so, and a module's error (a peer gone) stays what happened, as
    // the watchdog reports a rank stuck at that signal (watchdog.cpp).
    const bool signalled = cancel_ != nullptr && *cancel_ != 0;
    if (boot_.kind() == BootstrapKind::mpi) {
        if (status.kind() == ErrorKind::interrupted)
            status = Status::runtime(status.message() + (status.message().empty() ? "" : " ") +
                                     "(a signal under MPI: Ctrl-C, or the launcher ending the job after another rank "
                                     "failed)");
    } else if (!status.is_ok() && status.kind() != ErrorKind::interrupted && signalled) {
        status = Status::interrupted(status.message());
    }
    std::lock_guard<std::mutex> lock(mutex_);
    end_run(status);
    std::string variant = choice.variant.empty() ? "" : " [" + choice.variant + "]";
    return status.with_context(choice.module->name() + variant + " " + config_.pattern->name);
}

Status Session::measure(const ModuleChoice& choice, Pattern& pattern)
{
    mark_step(&progress_, "waiting for the peer before the run", 0);
    NGX_TRY(boot_.barrier("waiting for the peer before the run"));
    cpu_start_ = read_cpu_usage();
    mark_step(&progress_, "opening the module");
    TransportSettings settings;
    settings.timeout_ns = config_.settings.timeout_ns;
    settings.cancel = cancel_;
    settings.max_message_size = size_t(config_.settings.sizes.back());
    settings.buffer_offset = config_.buffer_offset;
    // A bad module option returns here: no run has begun.
    NGX_ASSIGN_OR_RETURN(std::unique_ptr<Transport> transport,
                         Transport::open(choice.module, choice.options, settings));
    begin_run(choice, pattern);
    mark_step(&progress_, "connecting");
    NGX_TRY(connect_for_pattern(*transport, boot_, *config_.pattern));
    RunSettings run_settings = config_.settings;
    run_settings.progress = &progress_;
    // A module in virtual time (sim --sim-clock virtual) times the run with
    // its clock, and the bootstrap carries that time (virtual_bootstrap.hpp).
    if (std::optional<ngx_virtual_clock> clock = transport->virtual_clock()) {
        Timer simulated = Timer::virtual_time(*clock);
        VirtualBootstrap timed(boot_, *clock);
        note_timer(simulated);
        PatternContext context{*transport, timed, simulated, run_settings, *this, cancel_, {}};
        return run_and_conclude(pattern, context);
    }
    PatternContext context{*transport, boot_, timer_, run_settings, *this, cancel_, {}};
    return run_and_conclude(pattern, context);
}

// The ranks meet after the run, before the pattern's local work (a fit that
// took 100 s under emulation would otherwise run out the peer's deadline).
Status Session::run_and_conclude(Pattern& pattern, PatternContext& context)
{
    NGX_TRY(pattern.run(context));
    mark_step(&progress_, "waiting for the peer after the run");
    NGX_TRY(boot_.barrier("waiting for the peer after the run"));
    NGX_TRY(gather_cpu_usage());
    mark_local_work(&progress_, "concluding the run (local work)");
    return pattern.conclude(context);
}

// Every rank's CPU use over the run reaches rank 0, which records it with
// its verdict: did the CPUs, not the network, set the run's time?
Status Session::gather_cpu_usage()
{
    mark_step(&progress_, "gathering the ranks' CPU use");
    Json mine = rank_usage_json(boot_.rank(), usage_between(cpu_start_, read_cpu_usage()));
    std::vector<Bytes> all;
    NGX_TRY(boot_.gather(to_bytes(mine.dump()), all, "gathering the ranks' CPU use"));
    if (all.empty()) // rank 0 records it
        return Status::ok();
    Json ranks = Json::array();
    for (const Bytes& one : all)
        ranks.push_back(Json::parse(to_string(one), nullptr, false));
    std::lock_guard<std::mutex> lock(mutex_);
    if (current_ != nullptr)
        current_->cpu = cpu_verdict(ranks, current_->options.value("timer", "") == "virtual");
    return Status::ok();
}

// The run's options say when it was timed by a simulated clock, not the
// document's timer.
void Session::note_timer(const Timer& timer)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (current_ != nullptr)
        current_->options["timer"] = timer.info().source;
}

void Session::begin_run(const ModuleChoice& choice, const Pattern& pattern)
{
    if (!reporting())
        return;
    RunRecord run;
    run.module = choice.module->name();
    run.variant = choice.variant;
    run.pattern = config_.pattern->name;
    run.metric = config_.pattern->metric;
    run.options = run_options_json(config_, choice, pattern);
    std::lock_guard<std::mutex> lock(mutex_); // the watchdog's abandon() reads the document
    document_.runs.push_back(std::move(run));
    current_ = &document_.runs.back();
    for (auto& reporter : reporters_)
        reporter->run_started(*current_);
}

// Called with mutex_ held (run() and the watchdog's abandon()).
void Session::end_run(const Status& status)
{
    if (current_ == nullptr)
        return;
    std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - run_start_;
    current_->status = run_status_name(status);
    current_->error = status.is_ok() ? "" : status.message();
    current_->wall_seconds = seconds.count();
    for (auto& reporter : reporters_)
        reporter->run_finished(*current_);
    current_ = nullptr;
}

void Session::size_done(SizeRecord record)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (current_ == nullptr)
        return;
    current_->sizes.push_back(std::move(record));
    for (auto& reporter : reporters_)
        reporter->size_done(*current_, current_->sizes.back());
}

void Session::set_model(Json model)
{
    std::lock_guard<std::mutex> lock(mutex_); // the watchdog's abandon() reads the document
    if (current_ != nullptr)
        current_->model = std::move(model);
}

void Session::pass_done(uint64_t done, uint64_t planned)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (current_ == nullptr)
        return;
    for (auto& reporter : reporters_)
        reporter->pass_done(*current_, done, planned);
}

void Session::set_measurement(Json measurement)
{
    std::lock_guard<std::mutex> lock(mutex_); // the watchdog's abandon() reads the document
    if (current_ != nullptr)
        current_->measurement = std::move(measurement);
}

void Session::count_messages(uint64_t messages)
{
    std::lock_guard<std::mutex> lock(mutex_); // the watchdog's abandon() reads the document
    if (current_ != nullptr)
        current_->messages += messages;
}

Status Session::abandon(const Status& why)
{
    std::lock_guard<std::mutex> lock(mutex_);
    end_run(why);
    return close_locked();
}

Status Session::close()
{
    std::lock_guard<std::mutex> lock(mutex_);
    return close_locked();
}

Status Session::close_locked()
{
    if (closed_)
        return Status::ok();
    closed_ = true;
    if (reporting() && document_.runs.size() > 1) // several modules: what each costs next to the first
        document_.comparison = compare_runs(compared_runs(document_));
    if (reporting()) { // the environment at the end of the run, and what in it hurts the numbers
        document_.context["load_average_1min_after"] = load_average_1min();
        document_.context["warnings"] = setting_warnings(document_.context, smallest_median_us(document_));
        for (const RunRecord& run : document_.runs)
            if (std::string verdict = cpu_verdict_text(run.cpu); !verdict.empty())
                document_.context["warnings"].push_back(run.module + " " + run.pattern + ": " + verdict);
    }
    Status first_failure;
    for (auto& reporter : reporters_) {
        Status status = reporter->close(document_);
        if (!status && first_failure)
            first_failure = status;
    }
    return first_failure;
}

std::string Session::current_run_label()
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (current_ == nullptr)
        return "";
    return current_->module + (current_->variant.empty() ? "" : " [" + current_->variant + "]") + " " +
           current_->pattern;
}

} // namespace ngx
