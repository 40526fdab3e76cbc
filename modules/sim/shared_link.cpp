// The sim module's shared node link (see shared_link.hpp).
#include "shared_link.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace ngx::sim {
namespace {

constexpr double ns_per_s = 1e9;
constexpr double rounds_counted = 3; // a pair counts for three of its round trips after a send

// The job's name, shared by every rank of a node: the launcher's, else rank 0's pid.
ngx_status job_key(const ngx_bootstrap* boot, const std::string& given, std::string* key, ngx_error* err)
{
    if (!given.empty()) {
        *key = given;
        return NGX_OK;
    }
    if (const char* job = std::getenv("PMIX_NAMESPACE")) {
        *key = job;
        return NGX_OK;
    }
    const char* slurm_job = std::getenv("SLURM_JOB_ID");
    const char* slurm_step = std::getenv("SLURM_STEP_ID");
    if (slurm_job != nullptr && slurm_step != nullptr) {
        *key = std::string("slurm") + slurm_job + "." + slurm_step;
        return NGX_OK;
    }
    if (boot->nranks > 2) { // ngx --pairs K: rank 0 forked every other rank
        *key = std::to_string(boot->rank == 0 ? getpid() : getppid());
        return NGX_OK;
    }
    // One pair (a local launch or --listen/--connect): the driver's pid names it.
    std::string mine = std::to_string(getpid()), theirs;
    if (ngx_status s = mod::exchange_blob(boot, mine, &theirs, 32, err); s != NGX_OK)
        return s;
    *key = boot->rank < boot->nranks / 2 ? mine : theirs;
    return NGX_OK;
}

// The node's segment: the first rank of the node creates it (O_EXCL, 0600);
// the others open it and check that it is what that rank made: this user's,
// no access for others, the record's size (0 while its creator sizes it).
// A segment someone else made beforehand (its name is predictable) is
// refused, never used: its owner could read and change the record.
ngx_status open_segment(const std::string& name, int* out, bool* created, ngx_error* err)
{
    int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW, 0600);
    *created = fd >= 0;
    if (fd < 0 && errno == EEXIST)
        fd = shm_open(name.c_str(), O_RDWR | O_NOFOLLOW, 0600);
    if (fd < 0)
        return mod::fail(err, NGX_ERR_SYSTEM, "connect: shm_open %s: %s", name.c_str(), std::strerror(errno));
    struct stat info {};
    const char* wrong = nullptr;
    if (fstat(fd, &info) != 0)
        wrong = "cannot be examined";
    else if (info.st_uid != geteuid())
        wrong = "belongs to another user";
    else if ((info.st_mode & 077) != 0)
        wrong = "is open to other users";
    else if (info.st_size != 0 && size_t(info.st_size) != sizeof(LinkRecord))
        wrong = "has the wrong size";
    if (wrong != nullptr) {
        close(fd);
        return mod::fail(err, NGX_ERR_SYSTEM,
                         "connect: the shared segment %s exists and %s (uid %u, mode %03o): refusing to use it; "
                         "remove /dev/shm%s or choose another --sim-link NAME",
                         name.c_str(), wrong, unsigned(info.st_uid), unsigned(info.st_mode & 0777), name.c_str());
    }
    *out = fd;
    return NGX_OK;
}

} // namespace

SharedLink::~SharedLink()
{
    if (record_ != nullptr) {
        munmap(record_, sizeof(LinkRecord));
        if (!unlinked_) // a rank of the node never came: the first to leave removes the name
            shm_unlink(shm_name_.c_str());
    }
}

LinkSettings read_link_settings(mod::ModuleOptions& read)
{
    LinkSettings settings;
    settings.rn_bytes_per_s = read(sim_RN);
    settings.rc_bytes_per_s = read(sim_RC);
    settings.name = read(sim_link);
    return settings;
}

std::string SharedLink::describe() const
{
    char text[64];
    std::snprintf(text, sizeof text, " %.17g %.17g", settings_.rn_bytes_per_s, settings_.rc_bytes_per_s);
    return text;
}

ngx_status SharedLink::open(const ngx_bootstrap* boot, double alpha, double units_per_ns, ngx_error* err)
{
    if (!enabled())
        return NGX_OK;
    int pairs = boot->nranks / 2;
    if (pairs > int(max_link_pairs))
        return mod::fail(err, NGX_ERR_INVALID_OPTION, "connect: --sim-RN/--sim-RC simulate at most %zu pairs",
                         max_link_pairs);
    std::string key;
    if (ngx_status s = job_key(boot, settings_.name, &key, err); s != NGX_OK)
        return s;
    for (char& c : key)
        if (c == '/')
            c = '_';
    const bool node_a = boot->rank < pairs;
    shm_name_ = "/ngx-simlink-" + key + (node_a ? "-A" : "-B");
    bool created = false;
    int fd = -1;
    if (ngx_status s = open_segment(shm_name_, &fd, &created, err); s != NGX_OK)
        return s;
    void* mapped = MAP_FAILED;
    if (ftruncate(fd, sizeof(LinkRecord)) == 0)
        mapped = mmap(nullptr, sizeof(LinkRecord), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int saved = errno;
    close(fd);
    if (mapped == MAP_FAILED) {
        if (created)
            shm_unlink(shm_name_.c_str());
        return mod::fail(err, NGX_ERR_SYSTEM, "connect: mapping %s: %s", shm_name_.c_str(), std::strerror(saved));
    }
    record_ = static_cast<LinkRecord*>(mapped);
    slot_ = size_t(boot->rank % pairs);
    alpha_ = alpha;
    units_per_ns_ = units_per_ns;
    // The node's last rank to map it removes the name: from then on only the
    // mappings hold it, and it goes with the last of them however they end.
    if (record_->attached.fetch_add(1) + 1 == uint32_t(pairs)) {
        shm_unlink(shm_name_.c_str());
        unlinked_ = true;
    }
    return NGX_OK;
}

uint64_t SharedLink::share(size_t bytes, uint64_t now)
{
    if (record_ == nullptr || bytes == 0)
        return 0;
    size_t active = 1; // this pair
    for (size_t i = 0; i < max_link_pairs; ++i)
        if (i != slot_ && record_->active_until[i].load(std::memory_order_relaxed) > now)
            ++active;
    const double n = double(bytes);
    double seconds = 0;
    if (settings_.rc_bytes_per_s > 0)
        seconds = n / settings_.rc_bytes_per_s; // the pair's own path
    if (settings_.rn_bytes_per_s > 0)
        seconds = std::max(seconds, double(active) * n / settings_.rn_bytes_per_s); // its share of the node's link
    const double extra = seconds * ns_per_s * units_per_ns_;
    const double round_trip = 2 * (alpha_ + extra);
    record_->active_until[slot_].store(now + uint64_t(rounds_counted * round_trip), std::memory_order_relaxed);
    return uint64_t(std::llround(extra));
}

void sleep_most_of(uint64_t remaining_ns, uint64_t margin_ns)
{
    if (margin_ns == 0 || remaining_ns <= margin_ns)
        return;
    uint64_t ns = remaining_ns - margin_ns;
    timespec pause{time_t(ns / 1'000'000'000), long(ns % 1'000'000'000)};
    nanosleep(&pause, nullptr); // a signal cuts it short: the caller spins the rest
}

void nap(uint64_t margin_ns)
{
    if (margin_ns == 0)
        return;
    uint64_t ns = margin_ns / 5;
    timespec pause{time_t(ns / 1'000'000'000), long(ns % 1'000'000'000)};
    nanosleep(&pause, nullptr);
}

} // namespace ngx::sim
