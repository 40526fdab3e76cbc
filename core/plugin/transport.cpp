// Module instances: init, connect, buffers, non-blocking calls (see transport.hpp).
#include <ngx/transport.hpp>

#include <unistd.h>

namespace ngx {
namespace {

// Builds the C option list from the values the CLI collected.
std::vector<ngx_option_value> c_options(const OptionValues& options)
{
    std::vector<ngx_option_value> values;
    values.reserve(options.size());
    for (const auto& [name, value] : options)
        values.push_back({name.c_str(), value.c_str()});
    return values;
}

std::string message_of(const ngx_error& error, const char* fallback)
{
    return error.message[0] != '\0' ? std::string(error.message) : std::string(fallback);
}

} // namespace

size_t page_size()
{
    long size = sysconf(_SC_PAGESIZE);
    return size > 0 ? size_t(size) : 4096;
}

Buffer::~Buffer()
{
    if (owner_ != nullptr && data_ != nullptr)
        owner_->release(data_);
}

Result<std::unique_ptr<Transport>> Transport::open(LoadedModulePtr module, const OptionValues& options,
                                                   const TransportSettings& settings)
{
    std::vector<ngx_option_value> values = c_options(options);
    ngx_init_args args{};
    args.size = sizeof args;
    args.options = values.data();
    args.option_count = values.size();
    args.timeout_ns = settings.timeout_ns;
    args.cancel = settings.cancel;
    args.max_message_size = settings.max_message_size;
    ngx_error error{};
    void* ctx = nullptr;
    ngx_status code = module->ops().init(&args, &ctx, &error);
    if (code != NGX_OK)
        return Status::from_module(code, module->name() + ": init: " + message_of(error, "failed"));
    std::unique_ptr<Transport> transport(new Transport(std::move(module), ctx));
    transport->buffer_offset_ = settings.buffer_offset;
    return transport;
}

Transport::~Transport()
{
    ops_->finalize(ctx_);
}

Status Transport::failure(const char* operation, ngx_status code)
{
    last_failure_ = code;
    return Status::from_module(code, module_->name() + " " + operation + ": " + message_of(error_, "failed"));
}

Status Transport::connect(Bootstrap& boot)
{
    ngx_bootstrap view = boot.c_view();
    ngx_status code = ops_->connect(ctx_, &view, &error_);
    return code == NGX_OK ? Status() : failure("connect", code);
}

Result<Buffer> Transport::alloc(size_t size)
{
    const size_t page = page_size();
    void* base = nullptr;
    ngx_status code = ops_->alloc(ctx_, (size == 0 ? 64 : size) + (buffer_offset_ ? page : 0), &base, &error_);
    if (code != NGX_OK)
        return failure("alloc", code);
    if (!buffer_offset_)
        return Buffer(this, base, size);
    void* data = static_cast<uint8_t*>(base) + shift_to_page_offset(uintptr_t(base), *buffer_offset_, page);
    shifted_.emplace_back(data, base);
    return Buffer(this, data, size);
}

void Transport::release(void* data)
{
    for (auto it = shifted_.begin(); it != shifted_.end(); ++it)
        if (it->first == data) {
            data = it->second;
            shifted_.erase(it);
            break;
        }
    ops_->free(ctx_, data);
}

// The optional operations need no checks: the loader filled in the ones the
// module lacks (see LoadedModule::ops()).
Status Transport::isend(const void* data, size_t size, ngx_request& request)
{
    ngx_status code = ops_->isend(ctx_, data, size, &request, &error_);
    return code == NGX_OK ? Status() : failure("isend", code);
}

Status Transport::irecv(void* data, size_t size, ngx_request& request)
{
    ngx_status code = ops_->irecv(ctx_, data, size, &request, &error_);
    return code == NGX_OK ? Status() : failure("irecv", code);
}

Result<bool> Transport::test(ngx_request& request)
{
    int done = 0;
    ngx_status code = ops_->test(ctx_, &request, &done, &error_);
    if (code != NGX_OK)
        return failure("test", code);
    return done != 0;
}

Status Transport::wait(ngx_request& request)
{
    ngx_status code = ops_->wait(ctx_, &request, &error_);
    return code == NGX_OK ? Status() : failure("wait", code);
}

Status Transport::set_layout(size_t element, size_t stride, bool to_self)
{
    ngx_layout layout{sizeof(ngx_layout), element, stride, to_self ? 1 : 0};
    ngx_status code = ops_->set_layout(ctx_, &layout, &error_);
    return code == NGX_OK ? Status() : failure("set_layout", code);
}

Status Transport::bcast(void* data, size_t size)
{
    ngx_status code = ops_->bcast(ctx_, data, size, &error_);
    return code == NGX_OK ? Status() : failure("bcast", code);
}

Status Transport::prepare_recv()
{
    ngx_status code = ops_->prepare_recv(ctx_, &error_);
    return code == NGX_OK ? Status() : failure("prepare_recv", code);
}

std::optional<ngx_virtual_clock> Transport::virtual_clock()
{
    ngx_virtual_clock clock{};
    ngx_error ignored{};
    if (ops_->virtual_clock(ctx_, &clock, &ignored) != NGX_OK || clock.now == nullptr || clock.advance_to == nullptr ||
        !(clock.ticks_per_us > 0))
        return std::nullopt;
    return clock;
}

Status Transport::open_link(Bootstrap& to_peer)
{
    ngx_bootstrap view = to_peer.c_view();
    ngx_status code = ops_->open_link(ctx_, &view, &error_);
    return code == NGX_OK ? Status() : failure("open_link", code);
}

Status Transport::select_peer(int peer)
{
    ngx_status code = ops_->select_peer(ctx_, peer, &error_);
    return code == NGX_OK ? Status() : failure("select_peer", code);
}

Status Transport::collective(ngx_collective_op op, const void* send, void* recv, size_t bytes)
{
    ngx_status code = ops_->collective(ctx_, int(op), send, recv, bytes, &error_);
    return code == NGX_OK ? Status() : failure("collective", code);
}

Status Transport::expose(Bootstrap& boot, Buffer& window)
{
    ngx_bootstrap view = boot.c_view();
    ngx_status code = ops_->expose(ctx_, &view, window.data(), window.size(), &error_);
    return code == NGX_OK ? Status() : failure("expose", code);
}

Status Transport::resync(Bootstrap& boot)
{
    last_failure_ = NGX_OK;
    ngx_bootstrap view = boot.c_view();
    ngx_status code = ops_->resync(ctx_, &view, &error_);
    return code == NGX_OK ? Status() : failure("resync", code);
}

} // namespace ngx
