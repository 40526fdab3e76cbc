// libngx-idle.so: makes an MPI rank that waits for the network sleep
// instead of polling, for emulated clusters whose ranks outnumber the CPUs
// (tests/coll/mpi-cluster.sh; docs/collectives.md, "On an emulated
// cluster"). Preloaded into the ranks (mpirun -x LD_PRELOAD=...), it
// replaces sched_yield(), which Open MPI's progress loop calls when a pass
// found nothing to do and mpi_yield_when_idle is set (opal_progress), with a
// wait in poll() for data on any of the process's sockets, at most
// NGX_IDLE_WAIT_US microseconds (default 1000; 0 keeps sched_yield). A rank
// then sleeps until a message's bytes arrive, or the time is up (for what
// no socket announces: a send waiting for room in its socket's buffer).
// The sockets are those of /proc/self/fd, listed again when a wait timed
// out and the list is 20 ms old (the tcp BTL connects on first use), or at
// once when one of them was closed, hung up or reached its end (a socket
// whose peer closed it would wake every wait, and a closed descriptor
// would end every wait at once); the list leaves out such sockets.
// Open MPI's progress loop yields after every pass, also after the pass
// whose readv() or writev() completed the request the rank waits for (the
// tcp BTL's events do not count as progress there): so readv and writev are
// wrapped too, and a yield that follows bytes moved by the same thread
// returns at once, letting the rank see its request complete.
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { max_fds = 1024, rescan_ms = 20 };

static long wait_us = 1000;
static struct pollfd fds[max_fds];
static nfds_t nfds;
static struct timespec scanned;
static int timed_out = 1;
static __thread int moved; // this thread's readv or writev moved bytes since its last yield

typedef ssize_t (*vector_io)(int, const struct iovec*, int);

// The C library's `name` (readv or writev), called; a transfer of bytes
// marks this thread as having moved some.
static ssize_t pass_on(vector_io* next, const char* name, int fd, const struct iovec* iov, int count)
{
    if (!*next)
        *next = (vector_io)dlsym(RTLD_NEXT, name);
    const ssize_t n = (*next)(fd, iov, count);
    if (n > 0)
        moved = 1;
    return n;
}

ssize_t readv(int fd, const struct iovec* iov, int count)
{
    static vector_io next;
    return pass_on(&next, "readv", fd, iov, count);
}

ssize_t writev(int fd, const struct iovec* iov, int count)
{
    static vector_io next;
    return pass_on(&next, "writev", fd, iov, count);
}

__attribute__((constructor)) static void idle_init(void)
{
    const char* s = getenv("NGX_IDLE_WAIT_US");
    if (s && *s) {
        char* end = NULL;
        long v = strtol(s, &end, 10);
        if (*end == '\0' && v >= 0 && v <= 1000000)
            wait_us = v;
    }
}

static void list_sockets(void)
{
    DIR* d = opendir("/proc/self/fd");
    if (!d)
        return;
    const int own = dirfd(d);
    struct dirent* e;
    nfds = 0;
    while ((e = readdir(d)) != NULL && nfds < max_fds) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        const int fd = atoi(e->d_name);
        struct stat st;
        if (fd == own || fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
            continue;
        fds[nfds].fd = fd;
        fds[nfds].events = POLLIN | POLLRDHUP;
        fds[nfds].revents = 0;
        ++nfds;
    }
    closedir(d);
    // Leave out the sockets that would end every wait: closed by the peer.
    if (poll(fds, nfds, 0) > 0)
        for (nfds_t i = 0; i < nfds; ++i)
            if (fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
                fds[i].fd = -1; // poll() skips a negative descriptor
}

int sched_yield(void)
{
    if (wait_us == 0)
        return (int)syscall(SYS_sched_yield);
    if (moved) {
        moved = 0;
        return 0;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const long age_ms = (now.tv_sec - scanned.tv_sec) * 1000 + (now.tv_nsec - scanned.tv_nsec) / 1000000;
    if (timed_out && age_ms >= rescan_ms) {
        list_sockets();
        scanned = now;
    }
    const struct timespec limit = {wait_us / 1000000, (wait_us % 1000000) * 1000};
    const int ready = ppoll(fds, nfds, &limit, NULL);
    timed_out = ready == 0;
    for (nfds_t i = 0; ready > 0 && i < nfds; ++i)
        if (fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) {
            timed_out = 1; // list the sockets again now
            scanned.tv_sec -= 1;
            break;
        }
    return 0;
}
