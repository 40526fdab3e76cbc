// One instance of a loaded module: initialised with its options, connected
// through the bootstrap, finalised on destruction. Patterns talk to the
// module only through this class; its send/recv are inline calls through the
// module's table with nothing else on the fast path.
//
//     Result<std::unique_ptr<Transport>> t = Transport::open(module, options, settings);
//     NGX_TRY((*t)->connect(boot));
//     Result<Buffer> buf = (*t)->alloc(1 << 20);
//     NGX_TRY((*t)->send(buf->data(), 64));
#ifndef NGX_TRANSPORT_HPP
#define NGX_TRANSPORT_HPP

#include <ngx/bootstrap.hpp>
#include <ngx/loader.hpp>
#include <ngx/options.hpp>
#include <ngx/status.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ngx {

struct TransportSettings {
    uint64_t timeout_ns = 10'000'000'000;
    const volatile int* cancel = nullptr;
    size_t max_message_size = 0;
    // --buffer-offset: every buffer from alloc() starts this many bytes past
    // a page boundary; unset, where the module's alloc puts it.
    std::optional<size_t> buffer_offset;
};

// The memory page size (sysconf), the unit of --buffer-offset.
size_t page_size();

// Bytes to add to `address` so that it lies `offset` bytes past a multiple of `page`.
inline size_t shift_to_page_offset(uintptr_t address, size_t offset, size_t page)
{
    return (offset + page - address % page) % page;
}

class Transport;

// A message buffer from the module (registered memory where it needs that).
class Buffer {
public:
    Buffer() = default;
    Buffer(Transport* owner, void* data, size_t size) : owner_(owner), data_(data), size_(size) {}
    Buffer(Buffer&& other) noexcept { swap(other); }
    Buffer& operator=(Buffer&& other) noexcept
    {
        swap(other);
        return *this;
    }
    ~Buffer();

    uint8_t* data() const { return static_cast<uint8_t*>(data_); }
    size_t size() const { return size_; }

private:
    void swap(Buffer& other) noexcept
    {
        std::swap(owner_, other.owner_);
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
    }
    Transport* owner_ = nullptr;
    void* data_ = nullptr;
    size_t size_ = 0;
};

class Transport {
public:
    static Result<std::unique_ptr<Transport>> open(LoadedModulePtr module, const OptionValues& options,
                                                   const TransportSettings& settings);
    ~Transport();
    Transport(const Transport&) = delete;
    Transport& operator=(const Transport&) = delete;

    Status connect(Bootstrap& boot);
    // A buffer of `size` bytes from the module (at the page offset
    // TransportSettings::buffer_offset asks for, when it does).
    Result<Buffer> alloc(size_t size);
    void release(void* data);

    const LoadedModule& module() const { return *module_; }
    bool has(uint32_t capability) const { return module_->has(capability); }

    Status send(const void* data, size_t size)
    {
        ngx_status code = ops_->send(ctx_, data, size, &error_);
        return code == NGX_OK ? Status() : failure("send", code);
    }

    Status recv(void* data, size_t size)
    {
        ngx_status code = ops_->recv(ctx_, data, size, &error_);
        return code == NGX_OK ? Status() : failure("recv", code);
    }

    // The same calls for timed loops: only the module's status code, nothing
    // else between the timer reads; failure() turns a failed code into the
    // Status that send()/recv() would have returned.
    ngx_status send_code(const void* data, size_t size) { return ops_->send(ctx_, data, size, &error_); }
    ngx_status recv_code(void* data, size_t size) { return ops_->recv(ctx_, data, size, &error_); }
    Status failure(const char* operation, ngx_status code);

    // After a failed send/recv: whether it lost a message that the pattern
    // may retry after resync(): NGX_ERR_LOST, or NGX_ERR_TIMEOUT of a module
    // without NGX_CAP_RELIABLE (it cannot tell a lost message from a silent peer).
    bool lost_message() const
    {
        return last_failure_ == NGX_ERR_LOST || (last_failure_ == NGX_ERR_TIMEOUT && !has(NGX_CAP_RELIABLE));
    }
    // Both peers, after a loss, at the same point: the module's resync op
    // (ABI 1.1) makes messages still in flight stale. A module without the
    // op has nothing to resynchronise (the loader's fallback returns OK).
    Status resync(Bootstrap& boot);

    // ABI 1.2, modules with NGX_CAP_DATATYPES: the layout of the following
    // messages (stride in elements; see ngx_layout), to_self for send to self.
    Status set_layout(size_t element, size_t stride, bool to_self);
    // ABI 1.2, modules with NGX_CAP_COLLECTIVES: rank 0's data reaches every rank.
    Status bcast(void* data, size_t size);
    // ABI 1.3: the work a completed receive left for the next one, done
    // now, outside a timed region (no-op for modules without the op).
    Status prepare_recv();
    // ABI 1.4: the module's simulated clock when it runs in virtual time
    // (sim --sim-clock virtual), after connect; none in real time.
    std::optional<ngx_virtual_clock> virtual_clock();
    // ABI 1.5, modules with NGX_CAP_PEER_LINKS: opens the link to
    // `to_peer.peer()` (a bootstrap addressed to that peer, see
    // ngx/peer_links.hpp), and makes following calls address `peer`.
    Status open_link(Bootstrap& to_peer);
    Status select_peer(int peer);
    // ABI 1.6, modules with NGX_CAP_LIBRARY_COLLECTIVES: the library's own
    // collective among every rank (the buffers: module.h, collective).
    Status collective(ngx_collective_op op, const void* send, void* recv, size_t bytes);

    // ABI 1.7, modules with NGX_CAP_ONE_SIDED: both peers expose a buffer
    // of alloc() as the window the other's put/get address; flush completes
    // every put and get since the last one at both ends (module.h).
    Status expose(Bootstrap& boot, Buffer& window);
    Status put(const void* local, size_t offset, size_t size)
    {
        ngx_status code = ops_->put(ctx_, local, offset, size, &error_);
        return code == NGX_OK ? Status() : failure("put", code);
    }
    Status get(void* local, size_t offset, size_t size)
    {
        ngx_status code = ops_->get(ctx_, local, offset, size, &error_);
        return code == NGX_OK ? Status() : failure("get", code);
    }
    Status flush()
    {
        ngx_status code = ops_->flush(ctx_, &error_);
        return code == NGX_OK ? Status() : failure("flush", code);
    }

    Status isend(const void* data, size_t size, ngx_request& request);
    Status irecv(void* data, size_t size, ngx_request& request);
    Result<bool> test(ngx_request& request);
    Status wait(ngx_request& request);

private:
    Transport(LoadedModulePtr module, void* ctx) : module_(std::move(module)), ops_(&module_->ops()), ctx_(ctx) {}
    LoadedModulePtr module_;
    const ngx_module_ops* ops_;
    void* ctx_;
    ngx_error error_{};
    ngx_status last_failure_ = NGX_OK;
    // The plugins' inline calls depend on this layout: a change bumps NGX_PATTERN_ABI_VERSION.
    std::optional<size_t> buffer_offset_;
    std::vector<std::pair<void*, void*>>
        shifted_; // (what alloc() returned, what the module gave) under --buffer-offset
};

} // namespace ngx

#endif
