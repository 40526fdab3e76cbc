// The --listen server (see listen_server.hpp): the client's command line
// checked against the server's policy, one run per client in a process of
// its own, the server's log.
#include "listen_server.hpp"

#include "error_output.hpp"
#include "tcp_rendezvous.hpp"

#include <ngx/module_support.hpp>
#include <ngx/sizes.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace ngx {
namespace {

std::string seconds_of(uint64_t ns)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g s", double(ns) / 1e9);
    return text;
}

// The server's own --pairs, when given, must be the client's.
Status check_server_pairs(const Config& server, const Config& agreed)
{
    if (!server.pairs_given || server.pairs == agreed.pairs)
        return Status::ok();
    if (agreed.many_hosts())
        return Status::usage("the server (--listen) was started with --pairs " + std::to_string(server.pairs) +
                             ", the client (--connect) asks for a run of " + std::to_string(agreed.servers.size() + 1) +
                             " hosts with --ranks-per-host " + std::to_string(agreed.pairs));
    return Status::usage("--pairs differs between the two sides: the server (--listen) was started with --pairs " +
                         std::to_string(server.pairs) + ", the client (--connect) asks for --pairs " +
                         std::to_string(agreed.pairs));
}

// What a client may not make the server spend (--max-*), each refusal naming the limit.
Status check_limits(const ServerLimits& limits, const Config& client)
{
    auto beyond = [](const std::string& asked, const std::string& limit, const std::string& option) {
        return Status::usage("the client asks for " + asked + ", beyond this server's limit of " + limit + " (" +
                             option + ")");
    };
    if (uint64_t(client.pairs) > limits.max_pairs)
        return beyond((client.many_hosts() ? "--ranks-per-host " : "--pairs ") + std::to_string(client.pairs),
                      std::to_string(limits.max_pairs), "--max-pairs");
    if (client.settings.timeout_ns > limits.max_timeout_ns)
        return beyond("--timeout " + seconds_of(client.settings.timeout_ns), seconds_of(limits.max_timeout_ns),
                      "--max-timeout");
    for (uint64_t size : client.settings.sizes)
        if (size > limits.max_size)
            return beyond("messages of " + format_bytes(size), format_bytes(limits.max_size), "--max-size");
    if (client.settings.count > limits.max_count)
        return beyond("-c " + std::to_string(client.settings.count), std::to_string(limits.max_count), "--max-count");
    if (client.settings.warmup > limits.max_count)
        return beyond("--warmup " + std::to_string(client.settings.warmup), std::to_string(limits.max_count),
                      "--max-count");
    return Status::ok();
}

// What a command line asks for when it is not a run.
std::string action_name(Action action)
{
    switch (action) {
    case Action::help:
        return "--help";
    case Action::version:
        return "--version";
    case Action::list_modules:
        return "--list-modules";
    case Action::list_patterns:
        return "--list-patterns";
    case Action::completion:
        return "--completion";
    case Action::run:
        break;
    }
    return "a run";
}

// A run of more than two hosts: this server's ranks dial the other hosts,
// so its operator must have allowed them (--allow). The client's address is
// the one it connected from, this host's the one it reached; the client
// names the others, each of which must fall inside --allow.
Status check_run_hosts(const ServerPolicy& policy, const Config& agreed, TcpRendezvous& client, RunHosts& hosts)
{
    size_t count = agreed.servers.size() + 1;
    if (hosts.addresses.size() != count)
        return Status::usage("the client's host list names " + std::to_string(hosts.addresses.size()) +
                             " hosts, its --connect " + std::to_string(count));
    if (policy.allow.empty())
        return Status::usage("the client asks for a run of " + std::to_string(count) +
                             " hosts; this server's ranks would dial the other servers, which a server does only "
                             "when its operator allows their networks with --allow CIDR[,CIDR...] (it was started "
                             "without --allow)");
    hosts.addresses[0] = client.peer();
    hosts.addresses[size_t(hosts.index)] = stream_address(client.control().fd(), false);
    for (size_t h = 1; h < count; ++h) // the client passed --allow when it connected
        if (h != size_t(hosts.index) && !allowed_address(policy.allow, hosts.addresses[h]))
            return Status::usage("the client asks for a run of " + std::to_string(count) + " hosts, and host " +
                                 std::to_string(h) + " of it (" + agreed.servers[h - 1] + " at " + hosts.addresses[h] +
                                 ") is outside this server's --allow " + describe_allow(policy.allow));
    return Status::ok();
}

// The client's command line, checked: its shape before parsing (bounded
// cost), a run and nothing else, the server's --pairs and limits; for a run
// of more than two hosts also the host list (`hosts`). The server's own
// options win where both sides give one (--timeout, --cpus); the client
// writes the files.
Result<Config> read_proposal(TcpRendezvous& client, const Config& server, const ModuleRegistry& registry,
                             const PatternCatalog& patterns, RunHosts& hosts)
{
    Result<Bytes> blob = client.receive_proposal();
    if (!blob)
        return blob.status();
    Result<std::vector<std::string>> arguments = unpack_proposal(to_string(*blob));
    if (!arguments)
        return arguments.status();
    if (arguments->empty())
        return Status::usage("the client sent an empty command line; a server runs what the client names");
    Result<Config> parsed = parse_command_line(*arguments, registry, patterns);
    if (interrupt_requested())
        return Status::interrupted("--listen: interrupted");
    if (mod::monotonic_ns() > client.handshake_end_ns()) // parsing is bounded by the caps; the deadline holds anyway
        return Status::runtime("the handshake took longer than the server's --timeout (" +
                               seconds_of(server.settings.timeout_ns) + ")");
    if (!parsed)
        return parsed.status().with_context("the client's options");
    if (parsed->action != Action::run)
        return Status::usage("the client asks for " + action_name(parsed->action) +
                             "; a server (--listen) only runs measurements");
    if (!parsed->listen.empty() || parsed->connect.empty())
        return Status::usage("the client's options must hold --connect and no --listen");
    NGX_TRY(check_server_pairs(server, *parsed));
    NGX_TRY(check_limits(server.policy.limits, *parsed));
    if (parsed->many_hosts()) {
        Result<RunHosts> listed = client.receive_hosts();
        if (!listed)
            return listed.status();
        hosts = std::move(*listed);
        NGX_TRY(check_run_hosts(server.policy, *parsed, client, hosts));
    }
    parsed->outputs.clear();
    parsed->plot = false;
    parsed->cpus = server.cpus;
    if (server.timeout_given)
        parsed->settings.timeout_ns = server.settings.timeout_ns;
    return parsed;
}

void log_server(const std::string& text)
{
    std::cerr << "ngx: --listen: " << text << "\n";
}

// A client whose command line the server accepted, not yet launched.
struct Accepted {
    TcpRendezvous client;
    Config agreed;
    RunHosts hosts; // a run of more than two hosts; else empty
};

// A --listen server waits for its next good client and takes the client's
// command line as its own, so both sides run the same modules, pattern,
// sizes and pairs; it answers the client with its verdict on them before
// either side forks. A client refused is told why and dropped, and the wait
// goes on.
Result<Accepted> next_accepted(TcpListener& listener, const Config& server, const ModuleRegistry& registry,
                               const PatternCatalog& patterns, uint64_t end_ns)
{
    while (true) {
        Result<TcpRendezvous> client = listener.next_client(end_ns);
        if (!client)
            return client.status();
        RunHosts hosts;
        Result<Config> proposal = read_proposal(*client, server, registry, patterns, hosts);
        if (!proposal && proposal.status().kind() == ErrorKind::interrupted)
            return proposal.status();
        Status verdict = proposal ? Status::ok() : proposal.status();
        Status answered = client->answer(verdict);
        if (!verdict || !answered) {
            log_server("refused the client at " + client->peer() + ": " + (verdict ? answered : verdict).message());
            continue;
        }
        log_server("running for the client at " + client->peer());
        return Accepted{std::move(*client), std::move(*proposal), std::move(hosts)};
    }
}

std::string limits_text(const ServerLimits& limits)
{
    return "--max-pairs " + std::to_string(limits.max_pairs) + ", --max-timeout " + seconds_of(limits.max_timeout_ns) +
           ", --max-size " + format_bytes(limits.max_size) + ", --max-count " + std::to_string(limits.max_count);
}

// The start-up line: where the server listens, whom it accepts, what it allows.
void print_server_banner(const Config& server, const TcpListener& listener)
{
    const ServerPolicy& policy = server.policy;
    std::string clients = policy.serve == 0
                              ? "clients one after another, forever"
                              : std::to_string(policy.serve) + (policy.serve == 1 ? " client" : " clients");
    std::string wait =
        !server.accept_timeout_given && policy.serve == 0 ? "no end" : seconds_of(server.accept_timeout_ns);
    log_server("listening on " + listener.where() + "; accepting connections from " + describe_allow(policy.allow) +
               (server.secret_file.empty() ? ", no shared secret (anyone who reaches the port may run here; see "
                                             "--allow and --secret-file)"
                                           : ", holding the shared secret of " + server.secret_file) +
               "; limits: " + limits_text(policy.limits) + "; serving " + clients + ", waiting " + wait + " for each");
}

// The server's side of one accepted client's run, in a process of its own
// (see run_server): its ranks, then the measurement (run_client), the exit code.
int run_for_client(Accepted accepted, const ClientRun& run_client)
{
    const Config& agreed = accepted.agreed;
    Result<LocalGroup> group =
        agreed.many_hosts()
            ? launch_star_server(std::move(accepted.client), accepted.hosts, agreed.pairs, agreed.settings.timeout_ns)
            : launch_tcp_group(std::move(accepted.client), agreed.pairs, agreed.settings.timeout_ns);
    if (!group) {
        print_error(group.status(), "", false);
        return exit_code(group.status());
    }
    return run_client(agreed, std::move(*group));
}

// Waits for the process running a client; SIGINT/SIGTERM to the server are
// passed on to it (it ends its ranks and exits 130), and end the wait. A run
// killed by a signal (a rank of it killed) is a failed run: 1.
int wait_for_run(pid_t run, const InterruptGuard& guard)
{
    while (true) {
        int status = 0;
        pid_t done = waitpid(run, &status, WNOHANG);
        if (done == run && WIFSIGNALED(status)) {
            log_server("the run's process was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                       strsignal(WTERMSIG(status)) + "); its other ranks are ended");
            kill(-run, SIGKILL); // its process group: the ranks it forked, orphaned now
        }
        if (done == run)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
        if (done < 0 && errno != EINTR)
            return 1;
        if (guard.raised()) {
            kill(run, SIGTERM);
            kill(run, SIGCONT);
            reap_local_peer(run, interrupt_grace_ns);
            kill(-run, SIGKILL); // a rank still there after the grace
            return exit_code(Status::interrupted());
        }
        usleep(10'000);
    }
}

} // namespace

int run_server(const Config& server, const ModuleRegistry& registry, const PatternCatalog& patterns,
               const InterruptGuard& guard, const ClientRun& run_client)
{
    Result<std::string> secret = server.secret_file.empty() ? std::string() : read_secret_file(server.secret_file);
    Result<TcpListener> listener =
        secret ? TcpListener::open(server.listen, server.policy, *secret, server.settings.timeout_ns)
               : Result<TcpListener>(secret.status());
    if (!listener) {
        print_error(listener.status(), "", false);
        return exit_code(listener.status());
    }
    print_server_banner(server, *listener);
    const bool endless_wait = server.policy.serve == 0 && !server.accept_timeout_given;
    int code = 0;
    for (uint64_t served = 0; server.policy.serve == 0 || served < server.policy.serve; ++served) {
        uint64_t end_ns = endless_wait ? 0 : mod::monotonic_ns() + server.accept_timeout_ns;
        Result<Accepted> accepted = next_accepted(*listener, server, registry, patterns, end_ns);
        if (!accepted) {
            print_error(accepted.status(), "", false);
            return exit_code(accepted.status());
        }
        std::cout.flush();
        pid_t run = fork();
        if (run < 0) {
            log_server("cannot start the run for the client at " + accepted->client.peer() + ": " +
                       std::strerror(errno));
            code = code == 0 ? 1 : code;
            continue;
        }
        setpgid(run, run); // the run and its ranks: one process group (in the child: setpgid(0, 0))
        if (run == 0)      // the run's ranks end here and exit with its code
            return run_for_client(std::move(*accepted), run_client);
        std::string peer = accepted->client.peer();
        { // the run's sockets are the child's now
            Accepted closed = std::move(*accepted);
        }
        int run_code = wait_for_run(run, guard);
        if (guard.raised()) // also when the run ended by itself as the signal came
            return exit_code(Status::interrupted());
        code = code == 0 ? run_code : code;
        log_server("client " + std::to_string(served + 1) + " at " + peer + " served (exit code " +
                   std::to_string(run_code) + ")");
    }
    return code;
}

} // namespace ngx
