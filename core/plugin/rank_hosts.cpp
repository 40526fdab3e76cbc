// Which host each rank runs on (see rank_hosts.hpp).
#include <ngx/rank_hosts.hpp>

#include <ngx/module_support.hpp>

#include <algorithm>
#include <sstream>
#include <unistd.h>

namespace ngx {
namespace {

std::string trimmed(std::string_view text)
{
    const char* space = " \t\r\n";
    size_t begin = text.find_first_not_of(space);
    if (begin == std::string_view::npos)
        return "";
    size_t end = text.find_last_not_of(space);
    return std::string(text.substr(begin, end - begin + 1));
}

} // namespace

std::vector<std::string> RankHosts::nodes() const
{
    std::vector<std::string> distinct;
    for (const std::string& host : hosts_)
        if (std::find(distinct.begin(), distinct.end(), host) == distinct.end())
            distinct.push_back(host);
    return distinct;
}

Result<RankHosts> hosts_for_ranks(const std::vector<std::string>& names, int nranks, std::string_view source)
{
    if (nranks < 1)
        return Status::usage(std::string(source) + ": the run has no ranks");
    if (names.size() < size_t(nranks))
        return Status::usage(std::string(source) + " names " + std::to_string(names.size()) + " host" +
                             (names.size() == 1 ? "" : "s") + " for " + std::to_string(nranks) +
                             " ranks: every rank needs one (rank i on the i-th name)");
    for (size_t i = 0; i < size_t(nranks); ++i)
        if (names[i].empty())
            return Status::usage(std::string(source) + ": the host of rank " + std::to_string(i) + " is empty");
    return RankHosts(std::vector<std::string>(names.begin(), names.begin() + nranks));
}

Result<RankHosts> parse_host_of(std::string_view list, int nranks)
{
    std::vector<std::string> names;
    size_t start = 0;
    for (;;) {
        size_t comma = list.find(',', start);
        names.push_back(trimmed(list.substr(start, comma == std::string_view::npos ? comma : comma - start)));
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return hosts_for_ranks(names, nranks, "--host-of");
}

// One name a line for far more ranks than any run has.
constexpr size_t max_host_file_bytes = size_t(16) << 20;

Result<RankHosts> read_host_file(const std::string& path, int nranks)
{
    std::string text;
    std::string why;
    if (!mod::read_small_file(path, max_host_file_bytes, &text, &why))
        return Status::usage("host file " + why);
    std::istringstream in(text);
    std::vector<std::string> names;
    std::string line;
    while (std::getline(in, line)) {
        std::string name = trimmed(line.substr(0, line.find('#')));
        if (!name.empty())
            names.push_back(name);
    }
    return hosts_for_ranks(names, nranks, "host file '" + path + "'");
}

Result<RankHosts> hosts_of_run(Bootstrap& boot, const std::string& host_of)
{
    if (host_of.empty())
        return gather_hosts(boot, local_host_name());
    if (host_of[0] == '@')
        return read_host_file(host_of.substr(1), boot.nranks());
    return parse_host_of(host_of, boot.nranks());
}

std::string local_host_name()
{
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0')
        return "localhost";
    return name;
}

Result<RankHosts> gather_hosts(Bootstrap& boot, const std::string& mine)
{
    std::vector<Bytes> all;
    NGX_TRY(boot.gather(to_bytes(mine), all, "gathering the ranks' host names"));
    Bytes joined;
    if (boot.rank() == 0)
        for (const Bytes& name : all) {
            joined.insert(joined.end(), name.begin(), name.end());
            joined.push_back('\n');
        }
    NGX_TRY(boot.broadcast(joined, "sharing the ranks' host names"));
    std::vector<std::string> names;
    std::string text = to_string(joined);
    for (size_t start = 0, end = 0; start < text.size(); start = end + 1) {
        end = text.find('\n', start);
        names.push_back(text.substr(start, end - start));
    }
    return hosts_for_ranks(names, boot.nranks(), "the ranks' host names");
}

} // namespace ngx
