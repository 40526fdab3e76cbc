// What both example patterns do per size, before their own measurement: stop
// when interrupted, allocate the message buffer, and meet the peer at a barrier.
//
//     return each_size(ctx, [&](Buffer& buffer, uint64_t size) -> Status { ... });
#ifndef NGX_EXAMPLE_SIZE_LOOP_HPP
#define NGX_EXAMPLE_SIZE_LOOP_HPP

#include <ngx/pattern.hpp>

#include <cstdint>
#include <string>

namespace example {

template <typename Measure>
ngx::Status each_size(ngx::PatternContext& ctx, Measure&& measure)
{
    for (uint64_t size : ctx.settings.sizes) {
        if (ctx.interrupted())
            return ngx::Status::interrupted();
        ngx::Result<ngx::Buffer> buffer = ctx.transport.alloc(size > 0 ? size : 1);
        if (!buffer)
            return buffer.status();
        if (ngx::Status barrier = ctx.bootstrap.barrier("example: size " + std::to_string(size)); !barrier)
            return barrier;
        if (ngx::Status measured = measure(*buffer, size); !measured)
            return measured;
    }
    return ngx::Status::ok();
}

} // namespace example

#endif
