// The TCP rendezvous of --listen / --connect: the server's listener, the
// client's connection, the handshake (version, shared secret, command line,
// verdict) and the connections of the run's pairs, each step with a deadline.
// local_group.hpp turns its sockets into the run's bootstrap.
//
//     Result<TcpRendezvous> client = tcp_connect("host:7000", timeout_ns, secret);
//     NGX_TRY(client->propose(arguments));
#ifndef NGX_TCP_RENDEZVOUS_HPP
#define NGX_TCP_RENDEZVOUS_HPP

#include "server_policy.hpp"
#include "stream_bootstrap.hpp"

#include <memory>
#include <string>
#include <vector>

namespace ngx {

// The TCP rendezvous of --listen / --connect. Pair 0's connection comes first
// and is also the control channel: after the version check and, with a
// shared secret, the challenge (both sides prove they hold it; it never
// crosses the wire), the client sends its command line, the server answers
// with its verdict and, when it accepts, the run's token. For a run of more
// than two hosts the command line is followed by the host list
// (local_group.hpp). For K pairs the
// client then opens the connections of pairs 1..K-1 to the same port, each
// introduced by "pair I TOKEN"; the server accepts them all before either
// side forks (local_group.hpp). Every step has a deadline.
class TcpRendezvous {
public:
    TcpRendezvous(TcpRendezvous&& other) noexcept;
    TcpRendezvous& operator=(TcpRendezvous&&) = delete;
    ~TcpRendezvous();

    bool is_server() const { return server_; }
    FrameChannel& control() { return *control_; }
    const std::string& peer() const { return peer_; }
    // When the handshake, the client's command line included, must be done (CLOCK_MONOTONIC ns).
    uint64_t handshake_end_ns() const { return handshake_end_ns_; }

    // Client: sends the command line (and, for a run of more than two
    // hosts, the host list: `hosts` with an index) and waits for the
    // server's answer; a refusal comes back as the server's message (a usage
    // error).
    Status propose(const Bytes& arguments, const RunHosts& hosts = {});
    // Server: the client's command line, by the handshake's deadline and of at
    // most max_proposal_bytes, then the verdict on it (ok or the error, which
    // the client prints too); returns `verdict`.
    Result<Bytes> receive_proposal();
    // Server: the host list that follows the command line of a run of more
    // than two hosts (signed as the command line is), by the same deadline.
    Result<RunHosts> receive_hosts();
    Status answer(const Status& verdict);

    // The connections of pairs 1..pairs-1 (client: connects; server: accepts,
    // ignoring strangers without the token). The server's listener stays
    // with its TcpListener.
    Status join_pairs(int pairs, uint64_t timeout_ns);
    // Pair i's socket, i = 0..pairs-1 (0: the control connection); the caller owns them.
    std::vector<int> release_pair_sockets();

private:
    friend class TcpListener;
    friend Result<TcpRendezvous> tcp_connect(const std::string&, uint64_t, const std::string&);
    TcpRendezvous(int control_fd, int listener, bool server, uint64_t timeout_ns);
    Status connect_pairs(int pairs, uint64_t end_ns);
    Status accept_pairs(int pairs, uint64_t end_ns);
    Status prove_client(const std::string& secret);
    Status check_client(const std::string& secret);

    std::unique_ptr<FrameChannel> control_;
    int listener_ = -1; // the server's TcpListener's, not owned
    bool server_ = false;
    uint64_t timeout_ns_;
    uint64_t handshake_end_ns_ = 0;
    std::string token_;
    std::string secret_, nonces_; // with a shared secret: it, and the challenge's two nonces
    std::string peer_;            // the other side's address, for messages
    std::vector<int> pair_fds_;   // pairs 1..K-1
};

// A --listen server's socket, kept open from client to client. A bare port
// listens on every interface. next_client() returns the next connection that
// passes --allow, the version check and the secret; any other is closed with
// a line on stderr saying why, and the wait goes on.
class TcpListener {
public:
    TcpListener(TcpListener&& other) noexcept;
    TcpListener& operator=(TcpListener&&) = delete;
    ~TcpListener();

    // Binds [ADDR:]PORT; the secret ("" for none) is the file's content.
    static Result<TcpListener> open(const std::string& endpoint, const ServerPolicy& policy, const std::string& secret,
                                    uint64_t handshake_timeout_ns);
    // Where it listens ("every interface, port 7000" or "127.0.0.1, port 7000").
    const std::string& where() const { return where_; }
    // end_ns 0: no end (--serve forever without --accept-timeout).
    Result<TcpRendezvous> next_client(uint64_t end_ns);

private:
    TcpListener(int fd, std::string where, std::vector<Cidr> allow, std::string secret, uint64_t timeout_ns);
    Result<TcpRendezvous> greet(int fd, const std::string& peer);
    int fd_;
    std::string where_;
    std::vector<Cidr> allow_;
    std::string secret_;
    uint64_t timeout_ns_;
};

// The client connects within timeout_ns (retrying while the server starts)
// and, with a secret ("" for none), answers the server's challenge.
Result<TcpRendezvous> tcp_connect(const std::string& endpoint, uint64_t timeout_ns, const std::string& secret);

} // namespace ngx

#endif
