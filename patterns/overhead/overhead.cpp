// Pattern "overhead": the send overhead o_s and the receive overhead o_r per
// message size for the transport's send mode (for mpi: --mpi-mode), measured
// as in Al-Tawil and Moritz 1998, Figure 2 and section 3.1, between the
// driver and its peer. The measurement itself (rooted barrier, calibrated
// delay, timers and columns) is ngx/measure/overhead_measure.hpp, which the
// loghssp pattern shares; the offline hooks (`ngx fit`, `ngx predict`) are
// models/loghssp/loghssp_offline.hpp.
#include <ngx/pattern_plugin.hpp>

#include <ngx/measure/overhead_measure.hpp>
#include <models/loghssp/loghssp_offline.hpp>

namespace ngx::patterns {
namespace {

constexpr OverheadRows overhead_rows_of_pattern = overhead_rows("overhead-call", "overhead-delay", "overhead-root");

class Overhead final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::Reader read(overhead_rows_of_pattern.table("overhead"), values);
        Result<OverheadSettings> settings = read_overhead_settings(read, overhead_rows_of_pattern);
        if (!settings)
            return settings.status();
        settings_ = *settings;
        return Status::ok();
    }
    Json options_json() const override { return overhead_settings_json(settings_); }
    Status run(PatternContext& ctx) override { return measure_overhead(ctx, settings_); }

private:
    OverheadSettings settings_;
};

} // namespace

PatternInfo overhead_pattern()
{
    PatternInfo info;
    info.name = "overhead";
    info.description =
        "send overhead o_s and receive overhead o_r per size, barrier + delay (Al-Tawil and Moritz 1998)";
    info.metric = "send overhead o_s";
    info.default_sizes = "1-64Ki";
    info.options = overhead_rows_of_pattern.table("overhead").specs();
    info.create = [] { return std::make_unique<Overhead>(); };
    info.fit = overhead_fit;
    info.fit_options = overhead_fit_options();
    info.fit_usage =
        "Usage: ngx fit RUN.json [--base VARIANT] | ngx fit --loghssp INTRA.json INTER.json  [-o OUT.json]";
    info.models = {loghssp_model_kind()};
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::overhead_pattern)
