// Pattern "bcast": a broadcast of s bytes from rank 0 to every rank of the
// run (P = all ranks under mpirun), through the module's optional bcast op
// (NGX_CAP_COLLECTIVES; mpi: MPI_Bcast), contiguous and strided (the
// module's set_layout, NGX_CAP_DATATYPES: MPI_Type_vector). It measures what
// `ngx predict --params STRIDED.json --compare-to BCAST.json` checks the
// broadcast predictions of log3P, LogGP and LogGPS against (paper 000,
// section 4.3.3). Every repetition starts at a barrier; each rank times its
// own call, and a repetition lasts as long as its slowest rank (the last
// receiver): the row's samples are those maxima, gathered on rank 0. Ranks
// beyond the machine's CPUs still give correct results but share cores: the
// "oversubscribed" column says so (1).
#include <ngx/pattern_plugin.hpp>
#include <ngx/sizes.hpp>

#include "../common/sweep.hpp"
#include "../strided/layout.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

namespace ngx::patterns {
namespace {

class Bcast final : public Pattern {
public:
    Status configure(const OptionValues& values) override;
    Json options_json() const override { return {{"type", type_}, {"strides", strides_}}; }
    Status run(PatternContext& ctx) override;

private:
    Status check(const PatternContext& ctx) const;
    Result<std::vector<double>> series(PatternContext& ctx, Buffer& buffer, uint64_t size);
    Result<std::vector<double>> slowest(PatternContext& ctx, const std::vector<double>& mine) const;

    std::string type_ = "double";
    size_t element_ = 8;
    std::vector<uint64_t> strides_;
};

Status Bcast::configure(const OptionValues& values)
{
    opt::OptionReader read(values);
    type_ = read.text("bcast-type");
    Result<size_t> element = element_size(type_);
    if (!element)
        return element.status();
    element_ = *element;
    Result<std::vector<uint64_t>> strides = parse_strides(read.text("bcast-strides"), "bcast-strides");
    if (!strides)
        return strides.status();
    strides_ = std::move(*strides);
    return Status::ok();
}

Status Bcast::check(const PatternContext& ctx) const
{
    const std::string module = ctx.transport.module().name();
    if (!ctx.transport.has(NGX_CAP_COLLECTIVES))
        return Status::usage("module '" + module +
                             "' has no collectives (NGX_CAP_COLLECTIVES): bcast needs a module with a broadcast, "
                             "e.g. mpirun -np 4 ngx -m mpi -x bcast");
    if (strides_.back() > 1 && !ctx.transport.has(NGX_CAP_DATATYPES))
        return Status::usage("module '" + module +
                             "' cannot send strided data itself (NGX_CAP_DATATYPES): use "
                             "--bcast-strides 1");
    if (ctx.bootstrap.nranks() < 2)
        return Status::usage("bcast needs P >= 2 ranks, got " + std::to_string(ctx.bootstrap.nranks()));
    return check_grid(ctx.settings.sizes, strides_, element_, max_message_bytes);
}

Result<std::vector<double>> Bcast::series(PatternContext& ctx, Buffer& buffer, uint64_t size)
{
    const RunSettings& s = ctx.settings;
    std::vector<double> mine;
    mine.reserve(s.count);
    for (uint64_t rep = 0; rep < s.warmup + s.count; ++rep) {
        if (ctx.interrupted())
            return Status::interrupted("size " + format_bytes(size) + ": interrupted");
        NGX_TRY(ctx.bootstrap.barrier().with_context("size " + format_bytes(size) + ": barrier"));
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
    NGX_TRY(ctx.bootstrap.gather(bytes, all).with_context("gathering the ranks' times"));
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
    const bool oversubscribed = unsigned(P) > std::thread::hardware_concurrency();
    const uint64_t largest = ctx.settings.sizes.back();
    Result<Buffer> buffer = ctx.transport.alloc(Layout{element_, strides_.back()}.span(largest));
    if (!buffer)
        return buffer.status();
    std::memset(buffer->data(), 0x3c, buffer->size());
    for (uint64_t stride : strides_)
        for (uint64_t size : ctx.settings.sizes) {
            if (ctx.transport.has(NGX_CAP_DATATYPES))
                NGX_TRY(ctx.transport.set_layout(element_, stride, false));
            Result<std::vector<double>> mine = series(ctx, *buffer, size);
            if (!mine)
                return mine.status();
            Result<std::vector<double>> worst = slowest(ctx, *mine);
            if (!worst)
                return worst.status();
            ctx.sink.count_messages((ctx.settings.warmup + ctx.settings.count) * uint64_t(P - 1));
            if (ctx.bootstrap.rank() != 0)
                continue;
            SizeRecord record = make_record(ctx, size, std::move(*worst));
            record.extra = {
                {"processes", double(P)}, {"stride", double(stride)}, {"oversubscribed", oversubscribed ? 1.0 : 0.0}};
            ctx.sink.size_done(std::move(record));
        }
    return Status::ok();
}

} // namespace

PatternInfo bcast_pattern()
{
    PatternInfo info;
    info.name = "bcast";
    info.description = "broadcast of s bytes (contiguous and strided) from rank 0 to all P ranks (module collective)";
    info.metric = "broadcast time of the last receiver";
    info.default_sizes = "1Ki-64Ki";
    info.default_count = 200;
    info.default_warmup = 20;
    info.options = {{"bcast-type", "double", "element type: double, int or char"},
                    {"bcast-strides", "1,64", "strides in elements (1: contiguous)"}};
    info.create = [] { return std::make_unique<Bcast>(); };
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::bcast_pattern)
