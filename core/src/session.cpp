// One process's share of a measurement (see session.hpp).
#include "session.hpp"

#include "comparison.hpp"

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
                    {"retries", settings.retries},
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
    NGX_TRY(pattern->configure(config_.pattern_options));
    auto start = std::chrono::steady_clock::now();
    Status status = measure(choice, *pattern);
    if (!status.is_ok() && status.kind() != ErrorKind::interrupted && cancel_ != nullptr && *cancel_ != 0)
        status = Status::interrupted(status.message());
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    end_run(status, elapsed.count());
    std::string variant = choice.variant.empty() ? "" : " [" + choice.variant + "]";
    return status.with_context(choice.module->name() + variant + " " + config_.pattern->name);
}

Status Session::measure(const ModuleChoice& choice, Pattern& pattern)
{
    NGX_TRY(boot_.barrier().with_context("waiting for the peer before the run"));
    TransportSettings settings;
    settings.timeout_ns = config_.settings.timeout_ns;
    settings.cancel = cancel_;
    settings.max_message_size = size_t(config_.settings.sizes.back());
    Result<std::unique_ptr<Transport>> transport = Transport::open(choice.module, choice.options, settings);
    if (!transport)
        return transport.status(); // a bad module option: no run has begun
    begin_run(choice, pattern);
    NGX_TRY((*transport)->connect(boot_));
    PatternContext context{**transport, boot_, timer_, config_.settings, *this, cancel_, {}};
    NGX_TRY(pattern.run(context));
    return boot_.barrier().with_context("waiting for the peer after the run");
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
    document_.runs.push_back(std::move(run));
    current_ = &document_.runs.back();
    for (auto& reporter : reporters_)
        reporter->run_started(*current_);
}

void Session::end_run(const Status& status, double seconds)
{
    if (current_ == nullptr)
        return;
    current_->status = run_status_name(status);
    current_->error = status.is_ok() ? "" : status.message();
    current_->wall_seconds = seconds;
    for (auto& reporter : reporters_)
        reporter->run_finished(*current_);
    current_ = nullptr;
}

void Session::size_done(SizeRecord record)
{
    if (current_ == nullptr)
        return;
    current_->sizes.push_back(std::move(record));
    for (auto& reporter : reporters_)
        reporter->size_done(*current_, current_->sizes.back());
}

void Session::set_model(Json model)
{
    if (current_ != nullptr)
        current_->model = std::move(model);
}

void Session::count_messages(uint64_t messages)
{
    if (current_ != nullptr)
        current_->messages += messages;
}

Status Session::close()
{
    if (reporting() && document_.runs.size() > 1) // several modules: what each costs next to the first
        document_.comparison = compare_runs(compared_runs(document_));
    Status first_failure;
    for (auto& reporter : reporters_) {
        Status status = reporter->close(document_);
        if (!status && first_failure)
            first_failure = status;
    }
    return first_failure;
}

} // namespace ngx
