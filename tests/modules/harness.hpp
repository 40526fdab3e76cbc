// Test harness for ngx transport modules, independent of the ngx core: load a
// module .so with dlopen(), fork a peer process, give both sides a bootstrap
// over a socketpair, and drive the module's operations directly.
//
//     auto module = harness::Module::load(path, &error);
//     harness::Child child([&](harness::PairBootstrap& boot) {
//         harness::Endpoint peer(module, {}, 1'000'000'000);
//         return peer.connect(boot) == NGX_OK ? 0 : 1;   // the child's exit code
//     });
//     harness::Endpoint self(module, {}, 1'000'000'000);
//     ASSERT_EQ(self.connect(child.bootstrap()), NGX_OK) << self.message();
//     ASSERT_EQ(child.wait_exit(2.0), 0);
//
// Code that runs in the child must not use gtest assertions: it returns an
// exit code and prints what went wrong to stderr.
#ifndef NGX_TESTS_MODULES_HARNESS_HPP
#define NGX_TESTS_MODULES_HARNESS_HPP

#include <ngx/module.h>

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace harness {

uint64_t now_ns();
double seconds_since(uint64_t start_ns);

// The module under test, from argv (first argument that is not a gtest flag)
// or from NGX_TEST_MODULE. Empty when neither names one.
std::string module_path_from(int argc, char** argv);
// NAME=VALUE arguments (module options), wherever they are on the command line.
std::map<std::string, std::string> options_from(int argc, char** argv);

// A dlopen()ed module. The handle stays open for the life of the process so
// that forked children can use it too.
struct Module {
    std::string path;
    const ngx_module* descriptor = nullptr;

    // nullopt and *error set when the file cannot be loaded or is not a module.
    static std::optional<Module> load(const std::string& path, std::string* error);
    const ngx_module_ops& ops() const { return *descriptor->ops; }
    bool has(uint32_t capability) const { return (descriptor->capabilities & capability) != 0; }
};

// The ngx_bootstrap of one side of a socketpair: exchange() writes a
// length-prefixed blob, then reads the peer's under a deadline; barrier() is
// an exchange of one byte.
class PairBootstrap {
public:
    PairBootstrap(int fd, int rank, uint64_t timeout_ns);
    PairBootstrap(const PairBootstrap&) = delete;
    PairBootstrap& operator=(const PairBootstrap&) = delete;
    ~PairBootstrap();

    const ngx_bootstrap* get() const { return &boot_; }
    ngx_status barrier(std::string* message = nullptr);

private:
    static ngx_status exchange(void* ctx, const void* mine, size_t mine_len, void* theirs, size_t capacity,
                               size_t* theirs_len, ngx_error* err);
    static ngx_status barrier(void* ctx, ngx_error* err);

    int fd_;
    uint64_t timeout_ns_;
    ngx_bootstrap boot_{};
};

// One initialised instance of the module: init() in the constructor, the
// module's finalize() in the destructor. Every call keeps the last error text.
class Endpoint {
public:
    using Options = std::map<std::string, std::string>;

    // Options not given take the module's defaults (options without a default
    // stay absent), as the core passes them.
    Endpoint(const Module& module, const Options& overrides, uint64_t timeout_ns, const volatile int* cancel = nullptr,
             size_t max_message_size = 1 << 20);
    Endpoint(const Endpoint&) = delete;
    Endpoint& operator=(const Endpoint&) = delete;
    ~Endpoint();

    ngx_status init_status() const { return init_status_; }
    ngx_status connect(const PairBootstrap& boot);
    ngx_status send(const void* buf, size_t len);
    ngx_status recv(void* buf, size_t len);
    // The optional set_layout() (ABI 1.2); NGX_ERR_UNSUPPORTED when the module has none.
    ngx_status set_layout(size_t element, size_t stride, bool to_self);
    // The optional virtual_clock() (ABI 1.4), after connect: the module's
    // simulated clock, or nullopt when it runs in real time or has none.
    std::optional<ngx_virtual_clock> virtual_clock();
    // A buffer from the module's alloc() (or malloc when it has none), freed on destruction.
    unsigned char* buffer(size_t len);
    const char* message() const { return error_.message; }

private:
    const Module& module_;
    void* ctx_ = nullptr;
    ngx_status init_status_ = NGX_ERR_SYSTEM;
    ngx_error error_{};
    std::vector<std::pair<void*, bool>> buffers_; // pointer, from the module's alloc()
};

// A forked peer process running `body` with its side of the bootstrap; the
// body's return value is the exit code. The child dies with the parent
// (PR_SET_PDEATHSIG) and is killed and reaped by the destructor at the latest.
class Child {
public:
    using Body = std::function<int(PairBootstrap&)>;

    Child(Body body, uint64_t timeout_ns = 2'000'000'000, int cpu = -1);
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;
    ~Child();

    PairBootstrap& bootstrap() { return *boot_; }
    pid_t pid() const { return pid_; }
    void kill_now();
    // Exit code, 128 + signal if killed, or -1 if it is still running after `seconds`.
    int wait_exit(double seconds);

private:
    pid_t pid_ = -1;
    bool reaped_ = false;
    std::unique_ptr<PairBootstrap> boot_;
};

// Pins the calling process to the index-th CPU it may run on; false if there
// are not that many.
bool pin_to_cpu(int index);
int usable_cpus();

// Pins the calling process for its lifetime (index < 0: leaves it alone) and
// restores the previous affinity.
class CpuPin {
public:
    explicit CpuPin(int index);
    CpuPin(const CpuPin&) = delete;
    CpuPin& operator=(const CpuPin&) = delete;
    ~CpuPin();

private:
    std::vector<int> previous_;
    bool pinned_ = false;
};

// A byte pattern that differs by size, round and direction.
void fill_pattern(unsigned char* buf, size_t len, uint32_t seed);
// Offset of the first byte that breaks the pattern, or -1.
long long first_mismatch(const unsigned char* buf, size_t len, uint32_t seed);

double median(std::vector<double> values);

} // namespace harness

#endif
