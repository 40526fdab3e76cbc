// A two-way shared-memory channel between two processes on one node: one
// POSIX shared-memory segment holding two rings (ring.hpp), set up through the
// ngx bootstrap. Used by the `shm` and `sim` modules. Header-only.
//
// Setup: the lower rank creates "/ngx-shm-<pid>-<64 random bits>" with
// shm_open(O_EXCL, 0600), sizes and maps it, and sends the name, its pid, its
// pid-namespace inode and the kernel boot id through boot->exchange. The
// higher rank checks that it runs on the same kernel, maps the segment and
// reports back through a second exchange; then the lower rank unlinks the
// name, so nothing is left in /dev/shm even if either side dies later. Each
// side watches the other's pid through a pidfd when both share a pid
// namespace, so a killed peer is reported within a millisecond or so.
//
//     ngx::shm::Channel channel;
//     ngx_status s = ngx::shm::connect_channel(boot, ring_bytes, timeout_ns, &channel, err);
//     ... channel.out.write(...), channel.in.read(...)
#ifndef NGX_SHM_CHANNEL_HPP
#define NGX_SHM_CHANNEL_HPP

#include "ring.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <string>

namespace ngx::shm {

inline constexpr uint64_t segment_magic = 0x316d68732d78676eull; // "ngx-shm1"

struct SegmentHeader {
    uint64_t magic;
    uint64_t ring_bytes;
};

inline size_t segment_bytes(size_t ring_bytes)
{
    return page_bytes + 2 * ring_region_bytes(ring_bytes);
}

// Creates a POSIX shared-memory object of `bytes` under a fresh name
// "<prefix>-<pid>-<64 random bits>" (O_EXCL, 0600): its name and open fd,
// or an error starting with `step`. The caller unlinks the name.
inline ngx_status create_object(const char* step, const char* prefix, size_t bytes, std::string* name, int* fd,
                                ngx_error* err)
{
    uint64_t nonce = 0;
    if (getrandom(&nonce, sizeof nonce, 0) != ssize_t(sizeof nonce))
        nonce = ngx::mod::monotonic_ns();
    char text[64];
    std::snprintf(text, sizeof text, "%s-%d-%016" PRIx64, prefix, int(getpid()), nonce);
    int opened = shm_open(text, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (opened < 0)
        return ngx::mod::fail(err, NGX_ERR_SYSTEM, "%s: shm_open(%s): %s", step, text, ngx::mod::errno_text(errno));
    if (ftruncate(opened, off_t(bytes)) != 0) {
        int e = errno;
        ::close(opened);
        shm_unlink(text);
        return ngx::mod::fail(err, NGX_ERR_SYSTEM, "%s: sizing %s to %zu bytes: %s", step, text, bytes,
                              ngx::mod::errno_text(e));
    }
    *name = text;
    *fd = opened;
    return NGX_OK;
}

// Maps `bytes` of the object `fd` shared, pre-faulted so that the first
// accesses take no page faults, and closes fd; errors start with `step`.
inline ngx_status map_object(const char* step, int fd, size_t bytes, void** base, ngx_error* err)
{
    void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    int e = errno;
    ::close(fd);
    if (mapped == MAP_FAILED)
        return ngx::mod::fail(err, NGX_ERR_NO_MEMORY, "%s: mapping %zu bytes of shared memory: %s", step, bytes,
                              ngx::mod::errno_text(e));
    *base = mapped;
    return NGX_OK;
}

// A mapping of the whole segment; the name is unlinked by whoever created it.
class Segment {
public:
    Segment() = default;
    Segment(const Segment&) = delete;
    Segment& operator=(const Segment&) = delete;
    ~Segment()
    {
        unlink_name();
        if (base_ != nullptr)
            munmap(base_, bytes_);
    }

    void* region(int index) const
    {
        return static_cast<unsigned char*>(base_) + page_bytes + size_t(index) * ring_region_bytes(ring_bytes());
    }
    size_t ring_bytes() const { return static_cast<const SegmentHeader*>(base_)->ring_bytes; }
    const std::string& name() const { return name_; }

    ngx_status create(size_t ring_bytes, ngx_error* err)
    {
        size_t bytes = segment_bytes(ring_bytes);
        int fd = -1;
        if (ngx_status s = create_object("connect", "/ngx-shm", bytes, &name_, &fd, err); s != NGX_OK)
            return s;
        owner_ = true;
        if (ngx_status s = map(fd, bytes, err); s != NGX_OK)
            return s;
        auto* header = static_cast<SegmentHeader*>(base_);
        header->ring_bytes = ring_bytes;
        header->magic = segment_magic;
        return NGX_OK;
    }

    ngx_status open(const std::string& name, ngx_error* err)
    {
        int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
        if (fd < 0)
            return ngx::mod::fail(err, NGX_ERR_SYSTEM,
                                  "connect: shm_open(%s): %s (do both peers see the same /dev/shm?)", name.c_str(),
                                  ngx::mod::errno_text(errno));
        struct stat st {};
        if (fstat(fd, &st) != 0 || size_t(st.st_size) < page_bytes) {
            ::close(fd);
            return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "connect: %s is not an ngx shm segment", name.c_str());
        }
        if (ngx_status s = map(fd, size_t(st.st_size), err); s != NGX_OK)
            return s;
        const auto* header = static_cast<const SegmentHeader*>(base_);
        if (header->magic != segment_magic || !valid_ring_bytes(header->ring_bytes) ||
            segment_bytes(header->ring_bytes) != bytes_)
            return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "connect: %s is not an ngx shm segment", name.c_str());
        return NGX_OK;
    }

    void unlink_name()
    {
        if (owner_)
            shm_unlink(name_.c_str());
        owner_ = false;
    }

private:
    ngx_status map(int fd, size_t bytes, ngx_error* err)
    {
        void* base = nullptr;
        if (ngx_status s = map_object("connect", fd, bytes, &base, err); s != NGX_OK)
            return s;
        base_ = base;
        bytes_ = bytes;
        return NGX_OK;
    }

    void* base_ = nullptr;
    size_t bytes_ = 0;
    std::string name_;
    bool owner_ = false;
};

struct Channel {
    Segment segment;
    PeerWatch peer;
    RingWriter out;
    RingReader in;
};

namespace detail {

// What each side tells the other: who it is, where it runs, and (creator only)
// the segment name.
struct Introduction {
    int pid = 0;
    unsigned long long pid_namespace = 0;
    std::string boot_id;
    std::string segment; // "-" from the side that opens
};

inline std::string read_boot_id()
{
    char text[64] = "";
    if (FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
        if (std::fscanf(f, "%63s", text) != 1)
            text[0] = '\0';
        std::fclose(f);
    }
    return text[0] != '\0' ? text : "unknown";
}

inline unsigned long long read_pid_namespace()
{
    struct stat st {};
    return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

inline Introduction introduce_self(const std::string& segment)
{
    return Introduction{int(getpid()), read_pid_namespace(), read_boot_id(), segment};
}

inline ngx_status exchange_introductions(const ngx_bootstrap* boot, const Introduction& mine, Introduction* theirs,
                                         ngx_error* err)
{
    char out[256];
    int n = std::snprintf(out, sizeof out, "ngx-shm1 %d %llu %s %s", mine.pid, mine.pid_namespace, mine.boot_id.c_str(),
                          mine.segment.c_str());
    size_t out_len = n < 0 ? 0 : std::min(size_t(n), sizeof out - 1);
    std::string blob;
    if (ngx_status s = ngx::mod::exchange_blob(boot, std::string_view(out, out_len), &blob, 255, err); s != NGX_OK)
        return s;
    const char* in = blob.c_str();
    char boot_id[64];
    char segment[128];
    if (std::sscanf(in, "ngx-shm1 %d %llu %63s %127s", &theirs->pid, &theirs->pid_namespace, boot_id, segment) != 4)
        return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "connect: the peer is not an ngx shm peer (it sent \"%.64s\")",
                              in);
    theirs->boot_id = boot_id;
    theirs->segment = segment;
    return NGX_OK;
}

inline ngx_status check_same_node(const Introduction& mine, const Introduction& theirs, ngx_error* err)
{
    if (mine.boot_id != theirs.boot_id)
        return ngx::mod::fail(err, NGX_ERR_UNSUPPORTED,
                              "connect: the peer runs on another node; shared memory needs both on one node");
    return NGX_OK;
}

// Second exchange: each side says whether it can go on (the opener: whether
// it mapped the segment), so neither waits for a peer that gave up.
inline ngx_status exchange_outcome(const ngx_bootstrap* boot, bool mapped, bool* peer_mapped, ngx_error* err)
{
    char mine = mapped ? 'y' : 'n';
    char theirs = 'n';
    size_t len = 0;
    if (ngx_status s = boot->exchange(boot->ctx, &mine, 1, &theirs, 1, &len, err); s != NGX_OK)
        return s;
    *peer_mapped = len == 1 && theirs == 'y';
    return NGX_OK;
}

inline void attach_rings(Channel* channel, int my_ring)
{
    size_t ring_bytes = channel->segment.ring_bytes();
    channel->out = RingWriter(channel->segment.region(my_ring), ring_bytes);
    channel->in = RingReader(channel->segment.region(1 - my_ring), ring_bytes);
}

inline void watch_peer(Channel* channel, const Introduction& mine, const Introduction& theirs)
{
    if (mine.pid_namespace != 0 && mine.pid_namespace == theirs.pid_namespace)
        channel->peer.watch(pid_t(theirs.pid));
}

inline ngx_status connect_as_creator(const ngx_bootstrap* boot, size_t ring_bytes, Channel* channel, ngx_error* err)
{
    if (ngx_status s = channel->segment.create(ring_bytes, err); s != NGX_OK)
        return s;
    Introduction mine = introduce_self(channel->segment.name());
    Introduction theirs;
    if (ngx_status s = exchange_introductions(boot, mine, &theirs, err); s != NGX_OK)
        return s;
    ngx_status checked = check_same_node(mine, theirs, err);
    bool peer_mapped = false;
    ngx_error outcome_err{};
    ngx_status outcome =
        exchange_outcome(boot, checked == NGX_OK, &peer_mapped, checked == NGX_OK ? err : &outcome_err);
    channel->segment.unlink_name(); // the peer has mapped it or never will
    if (checked != NGX_OK)
        return checked;
    if (outcome != NGX_OK)
        return outcome;
    if (!peer_mapped)
        return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "connect: the peer could not map the shared memory segment");
    attach_rings(channel, 0);
    watch_peer(channel, mine, theirs);
    return NGX_OK;
}

inline ngx_status connect_as_opener(const ngx_bootstrap* boot, Channel* channel, ngx_error* err)
{
    Introduction mine = introduce_self("-");
    Introduction theirs;
    if (ngx_status s = exchange_introductions(boot, mine, &theirs, err); s != NGX_OK)
        return s;
    ngx_status opened = check_same_node(mine, theirs, err);
    if (opened == NGX_OK)
        opened = channel->segment.open(theirs.segment, err);
    bool creator_ok = false;
    ngx_error outcome_err{};
    ngx_status outcome = exchange_outcome(boot, opened == NGX_OK, &creator_ok, opened == NGX_OK ? err : &outcome_err);
    if (opened != NGX_OK)
        return opened;
    if (outcome != NGX_OK)
        return outcome;
    if (!creator_ok)
        return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "connect: the peer gave up on the shared memory segment");
    attach_rings(channel, 1);
    watch_peer(channel, mine, theirs);
    return NGX_OK;
}

} // namespace detail

// Connects `channel` to the bootstrap's peer; the lower rank creates the
// segment with rings of `ring_bytes` (the creator's size wins).
inline ngx_status connect_channel(const ngx_bootstrap* boot, size_t ring_bytes, Channel* channel, ngx_error* err)
{
    return boot->rank < boot->peer ? detail::connect_as_creator(boot, ring_bytes, channel, err)
                                   : detail::connect_as_opener(boot, channel, err);
}

} // namespace ngx::shm

#endif
