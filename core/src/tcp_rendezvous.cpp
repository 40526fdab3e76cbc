// The TCP rendezvous of --listen / --connect (see tcp_rendezvous.hpp).
#include "tcp_rendezvous.hpp"

#include "stream_io.hpp"

#include "hmac.hpp"
#include "interrupt.hpp"
#include "ngx_config.h"
#include "server_policy.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <random>
#include <string_view>
#include <utility>

namespace ngx {

using stream_io::address_text;
using stream_io::errno_text;
using stream_io::monotonic_ns;
using stream_io::OnSignal;
using stream_io::seconds_text;
using stream_io::wait_for;

namespace {

struct Endpoint {
    std::string host;
    std::string port;
};

// "[ADDR:]PORT" or "HOST:PORT"; a bare port means every address (listen) .
Result<Endpoint> parse_endpoint(const std::string& text, const char* option, bool host_required)
{
    size_t colon = text.rfind(':');
    Endpoint endpoint;
    endpoint.host = colon == std::string::npos ? "" : text.substr(0, colon);
    endpoint.port = colon == std::string::npos ? text : text.substr(colon + 1);
    if (endpoint.host.size() >= 2 && endpoint.host.front() == '[' && endpoint.host.back() == ']')
        endpoint.host = endpoint.host.substr(1, endpoint.host.size() - 2);
    char* end = nullptr;
    long port = std::strtol(endpoint.port.c_str(), &end, 10);
    if (endpoint.port.empty() || *end != '\0' || port < 1 || port > 65535)
        return Status::usage(std::string(option) + " '" + text + "': the port must be a number in 1..65535");
    if (host_required && endpoint.host.empty())
        return Status::usage(std::string(option) + " '" + text + "': expected HOST:PORT");
    return endpoint;
}

Result<addrinfo*> resolve(const Endpoint& endpoint, bool passive, const char* option)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    addrinfo* list = nullptr;
    int rc = getaddrinfo(endpoint.host.empty() ? nullptr : endpoint.host.c_str(), endpoint.port.c_str(), &hints, &list);
    if (rc != 0)
        return Status::usage(std::string(option) + ": cannot resolve '" + endpoint.host + "': " + gai_strerror(rc));
    return list;
}

void configure_control_socket(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int flags = fcntl(fd, F_GETFD);
    fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

// Frames of the handshake before the command line are short.
constexpr size_t max_handshake_frame = 256;

// The two processes must run the same ngx: the first frame says which.
Status handshake(FrameChannel& control, uint64_t end_ns)
{
    std::string hello = std::string("ngx ") + NGX_VERSION + " module-abi " + std::to_string(NGX_MODULE_ABI_MAJOR);
    Bytes theirs;
    NGX_TRY(control.send(to_bytes(hello)).with_context("handshake"));
    NGX_TRY(control.receive_within(theirs, max_handshake_frame, end_ns).with_context("handshake"));
    if (to_string(theirs) != hello)
        return Status::runtime("handshake: the peer runs '" + to_string(theirs) + "', this side '" + hello + "'");
    return Status::ok();
}

// 128 random bits as hex: the nonces of the secret's challenge.
std::string random_nonce()
{
    uint8_t bytes[16] = {};
    size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n > 0)
            got += size_t(n);
        else if (errno != EINTR)
            break; // cannot happen after boot; the std::random_device below covers it
    }
    if (got < sizeof bytes) {
        std::random_device device;
        for (uint8_t& byte : bytes)
            byte = uint8_t(device());
    }
    return hex_text(bytes, sizeof bytes);
}

// 32 lower-case hex digits, as random_nonce() makes them.
bool is_nonce(const std::string& text)
{
    return text.size() == 32 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

constexpr const char* auth_none = "auth none";
constexpr const char* auth_hmac = "auth hmac-sha256 ";
constexpr const char* refused_prefix = "refused: ";

// What each side signs: who it is, both nonces, and for the proposal the
// command line itself (so that nobody between the two can change it).
std::string signed_text(const char* role, const std::string& nonces, const std::string& payload = "")
{
    return std::string("ngx ") + role + " " + nonces + " " + payload;
}

void log_line(const std::string& text)
{
    std::fprintf(stderr, "ngx: %s\n", text.c_str());
}

// The server's answer when it accepts a run: this prefix and the run's token.
constexpr const char* accepted_prefix = "ok ";
// Pairs 1..K-1 may all connect at once.
constexpr int listen_backlog = 128;

uint64_t remaining_ns(uint64_t end_ns)
{
    uint64_t now = monotonic_ns();
    return now >= end_ns ? 1 : end_ns - now;
}

std::string random_token()
{
    std::random_device device;
    char text[24];
    std::snprintf(text, sizeof text, "%08x%08x", device(), device());
    return text;
}

std::string pair_greeting(int pair, const std::string& token)
{
    return "pair " + std::to_string(pair) + " " + token;
}

// The pair a greeting introduces, or -1 when it is not one of this run's.
int pair_of_greeting(const std::string& greeting, const std::string& token, int pairs)
{
    for (int pair = 1; pair < pairs; ++pair)
        if (greeting == pair_greeting(pair, token))
            return pair;
    return -1;
}

// A non-blocking socket's connect, finished by end_ns.
Status connect_by(int fd, const sockaddr_storage& address, socklen_t length, uint64_t end_ns, const std::string& step,
                  uint64_t timeout_ns)
{
    if (connect(fd, reinterpret_cast<const sockaddr*>(&address), length) == 0)
        return Status::ok();
    if (errno != EINPROGRESS)
        return Status::runtime(step + ": " + errno_text());
    NGX_TRY(wait_for(fd, POLLOUT, end_ns, step, timeout_ns));
    int error = 0;
    socklen_t size = sizeof error;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
    return error == 0 ? Status::ok() : Status::runtime(step + ": " + std::strerror(error));
}

} // namespace

TcpRendezvous::TcpRendezvous(int control_fd, int listener, bool server, uint64_t timeout_ns)
        : control_(std::make_unique<FrameChannel>(control_fd, timeout_ns)), listener_(listener), server_(server),
          timeout_ns_(timeout_ns), handshake_end_ns_(monotonic_ns() + timeout_ns)
{
    control_->watch_interrupt_flag();
}

TcpRendezvous::TcpRendezvous(TcpRendezvous&& other) noexcept
        : control_(std::move(other.control_)), listener_(std::exchange(other.listener_, -1)), server_(other.server_),
          timeout_ns_(other.timeout_ns_), handshake_end_ns_(other.handshake_end_ns_), token_(std::move(other.token_)),
          secret_(std::move(other.secret_)), nonces_(std::move(other.nonces_)), peer_(std::move(other.peer_)),
          pair_fds_(std::move(other.pair_fds_))
{
    other.pair_fds_.clear();
}

TcpRendezvous::~TcpRendezvous()
{
    for (int fd : pair_fds_)
        close(fd);
}

// Client: answers the server's challenge with its own nonce and the proof
// that it holds the secret, then checks the server's proof.
Status TcpRendezvous::prove_client(const std::string& secret)
{
    Bytes frame;
    NGX_TRY(control_->receive_within(frame, max_handshake_frame, handshake_end_ns_).with_context("handshake"));
    std::string challenge = to_string(frame);
    if (challenge == auth_none) {
        if (secret.empty())
            return Status::ok();
        return Status::usage("the server at " + peer_ +
                             " does not ask for a shared secret, but this side has --secret-file: refusing (is it "
                             "the server you meant? start it with the same --secret-file)");
    }
    if (!challenge.starts_with(auth_hmac))
        return Status::runtime("handshake: the server sent '" + challenge + "', expected its challenge");
    if (secret.empty()) {
        (void)control_->send(to_bytes("no-secret"));
        return Status::usage("the server at " + peer_ + " requires a shared secret: give --secret-file FILE");
    }
    std::string server_nonce = challenge.substr(std::strlen(auth_hmac));
    if (!is_nonce(server_nonce))
        return Status::runtime("handshake: the server's challenge '" + challenge + "' is not a nonce");
    std::string nonces = server_nonce + " " + random_nonce();
    Digest mine = hmac_sha256(secret, signed_text("client", nonces));
    NGX_TRY(
        control_->send(to_bytes(nonces.substr(nonces.find(' ') + 1) + " " + hex_text(mine))).with_context("handshake"));
    NGX_TRY(control_->receive_within(frame, max_handshake_frame, handshake_end_ns_).with_context("handshake"));
    std::string answer = to_string(frame);
    if (answer.starts_with(refused_prefix))
        return Status::usage("the server (--listen) refused the connection: " +
                             answer.substr(std::strlen(refused_prefix)));
    std::optional<Digest> theirs = digest_from_hex(answer);
    if (!theirs || !equal_digests(*theirs, hmac_sha256(secret, signed_text("server", nonces))))
        return Status::runtime("the server at " + peer_ +
                               " did not prove that it holds the shared secret (another server on that port?)");
    secret_ = secret;
    nonces_ = nonces;
    return Status::ok();
}

// Server: the challenge, the client's proof, and this side's proof.
Status TcpRendezvous::check_client(const std::string& secret)
{
    if (secret.empty())
        return control_->send(to_bytes(auth_none)).with_context("handshake");
    std::string mine = random_nonce();
    NGX_TRY(control_->send(to_bytes(auth_hmac + mine)).with_context("handshake"));
    Bytes frame;
    NGX_TRY(control_->receive_within(frame, max_handshake_frame, handshake_end_ns_).with_context("handshake"));
    std::string reply = to_string(frame);
    size_t space = reply.find(' ');
    std::string theirs = space == std::string::npos ? "" : reply.substr(0, space);
    std::string nonces = mine + " " + theirs;
    std::optional<Digest> proof = space == std::string::npos ? std::nullopt : digest_from_hex(reply.substr(space + 1));
    bool good = proof && is_nonce(theirs) && equal_digests(*proof, hmac_sha256(secret, signed_text("client", nonces)));
    if (!good) {
        std::string why = reply == "no-secret" ? "the client has no --secret-file" : "the shared secret does not match";
        (void)control_->send(to_bytes(refused_prefix + why));
        return Status::usage(why);
    }
    NGX_TRY(control_->send(to_bytes(hex_text(hmac_sha256(secret, signed_text("server", nonces)))))
                .with_context("handshake"));
    secret_ = secret;
    nonces_ = nonces;
    return Status::ok();
}

namespace {

// A frame signed with the shared secret (when there is one) under `role`.
std::string signed_frame(const std::string& secret, const std::string& nonces, const char* role,
                         const std::string& payload)
{
    if (secret.empty())
        return payload;
    return hex_text(hmac_sha256(secret, signed_text(role, nonces, payload))) + payload;
}

} // namespace

Status TcpRendezvous::propose(const Bytes& arguments, const RunHosts& hosts)
{
    // signed, so that nobody between the two sides can change the command line
    std::string frame = signed_frame(secret_, nonces_, "proposal", to_string(arguments));
    NGX_TRY(control_->send(to_bytes(frame)).with_context("sending the options to the server"));
    if (!hosts.addresses.empty())
        NGX_TRY(control_->send(to_bytes(signed_frame(secret_, nonces_, "hosts", pack_run_hosts(hosts))))
                    .with_context("sending the host list to the server"));
    Bytes answer;
    NGX_TRY(control_->receive(answer).with_context("waiting for the server's answer"));
    std::string text = to_string(answer);
    if (text.starts_with(accepted_prefix)) {
        token_ = text.substr(std::strlen(accepted_prefix));
        return Status::ok();
    }
    return Status::usage("the server (--listen) refused the run: " + text);
}

Result<Bytes> TcpRendezvous::receive_proposal()
{
    Bytes arguments;
    size_t signature = secret_.empty() ? 0 : 2 * sizeof(Digest);
    NGX_TRY(control_->receive_within(arguments, max_proposal_bytes + signature, handshake_end_ns_)
                .with_context("receiving the client's options"));
    if (signature == 0)
        return arguments;
    std::string text = to_string(arguments);
    std::optional<Digest> mac = digest_from_hex(text.substr(0, std::min(signature, text.size())));
    std::string payload = text.size() < signature ? "" : text.substr(signature);
    if (!mac || !equal_digests(*mac, hmac_sha256(secret_, signed_text("proposal", nonces_, payload))))
        return Status::usage("the client's options do not carry the shared secret's signature (changed on the way?)");
    return to_bytes(payload);
}

Result<RunHosts> TcpRendezvous::receive_hosts()
{
    Bytes frame;
    size_t signature = secret_.empty() ? 0 : 2 * sizeof(Digest);
    NGX_TRY(control_->receive_within(frame, max_proposal_bytes + signature, handshake_end_ns_)
                .with_context("receiving the client's host list"));
    std::string text = to_string(frame);
    std::string payload = text.size() < signature ? "" : text.substr(signature);
    if (signature != 0) {
        std::optional<Digest> mac = digest_from_hex(text.substr(0, std::min(signature, text.size())));
        if (!mac || !equal_digests(*mac, hmac_sha256(secret_, signed_text("hosts", nonces_, payload))))
            return Status::usage("the client's host list does not carry the shared secret's signature (changed on "
                                 "the way?)");
    }
    return unpack_run_hosts(payload);
}

Status TcpRendezvous::answer(const Status& verdict)
{
    if (verdict.is_ok())
        token_ = random_token();
    Status sent = control_->send(to_bytes(verdict.is_ok() ? accepted_prefix + token_ : verdict.message()));
    if (!verdict.is_ok())
        return verdict;
    return sent.with_context("answering the client");
}

Status TcpRendezvous::join_pairs(int pairs, uint64_t timeout_ns)
{
    timeout_ns_ = timeout_ns; // the run's
    uint64_t end_ns = monotonic_ns() + timeout_ns;
    Status joined = server_ ? accept_pairs(pairs, end_ns) : connect_pairs(pairs, end_ns);
    listener_ = -1;
    return joined;
}

// Pairs 1..K-1 connect to the address pair 0 reached, so all meet the same server.
Status TcpRendezvous::connect_pairs(int pairs, uint64_t end_ns)
{
    sockaddr_storage server{};
    socklen_t length = sizeof server;
    if (getpeername(control_->fd(), reinterpret_cast<sockaddr*>(&server), &length) != 0)
        return Status::runtime("--connect: the server's address: " + errno_text());
    for (int pair = 1; pair < pairs; ++pair) {
        std::string step = "--connect: pair " + std::to_string(pair) + " reaching the server";
        int fd = socket(server.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        Status connected = fd < 0 ? Status::runtime(step + ": socket: " + errno_text())
                                  : connect_by(fd, server, length, end_ns, step, timeout_ns_);
        if (!connected) {
            if (fd >= 0)
                close(fd);
            return connected;
        }
        configure_control_socket(fd);
        pair_fds_.push_back(fd);
        FrameChannel channel(fd, remaining_ns(end_ns));
        Status sent = channel.send(to_bytes(pair_greeting(pair, token_)));
        channel.release();
        NGX_TRY(sent.with_context("--connect: introducing pair " + std::to_string(pair)));
    }
    return Status::ok();
}

// Connections without the run's token (a stray client, a port scan) are closed and waited past.
Status TcpRendezvous::accept_pairs(int pairs, uint64_t end_ns)
{
    std::vector<int> by_pair(size_t(pairs), -1);
    int missing = pairs - 1;
    while (missing > 0) {
        Status ready = wait_for(listener_, POLLIN, end_ns,
                                "--listen: waiting for the client's pair connections (" + std::to_string(missing) +
                                    " of " + std::to_string(pairs - 1) + " missing)",
                                timeout_ns_, OnSignal::flag);
        if (!ready) {
            for (int fd : by_pair)
                if (fd >= 0)
                    close(fd);
            return ready;
        }
        int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        configure_control_socket(fd);
        FrameChannel channel(fd, remaining_ns(end_ns));
        channel.watch_interrupt_flag();
        Bytes greeting;
        int pair = channel.receive_within(greeting, max_handshake_frame, end_ns)
                       ? pair_of_greeting(to_string(greeting), token_, pairs)
                       : -1;
        if (pair < 1 || by_pair[size_t(pair)] >= 0)
            continue; // the channel closes the stranger
        by_pair[size_t(pair)] = channel.release();
        --missing;
    }
    pair_fds_.assign(by_pair.begin() + 1, by_pair.end());
    return Status::ok();
}

std::vector<int> TcpRendezvous::release_pair_sockets()
{
    std::vector<int> sockets{control_->release()};
    sockets.insert(sockets.end(), pair_fds_.begin(), pair_fds_.end());
    pair_fds_.clear();
    return sockets;
}

TcpListener::TcpListener(int fd, std::string where, std::vector<Cidr> allow, std::string secret, uint64_t timeout_ns)
        : fd_(fd), where_(std::move(where)), allow_(std::move(allow)), secret_(std::move(secret)),
          timeout_ns_(timeout_ns)
{
}

TcpListener::TcpListener(TcpListener&& other) noexcept
        : fd_(std::exchange(other.fd_, -1)), where_(std::move(other.where_)), allow_(std::move(other.allow_)),
          secret_(std::move(other.secret_)), timeout_ns_(other.timeout_ns_)
{
}

TcpListener::~TcpListener()
{
    if (fd_ >= 0)
        close(fd_);
}

Result<TcpListener> TcpListener::open(const std::string& endpoint_text, const ServerPolicy& policy,
                                      const std::string& secret, uint64_t handshake_timeout_ns)
{
    Result<Endpoint> endpoint = parse_endpoint(endpoint_text, "--listen", false);
    if (!endpoint)
        return endpoint.status();
    Result<addrinfo*> addresses = resolve(*endpoint, true, "--listen");
    if (!addresses)
        return addresses.status();
    int listener = -1;
    std::string failure = "no usable address";
    for (addrinfo* a = *addresses; a != nullptr && listener < 0; a = a->ai_next) {
        listener = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        int one = 1;
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (listener >= 0 &&
            (bind(listener, a->ai_addr, a->ai_addrlen) != 0 || listen(listener, listen_backlog) != 0)) {
            failure = errno_text();
            close(listener);
            listener = -1;
        }
    }
    freeaddrinfo(*addresses);
    if (listener < 0)
        return Status::runtime("--listen " + endpoint_text + ": cannot listen: " + failure);
    std::string where = endpoint->host.empty() ? "every interface (no ADDR given), port " + endpoint->port
                                               : endpoint->host + ", port " + endpoint->port;
    return TcpListener(listener, where, policy.allow, secret, handshake_timeout_ns);
}

Result<TcpRendezvous> TcpListener::greet(int fd, const std::string& peer)
{
    configure_control_socket(fd);
    TcpRendezvous server(fd, fd_, true, timeout_ns_);
    server.peer_ = peer;
    NGX_TRY(handshake(server.control(), server.handshake_end_ns_));
    NGX_TRY(server.check_client(secret_));
    return server;
}

Result<TcpRendezvous> TcpListener::next_client(uint64_t end_ns)
{
    uint64_t waited_ns = end_ns == 0 ? 0 : remaining_ns(end_ns);
    while (true) {
        Status ready = wait_for(fd_, POLLIN, end_ns == 0 ? UINT64_MAX : end_ns, "--listen: waiting for a client",
                                waited_ns, OnSignal::flag);
        if (!ready)
            return ready;
        sockaddr_storage address{};
        socklen_t length = sizeof address;
        int fd = accept4(fd_, reinterpret_cast<sockaddr*>(&address), &length, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN || errno == EMFILE || errno == ENFILE)
                continue;
            return Status::runtime("--listen: accept: " + errno_text());
        }
        std::string peer = address_text(address);
        if (!allowed(allow_, address)) {
            close(fd);
            log_line("--listen: refused a connection from " + peer + ": not in --allow " + describe_allow(allow_));
            continue;
        }
        Result<TcpRendezvous> client = greet(fd, peer);
        if (client || client.status().kind() == ErrorKind::interrupted)
            return client;
        log_line("--listen: dropped the client at " + peer + ": " + client.status().message());
    }
}

Result<TcpRendezvous> tcp_connect(const std::string& endpoint_text, uint64_t timeout_ns, const std::string& secret)
{
    Result<Endpoint> endpoint = parse_endpoint(endpoint_text, "--connect", true);
    if (!endpoint)
        return endpoint.status();
    Result<addrinfo*> addresses = resolve(*endpoint, false, "--connect");
    if (!addresses)
        return addresses.status();
    uint64_t end_ns = monotonic_ns() + timeout_ns;
    int fd = -1;
    std::string failure;
    // The server may start a moment later: retry until the deadline.
    while (fd < 0 && monotonic_ns() < end_ns && !interrupt_requested()) {
        for (addrinfo* a = *addresses; a != nullptr && fd < 0; a = a->ai_next) {
            fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
            if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
                failure = errno_text();
                close(fd);
                fd = -1;
            }
        }
        if (fd < 0)
            usleep(50000);
    }
    freeaddrinfo(*addresses);
    if (fd < 0 && interrupt_requested())
        return Status::interrupted("--connect " + endpoint_text + ": interrupted");
    if (fd < 0)
        return Status::runtime("--connect " + endpoint_text + ": no server within " + seconds_text(timeout_ns) + ": " +
                               failure);
    configure_control_socket(fd);
    TcpRendezvous client(fd, -1, false, timeout_ns);
    client.peer_ = endpoint_text;
    NGX_TRY(handshake(client.control(), client.handshake_end_ns_));
    NGX_TRY(client.prove_client(secret));
    return client;
}

} // namespace ngx
