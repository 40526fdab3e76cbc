// An example pattern that brings its own model, built out of tree: "echo"
// measures the half round trip of a ping-pong per size and fits the postal
// line T(n) = s + r n through the medians (least squares); its model kind
// "echo-postal" lets `ngx predict --params RUN.json --op pingpong -s 1Ki`
// predict from the saved s and r with the options every model shares. It
// uses only the installed headers and libraries: ngx/pattern_plugin.hpp
// (ngx/model_kind.hpp through it) and ngx/json_input.hpp of libngxplugin, and
// the measuring library libngxmeasure: its ping-pong is the PRTT loop
// (ngx/measure/prtt.hpp, which retries a repetition that lost a message on
// a lossy module, within --retries and --max-loss) run in interleaved passes
// (ngx/measure/passes.hpp: --passes, --adaptive, the extra passes of
// --max-rel-ci), and its records come from ngx/measure/sweep.hpp.
#include <ngx/json_input.hpp>
#include <ngx/pattern_plugin.hpp>

#include <ngx/measure/passes.hpp>
#include <ngx/measure/prtt.hpp>
#include <ngx/measure/sweep.hpp>

#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

namespace {

using namespace ngx;
using namespace ngx::patterns; // the measuring library

constexpr const char* kind_name = "echo-postal";

// T(n) = s + r n through (n, T) by least squares; nullopt without two distinct sizes.
struct PostalLine {
    double s_us = 0, r_us_per_byte = 0;
};

std::optional<PostalLine> fit_line(const std::vector<std::pair<double, double>>& points)
{
    double n = double(points.size()), sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [x, y] : points) {
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    double denominator = n * sxx - sx * sx;
    if (points.size() < 2 || denominator <= 0)
        return std::nullopt;
    double r = (n * sxy - sx * sy) / denominator;
    return PostalLine{(sy - r * sx) / n, r};
}

class Echo final : public Pattern {
public:
    Status configure(const OptionValues&) override { return Status::ok(); }
    Json options_json() const override { return Json::object(); }

    Status run(PatternContext& ctx) override
    {
        std::vector<std::pair<double, double>> medians; // (size, median half round trip) on the driver
        PassedSweep sweep;
        // One size in one pass: a ping-pong is PRTT(1, 0, s), halved.
        sweep.measure = [&](const PassSlice& slice, Buffer& buffer) -> Result<Series> {
            PrttSpec spec{.size = slice.size, .messages = 1, .samples = slice.samples, .warmup = slice.warmup};
            Result<std::vector<double>> prtt = run_prtt(ctx, buffer, spec);
            if (!prtt)
                return prtt.status().with_context("ping-pong of " + std::to_string(slice.size) + " B");
            ctx.sink.count_messages(prtt_message_count(spec));
            for (double& sample : *prtt)
                sample /= 2;
            return Series{std::move(*prtt)};
        };
        // The size's record from the samples of all its passes.
        sweep.record = [&](const PassSlice& last, Series& pooled) -> Result<SizeRecord> {
            SizeRecord record = make_record(ctx, last.size, std::move(pooled[0]));
            medians.emplace_back(double(last.size), record.summary.median);
            return record;
        };
        NGX_TRY(sweep_passes(ctx, sweep));
        if (std::optional<PostalLine> line = fit_line(medians); line && ctx.bootstrap.is_driver())
            ctx.sink.set_model({{"kind", kind_name}, {"s_us", line->s_us}, {"r_us_per_byte", line->r_us_per_byte}});
        return Status::ok();
    }
};

// The saved line: a run's "model", or that of the first run of a document
// that has one (the example ignores --module).
Result<Json> load(const std::string& path, const std::string&)
{
    NGX_ASSIGN_OR_RETURN(Json document, read_json_input(path));
    const Json* model = nullptr;
    if (document.contains("model"))
        model = &document["model"];
    else if (document.contains("runs") && document["runs"].is_array())
        for (const Json& run : document["runs"])
            if (model == nullptr && run.is_object() && run.contains("model"))
                model = &run["model"];
    if (model == nullptr || !model->is_object() || model->value("kind", "") != kind_name ||
        !(*model)["s_us"].is_number() || !(*model)["r_us_per_byte"].is_number())
        return Status::usage(path + ": no " + kind_name + " model (s_us, r_us_per_byte); run -x echo -o FILE.json");
    return *model;
}

// The kind returns its prediction as data; ngx prints it (--format table, json or csv).
Result<Predictions> predict(const Json& model, const PredictRequest& request)
{
    // ngx predict's common rows (ngx/model_kind.hpp); this kind reads one: -s, a list of one size.
    opt::Reader read(predict_table("ngx predict (" + std::string(kind_name) + ")"), request.values);
    if (!read.given(predict_option::size))
        return Status::usage("-s/--size is required");
    uint64_t bytes = read_one(read, predict_option::size, request.op, 0, uint64_t(1) << 40).value_or(0);
    if (!read.ok())
        return Status::usage(read.error());
    const PostalLine line{model["s_us"].get<double>(), model["r_us_per_byte"].get<double>()};
    Prediction p{.model = kind_name, .op = request.op, .bytes = double(bytes)};
    p.time_us = line.s_us + line.r_us_per_byte * double(bytes);
    std::ostringstream note;
    note << "T = s + r n with s = " << line.s_us << " us, r = " << line.r_us_per_byte << " us/B";
    return Predictions{.rows = {p}, .notes = {note.str()}};
}

PatternInfo echo_pattern()
{
    PatternInfo info;
    info.name = "echo";
    info.description = "ping-pong half round trip with a postal line T = s + r n (example, out of tree)";
    info.metric = "half round trip";
    info.default_sizes = "1-64Ki";
    info.create = [] { return std::make_unique<Echo>(); };
    info.models = {{.name = kind_name,
                    .description = "the postal line T(n) = s + r n through the ping-pong medians (example)",
                    .parameters = {{"s_us", "us", "start-up time"}, {"r_us_per_byte", "us/B", "time per byte"}},
                    .ops = {{"pingpong", "half round trip of -s bytes", {"size"}}},
                    .load = load,
                    .predict = predict}};
    return info;
}

} // namespace

NGX_PATTERN_EXPORT(echo_pattern)
