// The regression check of two sides' runs (see regression_check.hpp).
#include "regression_check.hpp"

#include "comparison.hpp"
#include <models/base/student_t.hpp>
#include <ngx/sizes.hpp>
#include <ngx/statistics.hpp>
#include <ngx/two_sample.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace ngx {
namespace {

double number_at(const Json& object, const char* key)
{
    return object.is_object() && object.contains(key) && object[key].is_number() ? object[key].get<double>() : NAN;
}

std::string text_at(const Json& object, const char* key)
{
    return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : "";
}

std::string run_name(const Json& run)
{
    std::string variant = text_at(run, "variant");
    return text_at(run, "module") + " " + text_at(run, "pattern") + (variant.empty() ? "" : " [" + variant + "]");
}

// Both sides measured the same thing: pattern, module and its option values.
Status check_same_kind(const ComparedRun& base, const ComparedRun& next)
{
    for (const char* key : {"pattern", "module", "variant"}) {
        std::string a = text_at(base.run, key), b = text_at(next.run, key);
        if (a != b)
            return Status::usage(std::string("different ") + (key == std::string("variant") ? "module options" : key) +
                                 ": " + base.label + " has " + (a.empty() ? "none" : a) + ", " + next.label + " has " +
                                 (b.empty() ? "none" : b));
    }
    return Status::ok();
}

std::map<uint64_t, const Json*> results_by_size(const Json& run)
{
    std::map<uint64_t, const Json*> sizes;
    for (const Json& result : run["results"])
        sizes[result["size_bytes"].get<uint64_t>()] = &result;
    return sizes;
}

// "2 KiB, 4 KiB" of the sizes in `mine` that `theirs` lacks.
std::string sizes_missing(const std::map<uint64_t, const Json*>& mine, const std::map<uint64_t, const Json*>& theirs)
{
    std::string list;
    for (const auto& [size, result] : mine)
        if (!theirs.contains(size))
            list += (list.empty() ? "" : ", ") + format_bytes(size);
    return list;
}

Status check_same_sizes(const ComparedRun& base, const std::map<uint64_t, const Json*>& base_sizes,
                        const ComparedRun& next, const std::map<uint64_t, const Json*>& next_sizes)
{
    std::string only_base = sizes_missing(base_sizes, next_sizes), only_next = sizes_missing(next_sizes, base_sizes);
    if (only_base.empty() && only_next.empty())
        return Status::ok();
    return Status::usage("different sizes: " + (only_base.empty() ? "" : only_base + " only in " + base.label) +
                         (only_base.empty() || only_next.empty() ? "" : "; ") +
                         (only_next.empty() ? "" : only_next + " only in " + next.label));
}

std::vector<double> raw_of(const Json& result)
{
    std::vector<double> raw;
    if (result.contains("raw_us") && result["raw_us"].is_array())
        for (const Json& v : result["raw_us"])
            if (v.is_number())
                raw.push_back(v.get<double>());
    return raw;
}

std::optional<Estimate> median_estimate(const Json& result)
{
    Estimate e{number_at(result, "median_us"), number_at(result, "median_ci95_lo_us"),
               number_at(result, "median_ci95_hi_us")};
    if (!std::isfinite(e.value) || !std::isfinite(e.low) || !std::isfinite(e.high))
        return std::nullopt;
    return e;
}

double median_of(const Json& result, const std::vector<double>& raw)
{
    double value = number_at(result, "median_us");
    return std::isfinite(value) || raw.empty() ? value : median(raw);
}

Status missing_samples(const std::string& label, uint64_t size)
{
    return Status::usage("missing samples: " + format_bytes(size) + " of " + label +
                         " has neither raw samples (ngx ... --raw) nor a 95% interval of its median");
}

Result<CheckedValue> check_size(const ComparedRun& base, const Json& a, const ComparedRun& next, const Json& b,
                                uint64_t size)
{
    CheckedValue value;
    value.run = run_name(base.run);
    value.name = format_bytes(size);
    std::vector<double> raw_a = raw_of(a), raw_b = raw_of(b);
    value.baseline = median_of(a, raw_a);
    value.current = median_of(b, raw_b);
    if (!raw_a.empty() && !raw_b.empty()) {
        value.test = "rank-sum";
        value.p = rank_sum_test(raw_a, raw_b).p;
        return value;
    }
    std::optional<Estimate> ea = median_estimate(a), eb = median_estimate(b);
    if (!ea)
        return missing_samples(base.label, size);
    if (!eb)
        return missing_samples(next.label, size);
    value.test = "intervals";
    value.p = interval_test(*ea, *eb);
    return value;
}

std::string range_name(const Json& range)
{
    double from = number_at(range, "from_bytes"), to = number_at(range, "to_bytes");
    return "[" + (std::isfinite(from) ? format_bytes(uint64_t(from)) : "?") + ".." +
           (std::isfinite(to) ? format_bytes(uint64_t(to)) : "") + "]";
}

std::optional<Estimate> parameter_estimate(const Json& measured)
{
    if (!measured.is_object() || !measured.contains("ci95") || !measured["ci95"].is_array() ||
        measured["ci95"].size() != 2 || !measured["ci95"][0].is_number() || !measured["ci95"][1].is_number())
        return std::nullopt;
    Estimate e{number_at(measured, "value"), measured["ci95"][0].get<double>(), measured["ci95"][1].get<double>()};
    if (!std::isfinite(e.value))
        return std::nullopt;
    return e;
}

// The fitted parameters with intervals of two ranges that cover the same sizes.
void check_range(const std::string& run, const Json& a, const Json& b, std::vector<CheckedValue>& values)
{
    if (!a.contains("intervals") || !a["intervals"].is_object() || !b.contains("intervals"))
        return;
    for (const auto& [name, measured] : a["intervals"].items()) {
        if (!b["intervals"].contains(name))
            continue;
        std::optional<Estimate> ea = parameter_estimate(measured), eb = parameter_estimate(b["intervals"][name]);
        if (!ea || !eb)
            continue;
        CheckedValue value;
        value.run = run;
        value.name = name + " " + range_name(a);
        value.is_parameter = true;
        value.baseline = ea->value;
        value.current = eb->value;
        value.test = "intervals";
        value.p = interval_test(*ea, *eb);
        values.push_back(value);
    }
}

bool same_bounds(const Json& a, const Json& b)
{
    for (const char* key : {"from_bytes", "to_bytes"})
        if (a.value(key, Json()) != b.value(key, Json()))
            return false;
    return true;
}

void check_parameters(const ComparedRun& base, const ComparedRun& next, CheckResult& result)
{
    const Json *a = ranges_of(base.run), *b = ranges_of(next.run);
    if (a == nullptr && b == nullptr)
        return;
    std::string run = run_name(base.run);
    if (a == nullptr || b == nullptr) {
        result.notes.push_back(run + ": only " + (a ? base.label : next.label) +
                               " has fitted parameters: parameters not compared");
        return;
    }
    bool same = a->size() == b->size();
    for (size_t i = 0; same && i < a->size(); ++i)
        same = same_bounds((*a)[i], (*b)[i]);
    if (!same) {
        result.notes.push_back(run + ": the fitted protocol ranges differ: parameters not compared");
        return;
    }
    for (size_t i = 0; i < a->size(); ++i)
        check_range(run, (*a)[i], (*b)[i], result.values);
}

// A run that did not complete (interrupted, failed) is checked on what it measured, and said so.
void note_status(const ComparedRun& run, CheckResult& result)
{
    std::string status = text_at(run.run, "status");
    if (!status.empty() && status != "complete")
        result.notes.push_back(run.label + " did not complete (status " + status + ")");
}

Status check_pair(const ComparedRun& base, const ComparedRun& next, CheckResult& result)
{
    note_status(base, result);
    note_status(next, result);
    std::map<uint64_t, const Json*> a = results_by_size(base.run), b = results_by_size(next.run);
    for (const auto& [size, result_a] : a) {
        NGX_ASSIGN_OR_RETURN(CheckedValue value, check_size(base, *result_a, next, *b.at(size), size));
        result.values.push_back(value);
    }
    check_parameters(base, next, result);
    return Status::ok();
}

// The file a side's runs came from: the label of a lone run, else the label up to ":module".
std::string file_of(const std::vector<ComparedRun>& runs)
{
    const std::string& label = runs.front().label;
    return runs.size() == 1 ? label : label.substr(0, label.rfind(':'));
}

std::string run_list(const std::vector<ComparedRun>& runs)
{
    std::string list;
    for (const ComparedRun& run : runs)
        list += (list.empty() ? "" : ", ") + run_name(run.run);
    return list;
}

// Higher is worse for times and per-byte costs; better for rates.
bool worse_when_higher(const CheckedValue& value)
{
    for (const char* better : {"MBps", "Mbps", "rate", "bandwidth"})
        if (value.name.find(better) != std::string::npos)
            return false;
    return true;
}

Verdict decide(const CheckedValue& value, const CheckOptions& options)
{
    if (!(value.p_adjusted < options.alpha) || std::isnan(value.change)) // no relative change of a zero baseline
        return Verdict::unchanged;
    double worse_by = worse_when_higher(value) ? value.change : -value.change;
    if (worse_by > value.min_effect)
        return Verdict::regression;
    if (worse_by < -value.min_effect)
        return Verdict::improvement;
    return Verdict::within_tolerance;
}

double min_effect(const CheckedValue& value, const CheckOptions& options, bool between_launches)
{
    if (std::isfinite(options.tolerance))
        return options.tolerance;
    if (between_launches)
        return several_launches_effect;
    return value.is_parameter ? single_launch_parameter_effect : single_launch_size_effect;
}

double mean_of(const std::vector<Estimate>& values)
{
    double sum = 0;
    for (const Estimate& e : values)
        sum += e.value;
    return sum / double(values.size());
}

// Two-sided p of "both sides' launches share one mean": Student's (1908)
// pooled two-sample t test on one value per launch, the variance pooled over
// both sides' deviations from their own mean, df = K_a + K_b - 2. A side of
// one launch adds no variance, so one new launch against K is the prediction
// interval of one more launch (se = s sqrt(1/K + 1)). A launch's value is
// itself uncertain (its 95% interval): the variance is at least the mean of
// the values' own squared standard errors, so launches that agree closer
// than they can be known (a parameter fitted as 0 +- 1e-19) do not make
// every difference significant. NaN below 1 df.
double launch_test(const std::vector<Estimate>& a, const std::vector<Estimate>& b)
{
    double df = double(a.size() + b.size()) - 2;
    if (a.empty() || b.empty() || df < 1)
        return NAN;
    double mean_a = mean_of(a), mean_b = mean_of(b), squares = 0, within = 0;
    size_t with_interval = 0;
    for (const auto& [side, side_mean] : {std::pair{&a, mean_a}, std::pair{&b, mean_b}})
        for (const Estimate& e : *side) {
            squares += (e.value - side_mean) * (e.value - side_mean);
            double se = (e.high - e.low) / (2 * 1.959964);
            if (std::isfinite(se)) {
                within += se * se;
                ++with_interval;
            }
        }
    double variance = std::max(squares / df, with_interval > 0 ? within / double(with_interval) : 0.0);
    double se = std::sqrt(variance * (1.0 / double(a.size()) + 1.0 / double(b.size())));
    if (!(se > 0))
        return mean_a == mean_b ? 1.0 : 0.0;
    return 2 * fit::student_t_cdf(-std::fabs(mean_b - mean_a) / se, df);
}

using Launches = std::vector<std::vector<ComparedRun>>;

// Each launch's median of one size of run `r`, with its 95% interval where the launch stated one.
std::vector<Estimate> launch_medians(const Launches& side, size_t r, uint64_t size)
{
    std::vector<Estimate> values;
    for (const std::vector<ComparedRun>& launch : side) {
        const Json* result = results_by_size(launch[r].run).at(size);
        values.push_back(median_estimate(*result).value_or(Estimate{median_of(*result, raw_of(*result)), NAN, NAN}));
    }
    return values;
}

// Each launch's value of one parameter of run `r`, from the launches that
// fitted a range with the same bounds as `range` (a launch may split elsewhere).
std::vector<Estimate> launch_parameters(const Launches& side, size_t r, const Json& range, const std::string& name)
{
    std::vector<Estimate> values;
    for (const std::vector<ComparedRun>& launch : side) {
        const Json* ranges = ranges_of(launch[r].run);
        for (size_t i = 0; ranges != nullptr && i < ranges->size(); ++i) {
            const Json& other = (*ranges)[i];
            if (!same_bounds(range, other) || !other.contains("intervals") || !other["intervals"].contains(name))
                continue;
            if (std::optional<Estimate> e = parameter_estimate(other["intervals"][name]))
                values.push_back(*e);
        }
    }
    return values;
}

CheckedValue between_launches(const std::string& run, const std::string& name, const std::vector<Estimate>& a,
                              const std::vector<Estimate>& b)
{
    CheckedValue value;
    value.run = run;
    value.name = name;
    value.baseline = mean_of(a);
    value.current = mean_of(b);
    value.test = "launches";
    value.p = launch_test(a, b);
    return value;
}

// The fitted parameters of run `r`, per range of the baseline's first launch, between launches.
void check_parameters_between(const Launches& base, const Launches& next, size_t r, CheckResult& result)
{
    const Json* ranges = ranges_of(base.front()[r].run);
    std::string run = run_name(base.front()[r].run);
    for (size_t i = 0; ranges != nullptr && i < ranges->size(); ++i) {
        const Json& range = (*ranges)[i];
        if (!range.contains("intervals") || !range["intervals"].is_object())
            continue;
        for (const auto& [name, measured] : range["intervals"].items()) {
            std::vector<Estimate> a = launch_parameters(base, r, range, name),
                                  b = launch_parameters(next, r, range, name);
            std::string label = name + " " + range_name(range);
            if (b.empty() || a.size() + b.size() < 3) {
                result.notes.push_back(run + ": " + label + " was fitted by " + std::to_string(a.size()) + " of " +
                                       std::to_string(base.size()) + " baseline and " + std::to_string(b.size()) +
                                       " of " + std::to_string(next.size()) + " new launches: not compared");
                continue;
            }
            CheckedValue value = between_launches(run, label, a, b);
            value.is_parameter = true;
            result.values.push_back(value);
        }
    }
}

// Every launch of a side holds the runs, patterns, modules and sizes of the baseline's first launch.
Status check_alike(const std::vector<ComparedRun>& first, const std::vector<ComparedRun>& launch)
{
    if (first.size() != launch.size())
        return Status::usage("different runs: " + file_of(first) + " holds " + run_list(first) + "; " +
                             file_of(launch) + " holds " + run_list(launch));
    for (size_t r = 0; r < first.size(); ++r) {
        NGX_TRY(check_same_kind(first[r], launch[r]));
        NGX_TRY(check_same_sizes(first[r], results_by_size(first[r].run), launch[r], results_by_size(launch[r].run)));
    }
    return Status::ok();
}

Status check_between_launches(const Launches& base, const Launches& next, CheckResult& result)
{
    for (const Launches* side : {&base, &next})
        for (const std::vector<ComparedRun>& launch : *side)
            NGX_TRY(check_alike(base.front(), launch));
    for (size_t r = 0; r < base.front().size(); ++r) {
        note_status(base.front()[r], result);
        std::string run = run_name(base.front()[r].run);
        for (const auto& [size, ignored] : results_by_size(base.front()[r].run))
            result.values.push_back(between_launches(run, format_bytes(size), launch_medians(base, r, size),
                                                     launch_medians(next, r, size)));
        check_parameters_between(base, next, r, result);
    }
    return Status::ok();
}

} // namespace

const char* verdict_name(Verdict verdict)
{
    switch (verdict) {
    case Verdict::regression:
        return "regression";
    case Verdict::improvement:
        return "improvement";
    case Verdict::within_tolerance:
        return "within tolerance";
    default:
        return "unchanged";
    }
}

size_t CheckResult::count(Verdict verdict) const
{
    return size_t(
        std::count_if(values.begin(), values.end(), [&](const CheckedValue& v) { return v.verdict == verdict; }));
}

namespace {

std::vector<std::string> environment_notes(const Json& baseline, const std::string& baseline_label, const Json& current,
                                           const std::string& current_label)
{
    std::vector<std::string> notes;
    for (const char* key : {"host", "cpu", "kernel", "logical_cpus", "frequency_governors", "ngx_version",
                            "module_versions", "mpi_library"}) {
        Json a = baseline.value(key, Json()), b = current.value(key, Json());
        if (a != b)
            notes.push_back(std::string("different ") + key + ": " + baseline_label + " " + a.dump() + ", " +
                            current_label + " " + b.dump());
    }
    for (const auto& [document, label] : {std::pair{&baseline, &baseline_label}, std::pair{&current, &current_label}})
        if (document->contains("warnings") && (*document)["warnings"].is_array())
            for (const Json& warning : (*document)["warnings"])
                notes.push_back(*label + " was measured with a warning: " + warning.get<std::string>());
    return notes;
}

Result<CheckResult> check_runs(const Launches& baseline, const Launches& current, const CheckOptions& options)
{
    if (baseline.front().empty() || current.front().empty())
        return Status::usage("nothing to check: a side holds no run");
    CheckResult result;
    result.baseline_launches = baseline.size();
    result.current_launches = current.size();
    bool between = baseline.size() > 1 || current.size() > 1;
    if (between) {
        NGX_TRY(check_between_launches(baseline, current, result));
    } else {
        NGX_TRY(check_alike(baseline.front(), current.front()));
        for (size_t i = 0; i < baseline.front().size(); ++i)
            NGX_TRY(check_pair(baseline.front()[i], current.front()[i], result));
    }
    std::vector<double> p;
    for (const CheckedValue& value : result.values)
        p.push_back(value.p);
    std::vector<double> adjusted = holm_adjust(p);
    for (size_t i = 0; i < result.values.size(); ++i) {
        CheckedValue& value = result.values[i];
        value.p_adjusted = adjusted[i];
        value.change = value.baseline != 0 ? (value.current - value.baseline) / std::fabs(value.baseline) : NAN;
        value.min_effect = min_effect(value, options, between);
        value.verdict = decide(value, options);
    }
    return result;
}

} // namespace

Result<CheckResult> check_files(const SavedFile& baseline, const SavedFile& current, const CheckOptions& options)
{
    Result<CheckResult> result = check_runs(baseline.launches, current.launches, options);
    if (!result)
        return result;
    result->baseline = baseline.path;
    result->current = current.path;
    for (std::string& note : environment_notes(baseline.document, baseline.path, current.document, current.path))
        result->notes.push_back(std::move(note));
    return result;
}

} // namespace ngx
