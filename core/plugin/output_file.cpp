// Writing a file the user named (see ngx/output_file.hpp).
#include <ngx/output_file.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ngx {
namespace {

// What is at the target's name now, and so how it is written.
enum class Target {
    absent,  // created through a temporary file
    regular, // replaced through a temporary file, keeping its mode
    in_place // a device, FIFO or socket: written where it is
};

// /dev/stdout, /dev/fd/N, /proc/self/fd/N: links to descriptors the caller
// opened (a shell's `> file`); nobody but root can plant one there.
bool is_system_path(const std::string& path)
{
    return path.starts_with("/dev/") || path.starts_with("/proc/");
}

Status refused(const std::string& path, const std::string& why)
{
    return Status::usage(path + ": " + why);
}

// The target's kind; `existing` gets a regular file's stat.
Result<Target> target_of(const std::string& path, struct stat* existing)
{
    struct stat here {};
    if (lstat(path.c_str(), &here) != 0) {
        if (errno == ENOENT)
            return Target::absent;
        return refused(path, std::string("cannot write there: ") + std::strerror(errno));
    }
    if (S_ISREG(here.st_mode)) {
        *existing = here;
        return Target::regular;
    }
    if (S_ISDIR(here.st_mode))
        return refused(path, "is a directory");
    if (!S_ISLNK(here.st_mode))
        return Target::in_place;
    struct stat end {};
    const bool resolves = stat(path.c_str(), &end) == 0;
    if (resolves && !S_ISREG(end.st_mode) && !S_ISDIR(end.st_mode))
        return Target::in_place; // /dev/stdout on a pipe or a terminal
    if (resolves && S_ISREG(end.st_mode) && is_system_path(path))
        return Target::in_place; // /dev/stdout redirected to a file
    return refused(path, resolves
                             ? "is a symbolic link to a directory"
                             : "is a symbolic link that cannot be followed (a loop, or through a missing directory)");
}

// A symbolic link the user named stands for the file it ends at, as with a
// shell's `>`: that file (new, or a regular one) is replaced through a
// temporary file beside it, and the link stays. A link to anything else is
// left as named (target_of decides). At most 40 links are followed (ELOOP).
std::string followed(const std::string& path)
{
    if (is_system_path(path))
        return path;
    std::string at = path;
    for (int hops = 0; hops < 40; ++hops) {
        struct stat here {};
        if (lstat(at.c_str(), &here) != 0)
            return hops > 0 && errno == ENOENT ? at : path;
        if (!S_ISLNK(here.st_mode))
            return hops > 0 && S_ISREG(here.st_mode) ? at : path;
        std::string link(size_t(here.st_size > 0 ? here.st_size : 4096) + 1, '\0');
        ssize_t length = readlink(at.c_str(), link.data(), link.size());
        if (length <= 0 || size_t(length) >= link.size())
            return path;
        link.resize(size_t(length));
        const size_t slash = at.rfind('/');
        at = link.front() == '/' || slash == std::string::npos ? link : at.substr(0, slash + 1) + link;
    }
    return path;
}

// The mode a new file gets: 0666 less the umask, read from /proc (umask(2)
// would change it, for every thread, while it reads it).
mode_t new_file_mode()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.starts_with("Umask:"))
            return mode_t(0666 & ~std::strtoul(line.c_str() + 6, nullptr, 8));
    return 0644;
}

Status write_all_to(int fd, const std::string& text, const std::string& path)
{
    for (size_t done = 0; done < text.size();) {
        ssize_t wrote = write(fd, text.data() + done, text.size() - done);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote <= 0)
            return Status::runtime("cannot write " + path + ": " + std::strerror(wrote < 0 ? errno : ENOSPC));
        done += size_t(wrote);
    }
    return Status::ok();
}

Status write_in_place(const std::string& path, const std::string& text)
{
    struct stat end {};
    const bool regular = stat(path.c_str(), &end) == 0 && S_ISREG(end.st_mode);
    int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | (regular ? O_TRUNC : 0));
    if (fd < 0)
        return Status::runtime("cannot write " + path + ": " + std::strerror(errno));
    Status written = write_all_to(fd, text, path);
    if (close(fd) != 0 && written)
        written = Status::runtime("cannot write " + path + ": " + std::strerror(errno));
    return written;
}

// A temporary file nobody can plant beforehand (mkostemp: O_EXCL, a random
// suffix) beside the target, renamed over it once complete; removed when
// anything fails, so a full disk leaves nothing.
Status write_through_temporary(const std::string& path, const std::string& text, mode_t mode)
{
    std::string temporary = path + ".XXXXXX";
    int fd = mkostemp(temporary.data(), O_CLOEXEC);
    if (fd < 0)
        return Status::runtime("cannot write " + path +
                               ": creating a temporary file beside it: " + std::strerror(errno));
    Status written = write_all_to(fd, text, path);
    if (written && fchmod(fd, mode) != 0)
        written = Status::runtime("cannot write " + path + ": fchmod: " + std::strerror(errno));
    if (close(fd) != 0 && written)
        written = Status::runtime("cannot write " + path + ": " + std::strerror(errno));
    if (written && std::rename(temporary.c_str(), path.c_str()) != 0)
        written =
            Status::runtime("cannot write " + path + ": renaming " + temporary + " over it: " + std::strerror(errno));
    if (!written)
        unlink(temporary.c_str());
    return written;
}

} // namespace

Status write_atomically(const std::string& named, const std::string& text)
{
    const std::string path = followed(named);
    struct stat existing {};
    NGX_ASSIGN_OR_RETURN(Target target, target_of(path, &existing));
    if (target == Target::in_place)
        return write_in_place(path, text);
    return write_through_temporary(path, text, target == Target::regular ? existing.st_mode & 07777 : new_file_mode());
}

// An existing file is opened for appending; otherwise a probe file of this
// process's own is created beside it and removed. The target itself is
// never created and removed: under mpirun every rank checks the same -o at
// once, and on a shared file system (9p in the SoftRoCE guest) one rank's
// removal made another's fopen fail with ENOENT.
Status check_writable(const std::string& named)
{
    const std::string path = followed(named);
    const auto cannot = [&] { return Status::usage("-o " + path + ": cannot write there: " + std::strerror(errno)); };
    struct stat existing {};
    NGX_ASSIGN_OR_RETURN(Target target, target_of(path, &existing));
    if (target == Target::in_place) // opening a FIFO could block until a reader comes
        return access(path.c_str(), W_OK) == 0 ? Status::ok() : cannot();
    if (target == Target::regular) {
        const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            return cannot();
        close(fd);
        return Status::ok();
    }
    const std::string probe = path + ".ngx-check." + std::to_string(getpid());
    const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return cannot();
    close(fd);
    unlink(probe.c_str());
    return Status::ok();
}

} // namespace ngx
