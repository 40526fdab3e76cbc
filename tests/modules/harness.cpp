// Implementation of the module test harness (harness.hpp): dlopen loading,
// the socketpair bootstrap, forked peers and small helpers.
#include "harness.hpp"

#include <cstddef>

#include <dlfcn.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace harness {

uint64_t now_ns()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

double seconds_since(uint64_t start_ns)
{
    return double(now_ns() - start_ns) / 1e9;
}

std::string module_path_from(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        if (std::strncmp(argv[i], "--gtest", 7) != 0 && std::strchr(argv[i], '=') == nullptr)
            return argv[i];
    const char* env = std::getenv("NGX_TEST_MODULE");
    return env != nullptr ? env : "";
}

std::map<std::string, std::string> options_from(int argc, char** argv)
{
    std::map<std::string, std::string> options;
    for (int i = 1; i < argc; ++i) {
        const char* equals = std::strchr(argv[i], '=');
        if (std::strncmp(argv[i], "--", 2) != 0 && equals != nullptr)
            options[std::string(argv[i], size_t(equals - argv[i]))] = equals + 1;
    }
    return options;
}

// ---- Module -----------------------------------------------------------------

std::optional<Module> Module::load(const std::string& path, std::string* error)
{
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        *error = dlerror();
        return std::nullopt;
    }
    auto entry = reinterpret_cast<ngx_module_entry_fn>(dlsym(handle, NGX_MODULE_ENTRY_SYMBOL));
    if (entry == nullptr) {
        *error = path + ": no " NGX_MODULE_ENTRY_SYMBOL " symbol";
        return std::nullopt;
    }
    const ngx_module* descriptor = entry();
    if (descriptor == nullptr) {
        *error = path + ": " NGX_MODULE_ENTRY_SYMBOL "() returned NULL";
        return std::nullopt;
    }
    if (descriptor->abi_major != NGX_MODULE_ABI_MAJOR) {
        *error = path + ": built for ABI " + std::to_string(descriptor->abi_major) + ", expected " +
                 std::to_string(NGX_MODULE_ABI_MAJOR);
        return std::nullopt;
    }
    return Module{path, descriptor};
}

// ---- PairBootstrap --------------------------------------------------------------

namespace {

ngx_status set_error(ngx_error* err, ngx_status status, const std::string& text)
{
    if (err != nullptr)
        std::snprintf(err->message, sizeof err->message, "%s", text.c_str());
    return status;
}

ngx_status write_all(int fd, const void* data, size_t len, ngx_error* err)
{
    const char* p = static_cast<const char*>(data);
    while (len > 0) {
        ssize_t n = ::send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return set_error(err, NGX_ERR_PEER_LOST, std::string("bootstrap: write: ") + std::strerror(errno));
        p += n;
        len -= size_t(n);
    }
    return NGX_OK;
}

ngx_status read_all(int fd, void* data, size_t len, uint64_t end_ns, ngx_error* err)
{
    char* p = static_cast<char*>(data);
    while (len > 0) {
        uint64_t now = now_ns();
        int wait_ms = now >= end_ns ? 0 : int((end_ns - now + 999999) / 1000000);
        pollfd entry{fd, POLLIN, 0};
        int ready = poll(&entry, 1, wait_ms);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0)
            return set_error(err, NGX_ERR_TIMEOUT, "bootstrap: the peer sent nothing before the deadline");
        ssize_t n = ::recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return set_error(err, NGX_ERR_PEER_LOST, "bootstrap: the peer closed the connection");
        p += n;
        len -= size_t(n);
    }
    return NGX_OK;
}

} // namespace

PairBootstrap::PairBootstrap(int fd, int rank, uint64_t timeout_ns) : fd_(fd), timeout_ns_(timeout_ns)
{
    boot_.size = sizeof boot_;
    boot_.ctx = this;
    boot_.rank = rank;
    boot_.nranks = 2;
    boot_.peer = 1 - rank;
    boot_.local_address = "127.0.0.1";
    boot_.peer_address = "127.0.0.1";
    boot_.exchange = &PairBootstrap::exchange;
    boot_.barrier = &PairBootstrap::barrier;
}

PairBootstrap::~PairBootstrap()
{
    ::close(fd_);
}

ngx_status PairBootstrap::exchange(void* ctx, const void* mine, size_t mine_len, void* theirs, size_t capacity,
                                   size_t* theirs_len, ngx_error* err)
{
    auto* self = static_cast<PairBootstrap*>(ctx);
    uint32_t length = uint32_t(mine_len);
    if (ngx_status s = write_all(self->fd_, &length, sizeof length, err); s != NGX_OK)
        return s;
    if (ngx_status s = write_all(self->fd_, mine, mine_len, err); s != NGX_OK)
        return s;
    uint64_t end_ns = now_ns() + self->timeout_ns_;
    if (ngx_status s = read_all(self->fd_, &length, sizeof length, end_ns, err); s != NGX_OK)
        return s;
    std::vector<char> blob(length);
    if (ngx_status s = read_all(self->fd_, blob.data(), length, end_ns, err); s != NGX_OK)
        return s;
    if (length > capacity)
        return set_error(err, NGX_ERR_PROTOCOL,
                         "bootstrap: the peer sent " + std::to_string(length) + " bytes, room for " +
                             std::to_string(capacity));
    std::memcpy(theirs, blob.data(), length);
    *theirs_len = length;
    return NGX_OK;
}

ngx_status PairBootstrap::barrier(void* ctx, ngx_error* err)
{
    char mine = 'b';
    char theirs = 0;
    size_t len = 0;
    return exchange(ctx, &mine, 1, &theirs, 1, &len, err);
}

ngx_status PairBootstrap::barrier(std::string* message)
{
    ngx_error err{};
    ngx_status s = barrier(this, &err);
    if (message != nullptr)
        *message = err.message;
    return s;
}

// ---- Endpoint -------------------------------------------------------------------

Endpoint::Endpoint(const Module& module, const Options& overrides, uint64_t timeout_ns, const volatile int* cancel,
                   size_t max_message_size)
        : module_(module)
{
    Options values;
    for (size_t i = 0; i < module.descriptor->option_count; ++i) {
        const ngx_option_spec& spec = module.descriptor->options[i];
        if (spec.default_value != nullptr)
            values[spec.name] = spec.default_value;
    }
    for (const auto& [name, value] : overrides)
        values[name] = value;
    std::vector<ngx_option_value> list;
    for (const auto& [name, value] : values)
        list.push_back({name.c_str(), value.c_str()});
    ngx_init_args args{};
    args.size = sizeof args;
    args.options = list.data();
    args.option_count = list.size();
    args.timeout_ns = timeout_ns;
    args.cancel = cancel;
    args.max_message_size = max_message_size;
    init_status_ = module.ops().init(&args, &ctx_, &error_);
    if (init_status_ != NGX_OK)
        ctx_ = nullptr;
}

Endpoint::~Endpoint()
{
    for (auto [pointer, from_module] : buffers_) {
        if (from_module)
            module_.ops().free(ctx_, pointer);
        else
            std::free(pointer);
    }
    if (ctx_ != nullptr)
        module_.ops().finalize(ctx_);
}

ngx_status Endpoint::connect(const PairBootstrap& boot)
{
    return module_.ops().connect(ctx_, boot.get(), &error_);
}
ngx_status Endpoint::send(const void* buf, size_t len)
{
    return module_.ops().send(ctx_, buf, len, &error_);
}
ngx_status Endpoint::recv(void* buf, size_t len)
{
    return module_.ops().recv(ctx_, buf, len, &error_);
}

std::optional<ngx_virtual_clock> Endpoint::virtual_clock()
{
    const ngx_module_ops& ops = module_.ops();
    ngx_virtual_clock clock{};
    if (ops.size < offsetof(ngx_module_ops, virtual_clock) + sizeof ops.virtual_clock || ops.virtual_clock == nullptr ||
        ops.virtual_clock(ctx_, &clock, &error_) != NGX_OK)
        return std::nullopt;
    return clock;
}

ngx_status Endpoint::set_layout(size_t element, size_t stride, bool to_self)
{
    const ngx_module_ops& ops = module_.ops();
    if (ops.size < offsetof(ngx_module_ops, set_layout) + sizeof ops.set_layout || ops.set_layout == nullptr)
        return NGX_ERR_UNSUPPORTED;
    ngx_layout layout{sizeof(ngx_layout), element, stride, to_self ? 1 : 0};
    return ops.set_layout(ctx_, &layout, &error_);
}

unsigned char* Endpoint::buffer(size_t len)
{
    void* pointer = nullptr;
    bool from_module = module_.ops().alloc != nullptr && module_.ops().free != nullptr;
    if (from_module) {
        if (module_.ops().alloc(ctx_, len, &pointer, &error_) != NGX_OK)
            return nullptr;
    } else {
        pointer = std::malloc(len > 0 ? len : 1);
    }
    buffers_.emplace_back(pointer, from_module);
    return static_cast<unsigned char*>(pointer);
}

// ---- Child ----------------------------------------------------------------------

Child::Child(Body body, uint64_t timeout_ns, int cpu)
{
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        std::perror("socketpair");
        std::abort();
    }
    std::fflush(nullptr);
    pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) {
        std::perror("fork");
        std::abort();
    }
    if (pid_ == 0) {
        ::close(fds[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(125);
        if (cpu >= 0)
            pin_to_cpu(cpu);
        int code = 126;
        {
            PairBootstrap boot(fds[1], 1, timeout_ns);
            try {
                code = body(boot);
            } catch (...) {
                std::fprintf(stderr, "child: uncaught exception\n");
            }
        }
        std::fflush(stderr);
        _exit(code);
    }
    ::close(fds[1]);
    boot_ = std::make_unique<PairBootstrap>(fds[0], 0, timeout_ns);
}

Child::~Child()
{
    boot_.reset();
    if (!reaped_) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
    }
}

void Child::kill_now()
{
    ::kill(pid_, SIGKILL);
}

int Child::wait_exit(double seconds)
{
    uint64_t end = now_ns() + uint64_t(seconds * 1e9);
    for (;;) {
        int status = 0;
        pid_t r = waitpid(pid_, &status, WNOHANG);
        if (r == pid_) {
            reaped_ = true;
            if (WIFEXITED(status))
                return WEXITSTATUS(status);
            return 128 + WTERMSIG(status);
        }
        if (r < 0 && errno != EINTR)
            return -1;
        if (now_ns() >= end)
            return -1;
        poll(nullptr, 0, 1);
    }
}

// ---- helpers ----------------------------------------------------------------------

namespace {

std::vector<int> allowed_cpus()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set))
            cpus.push_back(cpu);
    return cpus;
}

} // namespace

int usable_cpus()
{
    return int(allowed_cpus().size());
}

bool pin_to_cpu(int index)
{
    std::vector<int> cpus = allowed_cpus();
    if (index < 0 || size_t(index) >= cpus.size())
        return false;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus[size_t(index)], &set);
    return sched_setaffinity(0, sizeof set, &set) == 0;
}

CpuPin::CpuPin(int index) : previous_(allowed_cpus())
{
    if (index >= 0)
        pinned_ = pin_to_cpu(index);
}

CpuPin::~CpuPin()
{
    if (!pinned_)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : previous_)
        CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

namespace {
unsigned char pattern_byte(size_t i, uint32_t seed)
{
    uint32_t x = uint32_t(i) * 2654435761u + seed * 40503u + uint32_t(i >> 8);
    return static_cast<unsigned char>(x ^ (x >> 13) ^ (x >> 24));
}
} // namespace

void fill_pattern(unsigned char* buf, size_t len, uint32_t seed)
{
    for (size_t i = 0; i < len; ++i)
        buf[i] = pattern_byte(i, seed);
}

long long first_mismatch(const unsigned char* buf, size_t len, uint32_t seed)
{
    for (size_t i = 0; i < len; ++i)
        if (buf[i] != pattern_byte(i, seed))
            return (long long)i;
    return -1;
}

double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + long(mid), values.end());
    return values[mid];
}

} // namespace harness
