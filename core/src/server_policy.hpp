// What a --listen server lets a client do: which addresses may connect
// (--allow CIDR[,CIDR]), the shared secret both sides must hold
// (--secret-file FILE), how many clients it serves (--serve N|forever) and
// what one client may make it spend (--max-pairs, --max-timeout, --max-size,
// --max-count). The server's operator sets these; a client cannot.
//
//     Result<std::vector<Cidr>> allow = parse_cidrs("10.0.0.0/8,::1");
//     bool in = allowed(*allow, peer_address);   // empty list: everyone
//     Result<std::string> secret = read_secret_file("/etc/ngx.key");
#ifndef NGX_SERVER_POLICY_HPP
#define NGX_SERVER_POLICY_HPP

#include <ngx/status.hpp>

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ngx {

// An IPv4 or IPv6 network; an IPv4-mapped IPv6 peer matches IPv4 networks.
struct Cidr {
    int family = AF_INET;
    std::array<uint8_t, 16> address{};
    int prefix = 32;
    std::string text; // as written
};

Result<std::vector<Cidr>> parse_cidrs(const std::string& list);
bool allowed(const std::vector<Cidr>& networks, const sockaddr_storage& peer);
// The same for a numeric address in text; false for anything else.
bool allowed_address(const std::vector<Cidr>& networks, const std::string& address);

// The secret: a regular file of this user's, not readable by others, of 16
// to 4096 bytes (one trailing newline dropped). Errors are usage errors.
Result<std::string> read_secret_file(const std::string& path);

struct ServerLimits {
    uint64_t max_pairs = 16;
    uint64_t max_timeout_ns = 60'000'000'000;
    uint64_t max_size = 64ull << 20;
    uint64_t max_count = 1'000'000;
};

// The secret itself is read where it is used (read_secret_file), not kept here.
struct ServerPolicy {
    std::vector<Cidr> allow; // empty: any address
    uint64_t serve = 1;      // good clients to serve; 0: forever
    ServerLimits limits;
};

// The client's argument list as the wire carries it (NUL-terminated
// strings), split after checking its shape: at most max_arguments, each at
// most max_argument_bytes, and no bytes after the last NUL. Boost's parser
// costs the square of the argument count, so nothing larger reaches it.
inline constexpr size_t max_proposal_bytes = 64 * 1024;
inline constexpr size_t max_arguments = 256;
inline constexpr size_t max_argument_bytes = 4096;
Result<std::vector<std::string>> unpack_proposal(const std::string& blob);

// A run of more than two hosts as the client tells each server: every
// host's address (the client's first, then the servers in --connect order)
// and which of them the server is (1..), on the wire as "hosts I A0 A1 ...".
// Unpacking checks the shape only (at least three hosts, I one of the
// servers); the server then checks the addresses against --allow.
struct RunHosts {
    int index = 0;
    std::vector<std::string> addresses;
};
std::string pack_run_hosts(const RunHosts& hosts);
Result<RunHosts> unpack_run_hosts(const std::string& text);

// "any address" or "10.0.0.0/8, ::1/128", for the start-up line.
std::string describe_allow(const std::vector<Cidr>& networks);

} // namespace ngx

#endif
