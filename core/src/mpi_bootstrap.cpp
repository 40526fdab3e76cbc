// The MPI bootstrap (see mpi_bootstrap.hpp): every step is a non-blocking MPI
// call on a private communicator, completed by polling MPI_Testall under the
// deadline of the run.
#include "mpi_bootstrap.hpp"

#define OMPI_SKIP_MPICXX 1 // the C API only: no C++ binding headers
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace ngx {
namespace {

constexpr int tag_size = 1;
constexpr int tag_data = 2;
// Spin this long on MPI_Test before pausing between tests, so that short
// waits stay fast and long ones leave the core to the peer.
constexpr auto spin_period = std::chrono::milliseconds(10);
constexpr auto pause_between_tests = std::chrono::microseconds(20);

std::string mpi_error_text(int code)
{
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    return std::string(text, size_t(length));
}

// The IPv4 address of interface `name`, or of the first non-loopback
// interface that is up when `name` is empty; "" when there is none.
std::string ipv4_of_interface(const std::string& name)
{
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0)
        return "";
    std::string found;
    for (ifaddrs* entry = list; entry != nullptr && found.empty(); entry = entry->ifa_next) {
        if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET)
            continue;
        bool wanted =
            name.empty() ? (entry->ifa_flags & IFF_UP) && !(entry->ifa_flags & IFF_LOOPBACK) : name == entry->ifa_name;
        if (!wanted)
            continue;
        char text[INET_ADDRSTRLEN] = "";
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(entry->ifa_addr)->sin_addr, text, sizeof text);
        found = text;
    }
    freeifaddrs(list);
    return found;
}

// The address rule of mpi_bootstrap.hpp.
Result<std::string> choose_local_address()
{
    const char* named = std::getenv("NGX_MPI_IFACE");
    std::string interface = named != nullptr ? named : "";
    std::string address = ipv4_of_interface(interface);
    if (!address.empty())
        return address;
    if (!interface.empty())
        return Status::usage("NGX_MPI_IFACE=" + interface + ": no IPv4 address on that interface");
    return std::string("127.0.0.1");
}

class MpiBootstrap final : public Bootstrap {
public:
    MpiBootstrap(MPI_Comm comm, int rank, int nranks, RankGrouping grouping, uint64_t timeout_ns)
            : comm_(comm), rank_(rank), nranks_(nranks), grouping_(grouping), timeout_ns_(timeout_ns)
    {
    }
    ~MpiBootstrap() override;

    BootstrapKind kind() const override { return BootstrapKind::mpi; }
    int rank() const override { return rank_; }
    int nranks() const override { return nranks_; }
    // In a group every rank's peer is the root, rank 0 (whose own is rank 1),
    // and rank 0 alone drives; pairs keep i <-> i + n/2.
    int peer() const override { return grouping_ == RankGrouping::pairs ? Bootstrap::peer() : (rank_ == 0 ? 1 : 0); }
    bool is_driver() const override { return grouping_ == RankGrouping::pairs ? Bootstrap::is_driver() : rank_ == 0; }
    std::string local_address() const override { return local_address_; }
    std::string peer_address() const override { return peer_address_; }

    bool has_pair_channel() const override { return grouping_ == RankGrouping::pairs; }
    Status raw_exchange(const Bytes& mine, Bytes& theirs) override;
    Status raw_broadcast(Bytes& value) override;
    Status raw_gather(const Bytes& mine, std::vector<Bytes>& all) override;

    Status exchange_addresses();
    void set_exit_code(int code) { exit_code_ = code; }

private:
    Status complete(MPI_Request* requests, int count, const char* step);
    // One-way steps of two paired ranks travel as half an exchange, on the
    // exchange's tags, so that a rank in an exchange receives its peer's
    // broadcast or gather and sees the other step at once.
    bool one_pair() const { return grouping_ == RankGrouping::pairs && nranks_ == 2; }
    Status send_to_peer(const Bytes& mine);
    Status receive_from_peer(Bytes& theirs);
    Status started(int code, const char* step) const
    {
        return code == MPI_SUCCESS ? Status::ok() : Status::runtime(std::string(step) + ": " + mpi_error_text(code));
    }

    MPI_Comm comm_;
    int rank_;
    int nranks_;
    RankGrouping grouping_;
    uint64_t timeout_ns_;
    int exit_code_ = 0;
    std::string local_address_, peer_address_;
};

// Ends the whole job. The files are written by now: the launcher's SIGTERM,
// which follows, may end this process at once instead of after its kill
// timeout (1 s in Open MPI), so SIGTERM gets its default action back.
// How long a failed rank other than 0 waits, beyond the deadline, for rank 0
// to end the job (rank 0 writes the files).
constexpr uint64_t abort_lag_ns = 1'000'000'000;

void abort_job(int exit_code)
{
    std::signal(SIGTERM, SIG_DFL);
    MPI_Abort(MPI_COMM_WORLD, exit_code);
}

MpiBootstrap::~MpiBootstrap()
{
    if (exit_code_ != 0 && exit_code_ != 2) {
        // Rank 0 writes the files, so it is the one to end the job. When a
        // link fails both sides see it at once (and two ranks calling
        // MPI_Abort together can crash Open MPI's teardown, a segfault in
        // mpi-link-down); with several pairs, rank 0 learns of another
        // pair's failure only at its next collective step, which its
        // deadline bounds. Every other rank therefore waits the deadline and
        // a lag, and aborts only if rank 0 has not ended the job by then.
        if (rank() != 0)
            std::this_thread::sleep_for(std::chrono::nanoseconds(timeout_ns_ + abort_lag_ns));
        abort_job(exit_code_); // the peer may sit in MPI: finalize could hang
        return;
    }
    MPI_Comm_free(&comm_);
    MPI_Finalize();
}

// Polls until every request completed or the deadline passed.
Status MpiBootstrap::complete(MPI_Request* requests, int count, const char* step)
{
    auto start = std::chrono::steady_clock::now();
    auto end = start + std::chrono::nanoseconds(timeout_ns_);
    for (;;) {
        int done = 0;
        int code = MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE);
        if (code != MPI_SUCCESS)
            return Status::runtime(std::string(step) + ": " + mpi_error_text(code));
        if (done)
            return Status::ok();
        auto now = std::chrono::steady_clock::now();
        if (now >= end)
            return Status::runtime(std::string(step) + ": no answer from the other ranks within " +
                                   std::to_string(double(timeout_ns_) / 1e9) + " s (is the peer alive?)");
        if (now - start > spin_period)
            std::this_thread::sleep_for(pause_between_tests);
    }
}

Status MpiBootstrap::raw_exchange(const Bytes& mine, Bytes& theirs)
{
    if (grouping_ == RankGrouping::group) // with 3 ranks the "peers" 0 <- 2 would wait for each other forever
        return Status::runtime("exchange: the ranks form one group for a collective pattern: there is no pairwise "
                               "peer to exchange with");
    int peer_rank = peer();
    uint64_t my_size = mine.size();
    uint64_t their_size = 0;
    MPI_Request sizes[2];
    NGX_TRY(started(MPI_Irecv(&their_size, 1, MPI_UINT64_T, peer_rank, tag_size, comm_, &sizes[0]), "exchange"));
    NGX_TRY(started(MPI_Isend(&my_size, 1, MPI_UINT64_T, peer_rank, tag_size, comm_, &sizes[1]), "exchange"));
    NGX_TRY(complete(sizes, 2, "exchange (sizes)"));
    theirs.assign(size_t(their_size), 0);
    MPI_Request data[2];
    NGX_TRY(
        started(MPI_Irecv(theirs.data(), int(their_size), MPI_BYTE, peer_rank, tag_data, comm_, &data[0]), "exchange"));
    NGX_TRY(started(MPI_Isend(mine.data(), int(my_size), MPI_BYTE, peer_rank, tag_data, comm_, &data[1]), "exchange"));
    return complete(data, 2, "exchange");
}

Status MpiBootstrap::send_to_peer(const Bytes& mine)
{
    uint64_t size = mine.size();
    MPI_Request requests[2];
    NGX_TRY(started(MPI_Isend(&size, 1, MPI_UINT64_T, peer(), tag_size, comm_, &requests[0]), "send"));
    NGX_TRY(started(MPI_Isend(mine.data(), int(size), MPI_BYTE, peer(), tag_data, comm_, &requests[1]), "send"));
    return complete(requests, 2, "send");
}

Status MpiBootstrap::receive_from_peer(Bytes& theirs)
{
    uint64_t size = 0;
    MPI_Request request;
    NGX_TRY(started(MPI_Irecv(&size, 1, MPI_UINT64_T, peer(), tag_size, comm_, &request), "receive"));
    NGX_TRY(complete(&request, 1, "receive (size)"));
    theirs.assign(size_t(size), 0);
    NGX_TRY(started(MPI_Irecv(theirs.data(), int(size), MPI_BYTE, peer(), tag_data, comm_, &request), "receive"));
    return complete(&request, 1, "receive");
}

Status MpiBootstrap::raw_broadcast(Bytes& value)
{
    if (one_pair())
        return rank_ == 0 ? send_to_peer(value) : receive_from_peer(value);
    uint64_t size = value.size();
    MPI_Request request;
    NGX_TRY(started(MPI_Ibcast(&size, 1, MPI_UINT64_T, 0, comm_, &request), "broadcast"));
    NGX_TRY(complete(&request, 1, "broadcast (size)"));
    value.resize(size_t(size));
    NGX_TRY(started(MPI_Ibcast(value.data(), int(size), MPI_BYTE, 0, comm_, &request), "broadcast"));
    return complete(&request, 1, "broadcast");
}

Status MpiBootstrap::raw_gather(const Bytes& mine, std::vector<Bytes>& all)
{
    if (one_pair()) {
        if (rank_ != 0)
            return send_to_peer(mine);
        all.assign(2, Bytes());
        all[0] = mine;
        return receive_from_peer(all[1]);
    }

    int my_size = int(mine.size());
    std::vector<int> sizes(rank_ == 0 ? size_t(nranks_) : 0);
    MPI_Request request;
    NGX_TRY(started(MPI_Igather(&my_size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm_, &request), "gather"));
    NGX_TRY(complete(&request, 1, "gather (sizes)"));
    std::vector<int> offsets(sizes.size(), 0);
    for (size_t i = 1; i < sizes.size(); ++i)
        offsets[i] = offsets[i - 1] + sizes[i - 1];
    Bytes joined(sizes.empty() ? 0 : size_t(offsets.back() + sizes.back()));
    NGX_TRY(started(MPI_Igatherv(mine.data(), my_size, MPI_BYTE, joined.data(), sizes.data(), offsets.data(), MPI_BYTE,
                                 0, comm_, &request),
                    "gather"));
    NGX_TRY(complete(&request, 1, "gather"));
    all.clear();
    for (size_t i = 0; i < sizes.size(); ++i)
        all.emplace_back(joined.begin() + offsets[i], joined.begin() + offsets[i] + sizes[i]);
    return Status::ok();
}

Status MpiBootstrap::exchange_addresses()
{
    NGX_ASSIGN_OR_RETURN(std::string local, choose_local_address());
    local_address_ = local;
    if (grouping_ == RankGrouping::group)
        return Status::ok(); // no peer: collective modules address the group, not an address
    Bytes theirs;
    NGX_TRY(
        exchange(to_bytes(local_address_), theirs, "mpi bootstrap: addresses").with_context("exchanging addresses"));
    peer_address_ = to_string(theirs);
    return Status::ok();
}

// MPI_THREAD_SINGLE, what MPI_Init asks for and what a hand-written MPI
// benchmark runs with. ngx's watchdog thread makes no MPI call while the
// job runs; its one call is MPI_Abort when a rank is stuck past its
// deadline, an emergency exit that FUNNELED would not cover either (only
// MULTIPLE does). FUNNELED is not free: with Open MPI 4.1 over vader it
// adds 0.035-0.05 us to a 1-byte half round trip of 0.10-0.37 us
// (bench/ladder, steps checks and funneled).
Status initialise_mpi()
{
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (initialised)
        return Status::ok();
    int provided = 0;
    int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided);
    if (code != MPI_SUCCESS)
        return Status::runtime("MPI_Init_thread failed: " + mpi_error_text(code));
    return Status::ok();
}

// Why `nranks` ranks cannot run `pattern`, or "" when they can: pairs need
// an even count, a group at least two.
std::string refusal(const PatternInfo& pattern, int nranks)
{
    if (pattern.ranks == RankGrouping::group)
        return nranks >= 2 ? ""
                           : "pattern '" + pattern.name + "' runs all ranks as one group and needs P >= 2 ranks; got " +
                                 std::to_string(nranks) + " (use mpirun -np 2, 3, 4, ...)";
    return nranks % 2 == 0 ? ""
                           : "the MPI bootstrap needs an even number of ranks (rank i measures against rank i + n/2); "
                             "got " +
                                 std::to_string(nranks) + " (use mpirun -np 2, 4, ...)";
}

} // namespace

Result<std::unique_ptr<Bootstrap>> start_mpi_bootstrap(uint64_t timeout_ns, const PatternInfo& pattern)
{
    NGX_TRY(initialise_mpi());
    int rank = 0;
    int nranks = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (std::string why = refusal(pattern, nranks); !why.empty()) {
        MPI_Finalize();
        // Rank 0 alone says why, and its exit status 2 is the job's. The
        // others leave with 0: a rank leaving non-zero makes the launcher
        // end the job at once, and rank 0's message could be lost with it.
        if (rank != 0)
            std::exit(0);
        return Status::usage(why);
    }
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    auto boot = std::make_unique<MpiBootstrap>(comm, rank, nranks, pattern.ranks, timeout_ns);
    Status addresses = boot->exchange_addresses();
    if (!addresses) {
        boot->set_exit_code(addresses.kind() == ErrorKind::usage ? 2 : 1);
        return addresses;
    }
    return std::unique_ptr<Bootstrap>(std::move(boot));
}

std::string mpi_library_version()
{
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int length = 0;
    MPI_Get_library_version(text, &length);
    std::string version(text); // `length` may count the terminating NUL
    return version.substr(0, version.find('\n'));
}

void finish_mpi_bootstrap(Bootstrap& boot, int exit_code)
{
    if (auto* mpi = dynamic_cast<MpiBootstrap*>(&boot))
        mpi->set_exit_code(exit_code);
}

void abort_mpi_job(Bootstrap& boot, int exit_code)
{
    if (dynamic_cast<MpiBootstrap*>(&boot) != nullptr)
        abort_job(exit_code);
}

} // namespace ngx
