// Pattern "strided": non-contiguous messages and the log3P model of
// Cameron et al. 2007. For every stride d (elements of --strided-type,
// d = 1 contiguous) and size s (data bytes) it measures
//   T_0,1(s,d)  the remote half round trip,
//   T_0,0(s,d)  send to self through the module (middleware without network),
//   T_mem(s,d)  the copy of the same layout alone,
//   pack/unpack gathering into / scattering from a contiguous buffer.
// Modules with NGX_CAP_DATATYPES (mpi) move the strided array themselves
// (MPI_Type_vector, set through the optional set_layout op), as MPI users
// do; they also get the manual alternative ("manual_us": pack, contiguous
// transfer, unpack). Raw modules are driven the manual way: T_0,1 holds the
// pack and unpack, and so does T_0,0 where the module can address its own
// process (NGX_CAP_SEND_TO_SELF: tcp, udp, shm and ibv): pack, send to self
// through the module, unpack. A module with neither capability gets T_0,0
// as pack + copy + unpack in this process, without the module (the JSON's
// send_to_self says which of the three). The rows come per stride, unit
// stride first; the row's summary is over every T_0,1 sample, while the
// columns t01_us, t00_us, ... are Cameron et al. 2007's estimate (section 3.2: the
// minimum over blocks of the mean, measure.hpp), which the model uses. Each
// row has the log3P terms of its size (section 4.1):
// o_mw = T_0,0(s) - T_mem(s), o_net = T_0,1(s) - o_mw,
// l_mw = T_0,0(s,d) - o_mw - T_mem(s), and the prediction o_mw + l_mw + o_net
// (eq. (6)); the model (models/log3p/log3p_model.hpp) follows the last row.
#include <ngx/pattern_plugin.hpp>
#include <ngx/sizes.hpp>

#include <ngx/measure/prtt.hpp>
#include <ngx/measure/strided_layout.hpp>
#include <ngx/measure/sweep.hpp>
#include <models/log3p/log3p_model.hpp>
#include "measure.hpp"
#include <models/log3p/log3p_offline.hpp>

#include <cstring>
#include <map>

namespace ngx::patterns {
namespace {

constexpr const char* manual_self = "pack + copy + unpack in this process (the module cannot send to itself)";
constexpr const char* module_self = "through the module (isend + recv + wait to this rank)";

constexpr LayoutRows strided_layout = {
    type_row("strided-type"),
    opt::row::text("strided-strides", "1,2,16,64,256,1Ki", "strides in elements (1: contiguous; always measured)")};
constexpr auto strided_max_span = opt::row::byte_count("strided-max-span", "512Mi", 1, max_message_bytes,
                                                       "largest bytes one strided array may span (size x stride)");

opt::Table strided_options()
{
    return {"strided", {strided_layout.type, strided_layout.strides, strided_max_span}};
}
constexpr const char* packed_self = "pack, send + recv to this process through the module, unpack";

enum class SelfPath { module, packed, in_process };

class Strided final : public Pattern {
public:
    Status configure(const OptionValues& values) override;
    Json options_json() const override
    {
        return {{"type", layout_.type}, {"strides", layout_.strides}, {"max_span", max_span_}};
    }
    Status run(PatternContext& ctx) override;

private:
    Result<StridedBuffers> allocate(PatternContext& ctx) const;
    Result<GridPoint> measure(PatternContext& ctx, StridedBuffers& b, uint64_t size, uint64_t stride,
                              double& manual_us);
    SizeRecord row(const PatternContext& ctx, const GridPoint& point, std::vector<double> t01, double manual_us) const;

    LayoutChoice layout_; // element type and strides
    uint64_t max_span_ = 0;
    bool datatypes_ = false;
    SelfPath self_ = SelfPath::in_process;
    std::map<uint64_t, GridPoint> unit_; // the unit-stride point per size
    std::vector<double> last_samples_;   // T_0,1 samples of the point just measured (driver)
    std::vector<GridPoint> grid_;
};

Status Strided::configure(const OptionValues& values)
{
    opt::Reader read(strided_options(), values);
    Result<LayoutChoice> layout = read_layout_choice(read, strided_layout);
    if (!layout)
        return layout.status();
    layout_ = std::move(*layout);
    if (layout_.strides.front() != 1) // the model needs the contiguous case at every size
        layout_.strides.insert(layout_.strides.begin(), 1);
    max_span_ = read(strided_max_span);
    return read.ok() ? Status::ok() : Status::usage(read.error());
}

Result<StridedBuffers> Strided::allocate(PatternContext& ctx) const
{
    const uint64_t largest = ctx.settings.sizes.back();
    const size_t span = Layout{layout_.element, layout_.strides.back()}.span(largest);
    StridedBuffers b;
    for (Buffer* buffer : {&b.a, &b.b}) {
        NGX_ASSIGN_OR_RETURN(Buffer got, ctx.transport.alloc(span));
        *buffer = std::move(got);
        std::memset(buffer->data(), 0x5a, span); // touched: no page faults in the timed loops
    }
    for (Buffer* buffer : {&b.packed, &b.packed2}) {
        NGX_ASSIGN_OR_RETURN(Buffer got, ctx.transport.alloc(largest));
        *buffer = std::move(got);
        std::memset(buffer->data(), 0xa5, largest);
    }
    return b;
}

Result<GridPoint> Strided::measure(PatternContext& ctx, StridedBuffers& b, uint64_t size, uint64_t stride,
                                   double& manual_us)
{
    const Layout layout{layout_.element, stride};
    GridPoint p{size, stride};
    manual_us = std::nan("");
    std::vector<double> t01;
    if (datatypes_) {
        NGX_TRY(ctx.transport.set_layout(layout_.element, stride, false));
        PrttSpec spec{size, 1, 0.0, ctx.settings.count, ctx.settings.warmup};
        NGX_ASSIGN_OR_RETURN(std::vector<double> prtt, run_prtt(ctx, b.a, spec));
        for (double& sample : prtt)
            t01.push_back(sample / 2);
        NGX_TRY(ctx.bootstrap.barrier("size " + format_bytes(size) + ": before the manual transfer"));
        NGX_TRY(ctx.transport.set_layout(layout_.element, 1, false));
        NGX_ASSIGN_OR_RETURN(std::vector<double> manual, remote_manual(ctx, b, layout, size));
        if (!manual.empty())
            manual_us = min_of_means(manual);
    } else {
        NGX_ASSIGN_OR_RETURN(std::vector<double> manual, remote_manual(ctx, b, layout, size));
        t01 = std::move(manual);
    }
    if (!ctx.bootstrap.is_driver())
        return p;
    p.t_remote = min_of_means(t01);
    last_samples_ = std::move(t01);
    p.t_mem = local_time(ctx, "T_mem (copy of the layout)", [&] { copy_layout(layout, b.a.data(), b.b.data(), size); });
    p.pack = local_time(ctx, "pack", [&] { pack(layout, b.a.data(), b.packed.data(), size); });
    p.unpack = local_time(ctx, "unpack", [&] { unpack(layout, b.packed.data(), b.b.data(), size); });
    if (self_ != SelfPath::in_process) {
        NGX_ASSIGN_OR_RETURN(std::vector<double> self,
                             self_through_module(ctx, b, layout, size, self_ == SelfPath::packed));
        p.t_self = min_of_means(self);
    } else {
        p.t_self = local_time(ctx, "send to self (pack, copy, unpack)", [&] {
            if (stride == 1) {
                std::memcpy(b.b.data(), b.a.data(), size);
                return;
            }
            pack(layout, b.a.data(), b.packed.data(), size);
            std::memcpy(b.packed2.data(), b.packed.data(), size);
            unpack(layout, b.packed2.data(), b.b.data(), size);
        });
    }
    return p;
}

SizeRecord Strided::row(const PatternContext& ctx, const GridPoint& p, std::vector<double> t01, double manual_us) const
{
    SizeRecord record = make_record(ctx, p.size, std::move(t01));
    record.extra = {{"stride", double(p.stride)}, {"t01_us", p.t_remote}, {"t00_us", p.t_self},
                    {"tmem_us", p.t_mem},         {"pack_us", p.pack},    {"unpack_us", p.unpack}};
    if (datatypes_)
        record.extra.emplace_back("manual_us", manual_us);
    auto unit = unit_.find(p.size);
    if (unit == unit_.end())
        return record;
    const Log3PParts parts = log3p_parts(unit->second, p); // models/log3p
    record.extra.emplace_back("o_mw_us", parts.o_mw);
    record.extra.emplace_back("o_net_us", parts.o_net);
    record.extra.emplace_back("l_mw_us", parts.l_mw);
    record.extra.emplace_back("log3p_us", parts.time_us()); // eq. (6)
    return record;
}

Status Strided::run(PatternContext& ctx)
{
    NGX_TRY(check_grid(ctx.settings.sizes, layout_.strides, layout_.element, max_span_));
    datatypes_ = ctx.transport.has(NGX_CAP_DATATYPES);
    self_ = datatypes_                                ? SelfPath::module
            : ctx.transport.has(NGX_CAP_SEND_TO_SELF) ? SelfPath::packed
                                                      : SelfPath::in_process;
    NGX_ASSIGN_OR_RETURN(StridedBuffers buffers, allocate(ctx));
    for (uint64_t stride : layout_.strides)
        for (uint64_t size : ctx.settings.sizes) {
            mark_step(ctx.settings.progress, "waiting for the peer before the size", size);
            NGX_TRY(ctx.bootstrap.barrier("size " + format_bytes(size) + ", stride " + std::to_string(stride) +
                                          ": waiting for the peer"));
            mark_step(ctx.settings.progress, "measuring");
            double manual_us = 0;
            Result<GridPoint> point = measure(ctx, buffers, size, stride, manual_us);
            if (!point)
                return point.status().with_context("stride " + std::to_string(stride));
            if (!ctx.bootstrap.is_driver())
                continue;
            if (stride == 1)
                unit_[size] = *point;
            grid_.push_back(*point);
            ctx.sink.size_done(row(ctx, *point, std::move(last_samples_), manual_us));
        }
    if (!ctx.bootstrap.is_driver())
        return Status::ok();
    const char* self_path = self_ == SelfPath::module   ? module_self
                            : self_ == SelfPath::packed ? packed_self
                                                        : manual_self;
    NGX_ASSIGN_OR_RETURN(Json model, grid_model(grid_, layout_.element, layout_.type, self_path));
    ctx.sink.set_model(std::move(model));
    return Status::ok();
}

} // namespace

PatternInfo strided_pattern()
{
    return {.name = "strided",
            .description = "strided messages over sizes x strides: T_0,1, send to self T_0,0, T_mem, pack/unpack, "
                           "log3P (Cameron et al. 2007)",
            .metric = "half round trip of s bytes of strided data",
            .default_sizes = "1Ki-64Ki",
            .options = strided_options().specs(),
            .create = [] { return std::make_unique<Strided>(); },
            .default_count = 200,
            .default_warmup = 20,
            .strides_option = "strided-strides",
            .models = {log3p_model_kind()}};
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::strided_pattern)
