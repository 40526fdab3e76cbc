// Helpers for writing an ngx module in C++: error reporting, option values
// (through ngx/options.hpp, so a bad value reads like every other one),
// deadlines for blocking loops, waiting on a file descriptor, the bootstrap
// exchange of connection blobs and plain aligned buffers. Header-only, so an
// out-of-tree module needs nothing but the installed headers.
//
//     constexpr auto tcp_port = ngx::opt::row::whole_number("tcp-port", "0", 0, 65535, "port to listen on");
//     const ngx::mod::OptionTable options("tcp", {tcp_port});    // descriptor: options.specs(), options.size()
//
//     ngx::mod::ModuleOptions read(args, options);
//     uint64_t port = read(tcp_port);                                // absent: the row's default
//     if (ngx_status s = read.status(err); s != NGX_OK) return s;    // "--tcp-port 'x': expected ..."
//
//     ngx_status my_recv(void* ctx, void* buf, size_t len, ngx_error* err) {
//         auto* c = static_cast<Ctx*>(ctx);
//         ngx::mod::Deadline deadline(c->timeout_ns);
//         while (!ready(c)) {
//             if (deadline.poll_expired())
//                 return ngx::mod::fail(err, NGX_ERR_TIMEOUT, "recv: no message from the peer within %.1f s",
//                                       deadline.seconds());
//         }
//         ...
//     }
#ifndef NGX_MODULE_SUPPORT_HPP
#define NGX_MODULE_SUPPORT_HPP

#include <ngx/module.h>
#include <ngx/options.hpp>

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ngx::mod {

// Writes a printf-style message into err (if given) and returns status, so a
// failing path reads `return fail(err, NGX_ERR_SYSTEM, "socket: %s", strerror(errno));`.
[[gnu::format(printf, 3, 4)]] inline ngx_status fail(ngx_error* err, ngx_status status, const char* format, ...)
{
    if (err != nullptr) {
        va_list args;
        va_start(args, format);
        std::vsnprintf(err->message, sizeof err->message, format, args);
        va_end(args);
    }
    return status;
}

// The text of an errno value, thread-safe.
inline const char* errno_text(int error_number)
{
    return strerrordesc_np(error_number) != nullptr ? strerrordesc_np(error_number) : "unknown error";
}

// A module's option rows as the C ABI carries them (ngx_option_spec: name,
// default, and the help with the row's type and range), built once from the
// rows; the descriptor points at specs() and size(). Not copyable: the
// specs point into its own strings.
class OptionTable {
public:
    OptionTable(std::string module, std::initializer_list<opt::Row> rows) : table_(std::move(module), rows)
    {
        for (const opt::Row& row : table_.rows()) {
            opt::OptionSpec spec = opt::spec_of(row);
            names_.push_back(std::move(spec.name));
            defaults_.push_back(std::move(spec.default_value));
            helps_.push_back(std::move(spec.help));
        }
        for (size_t i = 0; i < names_.size(); ++i)
            specs_.push_back(
                {names_[i].c_str(), table_.rows()[i].has_default ? defaults_[i].c_str() : nullptr, helps_[i].c_str()});
    }
    OptionTable(const OptionTable&) = delete;
    OptionTable& operator=(const OptionTable&) = delete;

    const opt::Table& table() const { return table_; }
    const ngx_option_spec* specs() const { return specs_.data(); }
    size_t size() const { return specs_.size(); }

private:
    opt::Table table_;
    std::vector<std::string> names_, defaults_, helps_;
    std::vector<ngx_option_spec> specs_;
};

// A module's options as init() got them, read through its rows
// (ngx/options.hpp): a row not given reads as its default, or as an empty
// value when it has none (a test harness may pass no options at all); the
// first bad value is kept, and status() turns it into NGX_ERR_INVALID_OPTION
// with the one message format. A row not in the module's table is refused.
class ModuleOptions {
public:
    ModuleOptions(const ngx_init_args* args, const OptionTable& options) : read_(options.table(), opt::values_of(args))
    {
    }

    template <typename T>
    T operator()(const opt::Option<T>& option)
    {
        return read_.optional(option).value_or(T{});
    }
    template <typename T>
    std::optional<T> optional(const opt::Option<T>& option)
    {
        return read_.optional(option);
    }
    bool given(const opt::Row& option) { return read_.given(option); }
    std::string text_of(const opt::Row& option) { return read_.text_of(option); }

    // A value the module rejects for its own reason, in the same format.
    void reject(const opt::Row& option, std::string_view why) { read_.reject(option, why); }
    void fail(std::string message) { read_.fail(std::move(message)); }

    bool ok() const { return read_.ok(); }
    ngx_status status(ngx_error* err) const
    {
        return ok() ? NGX_OK : ngx::mod::fail(err, NGX_ERR_INVALID_OPTION, "%s", read_.error().c_str());
    }

private:
    opt::Reader read_;
};

// The value of option `name` as the core passed it, or nullptr when absent.
inline const char* option(const ngx_init_args* args, std::string_view name)
{
    for (size_t i = 0; i < args->option_count; ++i)
        if (name == args->options[i].name)
            return args->options[i].value;
    return nullptr;
}

// Parses a whole decimal unsigned integer in [min, max]; nullopt on junk or range error.
inline std::optional<uint64_t> parse_unsigned(const char* text, uint64_t min, uint64_t max)
{
    if (text == nullptr || *text == '\0' || *text == '-' || *text == '+')
        return std::nullopt;
    char* end = nullptr;
    errno = 0;
    unsigned long long value = std::strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < min || value > max)
        return std::nullopt;
    return value;
}

// Parses a whole finite decimal number in [min, max].
inline std::optional<double> parse_double(const char* text, double min, double max)
{
    if (text == nullptr || *text == '\0')
        return std::nullopt;
    char* end = nullptr;
    errno = 0;
    double value = std::strtod(text, &end);
    if (errno != 0 || *end != '\0' || !(value >= min && value <= max))
        return std::nullopt;
    return value;
}

inline uint64_t monotonic_ns()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// A point in time after which a blocking step gives up. poll_expired() reads
// the clock only every `stride` calls so that spin loops stay cheap.
class Deadline {
public:
    explicit Deadline(uint64_t timeout_ns, unsigned stride = 1024)
            : timeout_ns_(timeout_ns), end_ns_(monotonic_ns() + timeout_ns), stride_(stride)
    {
    }

    bool expired() const { return monotonic_ns() >= end_ns_; }

    bool poll_expired()
    {
        if (++calls_ < stride_)
            return false;
        calls_ = 0;
        return expired();
    }

    // Milliseconds left, for poll(2); never negative.
    int remaining_ms() const
    {
        uint64_t now = monotonic_ns();
        return now >= end_ns_ ? 0 : int((end_ns_ - now + 999999) / 1000000);
    }

    double seconds() const { return double(timeout_ns_) / 1e9; }

private:
    uint64_t timeout_ns_;
    uint64_t end_ns_;
    unsigned stride_;
    unsigned calls_ = 0;
};

// alloc and free for a module whose buffers are plain memory aligned to
// `alignment` bytes (a cache line, a page): its table names
// ngx::mod::heap_alloc<64> and ngx::mod::heap_free.
template <size_t alignment>
ngx_status heap_alloc(void*, size_t len, void** buf, ngx_error* err)
{
    size_t rounded = (len + alignment - 1) / alignment * alignment;
    void* p = std::aligned_alloc(alignment, rounded > 0 ? rounded : alignment);
    if (p == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "alloc: cannot allocate %zu bytes", len);
    *buf = p;
    return NGX_OK;
}

inline void heap_free(void*, void* buf)
{
    std::free(buf);
}

inline bool cancelled(const volatile int* cancel)
{
    return cancel != nullptr && *cancel != 0;
}

// Waits until fd reports one of `events` (POLLIN, POLLOUT) or the deadline
// passes; EINTR ends the wait only when the cancel flag is raised. `step`
// ("accept", "send") starts the error message.
inline ngx_status wait_fd(int fd, short events, const Deadline& deadline, const volatile int* cancel, const char* step,
                          ngx_error* err)
{
    for (;;) {
        pollfd entry{fd, events, 0};
        int ready = poll(&entry, 1, deadline.remaining_ms());
        if (ready > 0)
            return NGX_OK;
        if (ready == 0)
            return fail(err, NGX_ERR_TIMEOUT, "%s: no answer from the peer within %.1f s (is it alive?)", step,
                        deadline.seconds());
        if (errno != EINTR)
            return fail(err, NGX_ERR_SYSTEM, "%s: poll: %s", step, errno_text(errno));
        if (cancelled(cancel))
            return fail(err, NGX_ERR_INTERRUPTED, "%s: interrupted", step);
    }
}

// Sends `mine` to the peer through the bootstrap and stores the peer's blob
// (text or bytes, at most `capacity` of them) in *theirs.
inline ngx_status exchange_blob(const ngx_bootstrap* boot, std::string_view mine, std::string* theirs, size_t capacity,
                                ngx_error* err)
{
    std::string buffer(capacity, '\0');
    size_t len = 0;
    ngx_status status = boot->exchange(boot->ctx, mine.data(), mine.size(), buffer.data(), capacity, &len, err);
    if (status != NGX_OK)
        return status;
    buffer.resize(len < capacity ? len : capacity);
    *theirs = std::move(buffer);
    return NGX_OK;
}

// A small input file an option names (a table, a list of hosts): a regular
// file of at most max_bytes, read whole. A FIFO, a device or a directory is
// refused without blocking (O_NONBLOCK), so that neither a FIFO without a
// writer nor /dev/zero can hold or fill the process; *why says what is wrong.
inline bool read_small_file(const std::string& path, size_t max_bytes, std::string* text, std::string* why)
{
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        *why = "'" + path + "' cannot be read: " + errno_text(errno);
        return false;
    }
    struct stat info {};
    bool ok = false;
    if (fstat(fd, &info) != 0)
        *why = "'" + path + "': " + errno_text(errno);
    else if (!S_ISREG(info.st_mode))
        *why = "'" + path + "' is not a regular file (a FIFO, device or directory is refused)";
    else if (uint64_t(info.st_size) > max_bytes)
        *why = "'" + path + "' is larger than " + std::to_string(max_bytes) + " bytes";
    else
        ok = true;
    std::string content;
    while (ok) {
        char chunk[4096];
        ssize_t got = ::read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *why = "'" + path + "' cannot be read: " + errno_text(errno);
            ok = false;
        } else if (content.size() + size_t(got) > max_bytes) { // grew since fstat
            *why = "'" + path + "' is larger than " + std::to_string(max_bytes) + " bytes";
            ok = false;
        } else if (got == 0) {
            break;
        } else {
            content.append(chunk, size_t(got));
        }
    }
    ::close(fd);
    if (ok)
        *text = std::move(content);
    return ok;
}

// A numeric address as bytes, to tell whether two name the same host (an
// IPv4-mapped IPv6 address as its IPv4 one, a zone such as "%eth0" left
// out); "" when it is not a numeric address.
inline std::string address_key(const std::string& host)
{
    const std::string numeric = host.substr(0, host.find('%'));
    unsigned char bytes[16];
    if (inet_pton(AF_INET, numeric.c_str(), bytes) == 1)
        return std::string(reinterpret_cast<const char*>(bytes), 4);
    if (inet_pton(AF_INET6, numeric.c_str(), bytes) != 1)
        return "";
    in6_addr six;
    std::memcpy(&six, bytes, sizeof six);
    if (IN6_IS_ADDR_V4MAPPED(&six))
        return std::string(reinterpret_cast<const char*>(bytes) + 12, 4);
    return std::string(reinterpret_cast<const char*>(bytes), 16);
}

// ABI 1.7 put and get: whether len bytes at `offset` lie in the peer's
// window of `window_len` bytes (0: none exposed yet), else the error naming
// `op` ("put", "get").
inline ngx_status check_window_range(const char* op, size_t offset, size_t len, size_t window_len, ngx_error* err)
{
    if (window_len == 0)
        return fail(err, NGX_ERR_PROTOCOL, "%s: no window exposed (both peers call expose first)", op);
    if (offset > window_len || len > window_len - offset)
        return fail(err, NGX_ERR_INVALID_OPTION, "%s of %zu bytes at offset %zu: beyond the peer's window of %zu bytes",
                    op, len, offset, window_len);
    return NGX_OK;
}

} // namespace ngx::mod

#endif
