// Address filters, the secret file and the client's argument list of a
// --listen server (see server_policy.hpp).
#include "server_policy.hpp"

#include <ngx/options.hpp>

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ngx {
namespace {

constexpr size_t min_secret_bytes = 16;
constexpr size_t max_secret_bytes = 4096;

Result<Cidr> parse_cidr(const std::string& text)
{
    auto refused = [&](const std::string& why) {
        return Status::usage(opt::bad_value("allow", text, why + " (expected ADDRESS[/PREFIX], e.g. 10.1.0.0/16)"));
    };
    Cidr cidr;
    cidr.text = text;
    size_t slash = text.find('/');
    std::string address = text.substr(0, slash);
    if (inet_pton(AF_INET, address.c_str(), cidr.address.data()) == 1) {
        cidr.family = AF_INET;
        cidr.prefix = 32;
    } else if (inet_pton(AF_INET6, address.c_str(), cidr.address.data()) == 1) {
        cidr.family = AF_INET6;
        cidr.prefix = 128;
    } else {
        return refused("not a numeric IPv4 or IPv6 address");
    }
    if (slash != std::string::npos) {
        opt::Parsed<uint64_t> prefix = opt::whole_number("allow", text.substr(slash + 1), 0, uint64_t(cidr.prefix));
        if (!prefix)
            return refused("the prefix must be a whole number in 0.." + std::to_string(cidr.prefix));
        cidr.prefix = int(*prefix);
    }
    return cidr;
}

bool matches(const Cidr& network, const uint8_t* address, int family)
{
    if (network.family != family)
        return false;
    int whole = network.prefix / 8, bits = network.prefix % 8;
    if (std::memcmp(network.address.data(), address, size_t(whole)) != 0)
        return false;
    if (bits == 0)
        return true;
    uint8_t mask = uint8_t(0xff << (8 - bits));
    return (network.address[size_t(whole)] & mask) == (address[whole] & mask);
}

} // namespace

Result<std::vector<Cidr>> parse_cidrs(const std::string& list)
{
    std::vector<Cidr> networks;
    for (const std::string& item : opt::split_list(list)) {
        if (item.empty())
            return Status::usage(opt::bad_value("allow", list, "an empty network in the list"));
        Result<Cidr> network = parse_cidr(item);
        if (!network)
            return network.status();
        networks.push_back(*network);
    }
    if (networks.empty())
        return Status::usage(opt::bad_value("allow", list, "expected CIDR[,CIDR...]"));
    return networks;
}

bool allowed(const std::vector<Cidr>& networks, const sockaddr_storage& peer)
{
    if (networks.empty())
        return true;
    uint8_t bytes[16] = {};
    int family = peer.ss_family;
    if (family == AF_INET) {
        std::memcpy(bytes, &reinterpret_cast<const sockaddr_in&>(peer).sin_addr, 4);
    } else if (family == AF_INET6) {
        const in6_addr& six = reinterpret_cast<const sockaddr_in6&>(peer).sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(&six)) { // a dual-stack listener sees IPv4 clients so
            family = AF_INET;
            std::memcpy(bytes, six.s6_addr + 12, 4);
        } else {
            std::memcpy(bytes, six.s6_addr, 16);
        }
    } else {
        return false;
    }
    for (const Cidr& network : networks)
        if (matches(network, bytes, family))
            return true;
    return false;
}

bool allowed_address(const std::vector<Cidr>& networks, const std::string& address)
{
    sockaddr_storage peer{};
    if (inet_pton(AF_INET, address.c_str(), &reinterpret_cast<sockaddr_in&>(peer).sin_addr) == 1)
        peer.ss_family = AF_INET;
    else if (inet_pton(AF_INET6, address.c_str(), &reinterpret_cast<sockaddr_in6&>(peer).sin6_addr) == 1)
        peer.ss_family = AF_INET6;
    else
        return false;
    return allowed(networks, peer);
}

std::string pack_run_hosts(const RunHosts& hosts)
{
    std::string text = "hosts " + std::to_string(hosts.index);
    for (const std::string& address : hosts.addresses)
        text += " " + address;
    return text;
}

Result<RunHosts> unpack_run_hosts(const std::string& text)
{
    auto refused = [&] { return Status::usage("the client's host list '" + text.substr(0, 200) + "' is malformed"); };
    std::vector<std::string> words;
    for (size_t start = 0, end; start <= text.size(); start = end + 1) {
        end = std::min(text.find(' ', start), text.size());
        words.push_back(text.substr(start, end - start));
    }
    if (words.size() < 5 || words[0] != "hosts")
        return refused();
    opt::Parsed<uint64_t> index = opt::whole_number("hosts", words[1], 1, words.size() - 3);
    if (!index)
        return refused();
    RunHosts hosts;
    hosts.index = int(*index);
    hosts.addresses.assign(words.begin() + 2, words.end());
    for (const std::string& address : hosts.addresses)
        if (address.empty())
            return refused();
    return hosts;
}

std::string describe_allow(const std::vector<Cidr>& networks)
{
    if (networks.empty())
        return "any address";
    std::string text;
    for (const Cidr& network : networks)
        text += (text.empty() ? "" : ", ") + network.text;
    return text;
}

Result<std::string> read_secret_file(const std::string& path)
{
    auto refused = [&](const std::string& why) { return Status::usage("--secret-file " + path + ": " + why); };
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return refused(std::strerror(errno));
    struct stat info {};
    std::string secret;
    Status verdict;
    if (fstat(fd, &info) != 0)
        verdict = refused(std::strerror(errno));
    else if (!S_ISREG(info.st_mode))
        verdict = refused("not a regular file");
    else if (info.st_uid != geteuid())
        verdict = refused("owned by another user (uid " + std::to_string(info.st_uid) + ")");
    else if ((info.st_mode & 077) != 0)
        verdict = refused("readable or writable by other users; chmod 600 it");
    else if (info.st_size > off_t(max_secret_bytes + 1))
        verdict = refused("larger than " + std::to_string(max_secret_bytes) + " bytes");
    if (verdict) {
        secret.resize(max_secret_bytes + 2);
        ssize_t got = read(fd, secret.data(), secret.size());
        if (got < 0)
            verdict = refused(std::strerror(errno));
        secret.resize(got < 0 ? 0 : size_t(got));
    }
    close(fd);
    if (!verdict)
        return verdict;
    if (!secret.empty() && secret.back() == '\n')
        secret.pop_back();
    if (secret.size() < min_secret_bytes || secret.size() > max_secret_bytes)
        return refused("the secret must be " + std::to_string(min_secret_bytes) + " to " +
                       std::to_string(max_secret_bytes) + " bytes (e.g. head -c 32 /dev/urandom | base64 > FILE)");
    return secret;
}

Result<std::vector<std::string>> unpack_proposal(const std::string& blob)
{
    if (blob.size() > max_proposal_bytes)
        return Status::usage("the client's options take " + std::to_string(blob.size()) + " bytes, at most " +
                             std::to_string(max_proposal_bytes) + " are accepted");
    if (!blob.empty() && blob.back() != '\0')
        return Status::usage("the client's options are not a list of NUL-terminated arguments");
    std::vector<std::string> arguments;
    for (size_t start = 0, end; start < blob.size(); start = end + 1) {
        end = blob.find('\0', start);
        if (arguments.size() == max_arguments)
            return Status::usage("the client sent more than " + std::to_string(max_arguments) + " arguments");
        if (end - start > max_argument_bytes)
            return Status::usage("the client's argument " + std::to_string(arguments.size() + 1) + " is longer than " +
                                 std::to_string(max_argument_bytes) + " bytes");
        arguments.push_back(blob.substr(start, end - start));
    }
    return arguments;
}

} // namespace ngx
