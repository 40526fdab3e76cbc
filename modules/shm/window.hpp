// One-sided access (ABI 1.7, NGX_CAP_ONE_SIDED) for the `shm` module: the
// peer's exposed buffer mapped into this process, so that put() is one
// memcpy into it and get() one memcpy out of it. Header-only.
//
// Buffers come from Mappings::alloc(), page-aligned private anonymous
// mappings. expose() turns the one holding the window into a shared one in
// place: it creates a POSIX shared-memory object of the mapping's size,
// copies the mapping's bytes into it and maps it over the same addresses
// (MAP_FIXED), so the pattern's pointers stay valid and its writes and the
// peer's land in the same pages. Each side sends the peer the object's
// name, the window's offset in it and its length through the bootstrap;
// each maps the other's object, says whether it could (a second exchange),
// and unlinks its own name, so nothing is left in /dev/shm.
//
//     ngx::shm::Mappings buffers;           // alloc() / free()
//     ngx::shm::PeerWindow window;
//     window.expose(boot, buf, len, buffers, err);
//     window.put(local, offset, len, err);  // memcpy into the peer's window
//     window.flush();                       // the fence that publishes it
#ifndef NGX_SHM_WINDOW_HPP
#define NGX_SHM_WINDOW_HPP

#include "channel.hpp"

#include <atomic>
#include <vector>

namespace ngx::shm {

inline size_t whole_pages(size_t bytes)
{
    return (std::max<size_t>(bytes, 1) + page_bytes - 1) / page_bytes * page_bytes;
}

// The buffers of alloc(): one private anonymous mapping each, recorded with
// its length so that free() can unmap it and expose() share it.
class Mappings {
public:
    struct Mapping {
        void* base = nullptr;
        size_t bytes = 0;
    };

    ngx_status alloc(size_t len, void** buf, ngx_error* err)
    {
        size_t bytes = whole_pages(len);
        void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED)
            return ngx::mod::fail(err, NGX_ERR_NO_MEMORY, "alloc: mapping %zu bytes: %s", bytes,
                                  ngx::mod::errno_text(errno));
        mappings_.push_back({base, bytes});
        *buf = base;
        return NGX_OK;
    }

    void free(void* buf)
    {
        for (size_t i = 0; i < mappings_.size(); ++i)
            if (mappings_[i].base == buf) {
                munmap(buf, mappings_[i].bytes);
                mappings_.erase(mappings_.begin() + std::ptrdiff_t(i));
                return;
            }
    }

    // The mapping that holds [buf, buf + len), or nullptr.
    const Mapping* holding(const void* buf, size_t len) const
    {
        auto* p = static_cast<const unsigned char*>(buf);
        for (const Mapping& m : mappings_) {
            auto* base = static_cast<const unsigned char*>(m.base);
            if (p >= base && len <= m.bytes && size_t(p - base) <= m.bytes - len)
                return &m;
        }
        return nullptr;
    }

private:
    std::vector<Mapping> mappings_;
};

class PeerWindow {
public:
    PeerWindow() = default;
    PeerWindow(const PeerWindow&) = delete;
    PeerWindow& operator=(const PeerWindow&) = delete;
    ~PeerWindow()
    {
        if (peer_base_ != nullptr)
            munmap(peer_base_, peer_bytes_);
    }

    // Both peers, at the same step: `buf` (len bytes of a buffer from
    // `buffers`) becomes shared and the peer's window is mapped here.
    ngx_status expose(const ngx_bootstrap* boot, void* buf, size_t len, const Mappings& buffers, ngx_error* err)
    {
        if (peer_base_ != nullptr)
            return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "expose: a window is exposed already (one per run)");
        std::string name;
        size_t offset = 0;
        ngx_status shared = share(buf, len, buffers, &name, &offset, err);
        std::string theirs;
        char mine[160];
        std::snprintf(mine, sizeof mine, "ngx-shmw1 %s %zu %zu", shared == NGX_OK ? name.c_str() : "-", offset, len);
        ngx_status s = ngx::mod::exchange_blob(boot, mine, &theirs, sizeof mine, err);
        ngx_error ignored{};
        ngx_status mapped = shared != NGX_OK ? shared : s != NGX_OK ? s : map_peer(theirs, err);
        bool peer_mapped = false;
        ngx_status outcome = s == NGX_OK ? detail::exchange_outcome(boot, mapped == NGX_OK, &peer_mapped,
                                                                    mapped == NGX_OK ? err : &ignored)
                                         : s;
        if (!name.empty())
            shm_unlink(name.c_str()); // the peer has mapped it or never will
        if (mapped != NGX_OK)
            return mapped;
        if (outcome != NGX_OK)
            return outcome;
        if (!peer_mapped)
            return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "expose: the peer could not map this side's window");
        return NGX_OK;
    }

    // One memcpy into the peer's window: done when it returns (the bytes
    // are in the shared pages; flush() orders them before what follows).
    ngx_status put(const void* local, size_t offset, size_t len, ngx_error* err)
    {
        if (ngx_status s = check(offset, len, "put", err); s != NGX_OK) [[unlikely]]
            return s;
        std::memcpy(peer_ + offset, local, len);
        return NGX_OK;
    }

    // One memcpy out of the peer's window.
    ngx_status get(void* local, size_t offset, size_t len, ngx_error* err)
    {
        if (ngx_status s = check(offset, len, "get", err); s != NGX_OK) [[unlikely]]
            return s;
        std::memcpy(local, peer_ + offset, len);
        return NGX_OK;
    }

    // Ordering: a sequentially consistent fence (x86-64: mfence; arm64:
    // dmb ish) after the copies. Every store of the puts before it, the
    // non-temporal stores a large memcpy may use included (mfence orders
    // them; a release store alone would not), is visible to the peer before
    // any store this process makes after it, such as the header word of the
    // ring message that tells the peer the window is done; the peer's
    // acquire load of that word then sees the window's bytes. The gets'
    // loads are complete before anything after the fence. The peer takes no
    // part, so on its side (nothing started) this is the same cheap fence.
    static void flush() { std::atomic_thread_fence(std::memory_order_seq_cst); }

private:
    // Makes the mapping holding `buf` shared in place: its name and the
    // window's offset in it.
    static ngx_status share(void* buf, size_t len, const Mappings& buffers, std::string* name, size_t* offset,
                            ngx_error* err)
    {
        const Mappings::Mapping* m = buffers.holding(buf, len);
        if (m == nullptr)
            return ngx::mod::fail(err, NGX_ERR_INVALID_OPTION,
                                  "expose: the window (%zu bytes) is not a buffer from this module's alloc()", len);
        int fd = -1;
        if (ngx_status s = create_object("expose", "/ngx-shmw", m->bytes, name, &fd, err); s != NGX_OK)
            return s;
        ngx_status s = remap_shared(*m, fd, err);
        ::close(fd);
        if (s != NGX_OK) {
            shm_unlink(name->c_str());
            name->clear();
            return s;
        }
        *offset = size_t(static_cast<unsigned char*>(buf) - static_cast<unsigned char*>(m->base));
        return NGX_OK;
    }

    // The object gets the mapping's bytes, then replaces it at the same address.
    static ngx_status remap_shared(const Mappings::Mapping& m, int fd, ngx_error* err)
    {
        void* staging = mmap(nullptr, m.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (staging == MAP_FAILED)
            return ngx::mod::fail(err, NGX_ERR_NO_MEMORY, "expose: mapping %zu bytes of shared memory: %s", m.bytes,
                                  ngx::mod::errno_text(errno));
        std::memcpy(staging, m.base, m.bytes);
        munmap(staging, m.bytes);
        void* fixed = mmap(m.base, m.bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd, 0);
        if (fixed == MAP_FAILED) // the old mapping stays as it was
            return ngx::mod::fail(err, NGX_ERR_NO_MEMORY, "expose: sharing the window's %zu bytes in place: %s",
                                  m.bytes, ngx::mod::errno_text(errno));
        return NGX_OK;
    }

    // Maps the peer's object from its message "ngx-shmw1 NAME OFFSET LEN".
    ngx_status map_peer(const std::string& message, ngx_error* err)
    {
        char name[128];
        size_t offset = 0, len = 0;
        if (std::sscanf(message.c_str(), "ngx-shmw1 %127s %zu %zu", name, &offset, &len) != 3)
            return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "expose: the peer sent \"%.64s\", not a shm window",
                                  message.c_str());
        if (std::string_view(name) == "-")
            return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "expose: the peer could not share its window");
        int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
        if (fd < 0)
            return ngx::mod::fail(err, NGX_ERR_SYSTEM, "expose: shm_open(%s): %s", name, ngx::mod::errno_text(errno));
        struct stat st {};
        if (fstat(fd, &st) != 0 || size_t(st.st_size) < offset || size_t(st.st_size) - offset < len) {
            ::close(fd);
            return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "expose: the peer's window %s is smaller than it says", name);
        }
        size_t bytes = size_t(st.st_size);
        void* base = nullptr;
        if (ngx_status s = map_object("expose", fd, bytes, &base, err); s != NGX_OK)
            return s;
        peer_base_ = base;
        peer_bytes_ = bytes;
        peer_ = static_cast<unsigned char*>(base) + offset;
        peer_len_ = len;
        return NGX_OK;
    }

    ngx_status check(size_t offset, size_t len, const char* op, ngx_error* err) const
    {
        return ngx::mod::check_window_range(op, offset, len, peer_ == nullptr ? 0 : peer_len_, err);
    }

    void* peer_base_ = nullptr;
    size_t peer_bytes_ = 0;
    unsigned char* peer_ = nullptr;
    size_t peer_len_ = 0;
};

} // namespace ngx::shm

#endif
