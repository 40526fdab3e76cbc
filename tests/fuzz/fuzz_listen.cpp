// libFuzzer target: what a --listen server does with the bytes of a stranger
// (it must neither trust nor hang on them): the framing of the control
// channel (a socketpair carries the input; the frame is read with the
// handshake's size cap and a deadline),
// the host list of a run of more than two hosts (unpack_run_hosts), the
// client's argument list (unpack_proposal: the caps on count and length
// that keep Boost's quadratic parser bounded) and the command line parsed as
// the server parses it. Modules and patterns come from NGX_MODULE_PATH and
// NGX_PATTERN_PATH when set (tests/fuzz/run.sh sets them to the build tree),
// else none are found and parsing stops at the pattern. Every refusal must
// be a status with a message, nothing may crash or hang, and nothing is run.
#include "cli.hpp"
#include "server_policy.hpp"
#include "tcp_rendezvous.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace {

constexpr uint64_t deadline_ns = 100'000'000; // the input is all there: a short deadline suffices

// The input as it arrives on the control connection: read back as one frame.
ngx::Result<ngx::Bytes> through_the_channel(const uint8_t* data, size_t size)
{
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        std::abort();
    int big = 1 << 20;
    setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    if (size > 0 && write(fds[0], data, size) != ssize_t(size))
        std::abort(); // the fuzzer's inputs are small (-max_len)
    close(fds[0]);
    ngx::FrameChannel channel(fds[1], deadline_ns);
    ngx::Bytes frame;
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t end_ns = uint64_t(now.tv_sec) * 1'000'000'000u + uint64_t(now.tv_nsec) + deadline_ns;
    ngx::Status status = channel.receive_within(frame, ngx::max_proposal_bytes, end_ns);
    if (!status)
        return status;
    return frame;
}

void require_message(const ngx::Status& status)
{
    if (!status.is_ok() && status.message().empty())
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const ngx::ModuleRegistry registry(ngx::module_search_path(std::getenv("NGX_MODULE_PATH"), ""));
    // Every module stays loaded: parsing dlopens and dlcloses the modules it
    // names, and libFuzzer reads the coverage counters of an instrumented
    // module after it is gone (a crash in the fuzzer, not in ngx).
    static const ngx::ModuleListing keep_loaded = registry.load_all();
    static const ngx::PatternCatalog patterns =
        ngx::PatternCatalog::load(ngx::pattern_search_path(std::getenv("NGX_PATTERN_PATH"), ""));
    // As a frame: [length][payload] (the length is the input's first 4 bytes).
    ngx::Result<ngx::Bytes> frame = through_the_channel(data, size);
    require_message(frame.status());
    // As the payload itself: the host list of a run of more than two hosts,
    // the argument list and the command line.
    std::string payload(reinterpret_cast<const char*>(data), size);
    ngx::Result<ngx::RunHosts> hosts = ngx::unpack_run_hosts(payload);
    require_message(hosts.status());
    if (hosts && (hosts->addresses.size() < 3 || hosts->index < 1 || size_t(hosts->index) >= hosts->addresses.size()))
        std::abort();
    ngx::Result<std::vector<std::string>> arguments = ngx::unpack_proposal(payload);
    require_message(arguments.status());
    if (!arguments)
        return 0;
    if (arguments->size() > ngx::max_arguments)
        std::abort();
    for (const std::string& argument : *arguments)
        if (argument.size() > ngx::max_argument_bytes)
            std::abort();
    ngx::Result<ngx::Config> config = ngx::parse_command_line(*arguments, registry, patterns);
    require_message(config.status());
    if (!config && config.status().kind() != ngx::ErrorKind::usage)
        std::abort(); // a bad command line is a usage error, never anything else
    return 0;
}
