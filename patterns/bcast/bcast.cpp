// Pattern "bcast": a broadcast of s bytes from rank 0 to every rank of the
// run (P = all ranks under mpirun, any P >= 2: the PatternInfo asks the MPI
// bootstrap for one group instead of pairs), through the module's optional bcast op
// (NGX_CAP_COLLECTIVES; mpi: MPI_Bcast), contiguous and strided (the
// module's set_layout, NGX_CAP_DATATYPES: MPI_Type_vector). It measures what
// `ngx predict --params STRIDED.json --compare-to BCAST.json` checks the
// broadcast predictions of log3P, LogGP and LogGPS against (Cameron et al. 2007,
// section 4.3.3). Every repetition starts at a barrier; each rank times its
// own call, and a repetition lasts as long as its slowest rank (the last
// receiver): the row's samples are those maxima, gathered on rank 0. Ranks
// beyond the machine's CPUs still give correct results but share cores: the
// "oversubscribed" column says so (1), and rank 0 notes it on stderr.
#include <ngx/pattern_plugin.hpp>
#include <ngx/sizes.hpp>

#include <ngx/measure/sweep.hpp>
#include <ngx/measure/strided_layout.hpp>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <thread>

namespace ngx::patterns {
namespace {

constexpr LayoutRows bcast_layout = {type_row("bcast-type"),
                                     opt::row::text("bcast-strides", "1,64", "strides in elements (1: contiguous)")};

opt::Table bcast_options()
{
    return {"bcast", {bcast_layout.type, bcast_layout.strides}};
}

class Bcast final : public Pattern {
public:
    Status configure(const OptionValues& values) override;
    Json options_json() const override { return {{"type", layout_.type}, {"strides", layout_.strides}}; }
    Status run(PatternContext& ctx) override;

private:
    Status check(const PatternContext& ctx) const;
    Result<std::vector<double>> series(PatternContext& ctx, Buffer& buffer, uint64_t size);
    Result<std::vector<double>> slowest(PatternContext& ctx, const std::vector<double>& mine) const;

    LayoutChoice layout_; // element type and strides
};

Status Bcast::configure(const OptionValues& values)
{
    opt::Reader read(bcast_options(), values);
    Result<LayoutChoice> layout = read_layout_choice(read, bcast_layout);
    if (!layout)
        return layout.status();
    layout_ = std::move(*layout);
    return Status::ok();
}

Status Bcast::check(const PatternContext& ctx) const
{
    // NGX_CAP_COLLECTIVES is declared in the PatternInfo: the command line checked it.
    if (layout_.strides.back() > 1 && !ctx.transport.has(NGX_CAP_DATATYPES))
        return Status::usage("module '" + ctx.transport.module().name() +
                             "' cannot send strided data itself (NGX_CAP_DATATYPES): use "
                             "--bcast-strides 1");
    if (ctx.bootstrap.nranks() < 2)
        return Status::usage("bcast needs P >= 2 ranks, got " + std::to_string(ctx.bootstrap.nranks()));
    return check_grid(ctx.settings.sizes, layout_.strides, layout_.element, max_message_bytes);
}

Result<std::vector<double>> Bcast::series(PatternContext& ctx, Buffer& buffer, uint64_t size)
{
    const RunSettings& s = ctx.settings;
    std::vector<double> mine;
    mine.reserve(s.count);
    for (uint64_t rep = 0; rep < s.warmup + s.count; ++rep) {
        if (ctx.interrupted())
            return Status::interrupted("size " + format_bytes(size) + ": interrupted");
        NGX_TRY(ctx.bootstrap.barrier("size " + format_bytes(size) + ": barrier"));
        uint64_t t0 = ctx.timer.now();
        NGX_TRY(ctx.transport.bcast(buffer.data(), size));
        uint64_t t1 = ctx.timer.now();
        if (rep >= s.warmup)
            mine.push_back(ctx.timer.to_us(t1 - t0));
    }
    return mine;
}

// Per repetition the slowest rank's time, on rank 0 (empty elsewhere).
Result<std::vector<double>> Bcast::slowest(PatternContext& ctx, const std::vector<double>& mine) const
{
    Bytes bytes(mine.size() * sizeof(double));
    std::memcpy(bytes.data(), mine.data(), bytes.size());
    std::vector<Bytes> all;
    NGX_TRY(ctx.bootstrap.gather(bytes, all, "gathering the ranks' times"));
    std::vector<double> worst = mine;
    for (const Bytes& rank : all) {
        if (rank.size() != bytes.size())
            return Status::runtime("a rank sent " + std::to_string(rank.size()) + " bytes of times, expected " +
                                   std::to_string(bytes.size()));
        for (size_t i = 0; i < worst.size(); ++i) {
            double t = 0;
            std::memcpy(&t, rank.data() + i * sizeof t, sizeof t);
            worst[i] = std::max(worst[i], t);
        }
    }
    return worst;
}

Status Bcast::run(PatternContext& ctx)
{
    NGX_TRY(check(ctx));
    const int P = ctx.bootstrap.nranks();
    const unsigned cpus = std::thread::hardware_concurrency();
    const bool oversubscribed = unsigned(P) > cpus;
    if (oversubscribed && ctx.bootstrap.rank() == 0)
        std::cerr << "ngx: note: bcast with P = " << P << " ranks on " << cpus
                  << " CPUs: oversubscribed (the broadcasts are correct; their times include ranks waiting for a "
                     "core)\n";
    const uint64_t largest = ctx.settings.sizes.back();
    NGX_ASSIGN_OR_RETURN(Buffer buffer,
                         ctx.transport.alloc(Layout{layout_.element, layout_.strides.back()}.span(largest)));
    std::memset(buffer.data(), 0x3c, buffer.size());
    for (uint64_t stride : layout_.strides)
        for (uint64_t size : ctx.settings.sizes) {
            if (ctx.transport.has(NGX_CAP_DATATYPES))
                NGX_TRY(ctx.transport.set_layout(layout_.element, stride, false));
            NGX_ASSIGN_OR_RETURN(std::vector<double> mine, series(ctx, buffer, size));
            NGX_ASSIGN_OR_RETURN(std::vector<double> worst, slowest(ctx, mine));
            ctx.sink.count_messages((ctx.settings.warmup + ctx.settings.count) * uint64_t(P - 1));
            if (ctx.bootstrap.rank() != 0)
                continue;
            SizeRecord record = make_record(ctx, size, std::move(worst));
            record.extra = {
                {"processes", double(P)}, {"stride", double(stride)}, {"oversubscribed", oversubscribed ? 1.0 : 0.0}};
            ctx.sink.size_done(std::move(record));
        }
    return Status::ok();
}

} // namespace

PatternInfo bcast_pattern()
{
    return {.name = "bcast",
            .description = "broadcast of s bytes (contiguous and strided) from rank 0 to all P ranks (module "
                           "collective)",
            .metric = "broadcast time of the last receiver",
            .default_sizes = "1Ki-64Ki",
            .options = bcast_options().specs(),
            .create = [] { return std::make_unique<Bcast>(); },
            .default_count = 200,
            .default_warmup = 20,
            // every rank of the run in one group (any P >= 2 under mpirun), through the module's broadcast
            .ranks = RankGrouping::group,
            .module_capabilities = NGX_CAP_COLLECTIVES,
            .strides_option = "bcast-strides"};
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::bcast_pattern)
