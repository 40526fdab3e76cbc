// Example out-of-tree ngx module "unix": UNIX-domain stream sockets between
// two processes on one node. It is built outside ngx's tree, against the
// installed headers found through pkg-config (ngx-module.pc), and loaded
// through NGX_MODULE_PATH: the way a vendor would ship a module.
//
// It shows the whole contract: one exported entry symbol, prefixed options,
// connection data through the bootstrap (never the measured link), a
// deadline on every blocking call, and errors as status codes plus a message.
#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

using ngx::mod::fail;

struct Context {
    char name[100] = "";
    int fd = -1;
    uint64_t timeout_ns = 0;
    const volatile int* cancel = nullptr;
};

// Each option is a typed row, declared once; the table lists them for the
// core (--help shows the type and range) and for reading them back.
constexpr auto unix_name =
    ngx::opt::row::text("unix-name", "", "abstract socket name to listen on (default: unique per run)");
const ngx::mod::OptionTable options("unix", {unix_name});

ngx_status unix_init(const ngx_init_args* args, void** ctx, ngx_error* err)
{
    ngx::mod::ModuleOptions read(args, options);
    std::string name = read(unix_name);
    if (name.size() >= sizeof Context::name)
        read.reject(unix_name, "longer than " + std::to_string(sizeof Context::name - 1) + " characters");
    if (ngx_status s = read.status(err); s != NGX_OK)
        return s;
    auto* context = new (std::nothrow) Context;
    if (context == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "out of memory");
    if (!name.empty())
        std::strcpy(context->name, name.c_str());
    else
        std::snprintf(context->name, sizeof context->name, "ngx-unix-%d-%d", getpid(), std::rand());
    context->timeout_ns = args->timeout_ns;
    context->cancel = args->cancel;
    *ctx = context;
    return NGX_OK;
}

sockaddr_un abstract_address(const char* name)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    size_t length = std::min(std::strlen(name), sizeof address.sun_path - 2);
    std::memcpy(address.sun_path + 1, name, length); // a leading NUL: the abstract namespace
    return address;
}

ngx_status listen_and_accept(Context* c, const ngx_bootstrap* boot, ngx_error* err)
{
    const char* name = c->name;
    sockaddr_un address = abstract_address(name);
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(listener, 1) != 0)
        return fail(err, NGX_ERR_SYSTEM, "listen on @%s: %s", name, ngx::mod::errno_text(errno));
    std::string ignored;
    ngx_status status = ngx::mod::exchange_blob(boot, std::string_view(name, std::strlen(name) + 1), &ignored, 8, err);
    ngx::mod::Deadline deadline(c->timeout_ns);
    if (status == NGX_OK)
        status = ngx::mod::wait_fd(listener, POLLIN, deadline, c->cancel, "accept", err);
    if (status == NGX_OK && (c->fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC)) < 0)
        status = fail(err, NGX_ERR_SYSTEM, "accept: %s", ngx::mod::errno_text(errno));
    close(listener);
    return status;
}

ngx_status connect_to_peer(Context* c, const ngx_bootstrap* boot, ngx_error* err)
{
    std::string blob;
    if (ngx_status status = ngx::mod::exchange_blob(boot, std::string_view("", 1), &blob, 107, err); status != NGX_OK)
        return status;
    const char* name = blob.c_str(); // the peer sent its name with the NUL; c_str() adds one if not
    sockaddr_un address = abstract_address(name);
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0 || connect(c->fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
        return fail(err, NGX_ERR_SYSTEM, "connect to @%s: %s", name, ngx::mod::errno_text(errno));
    return NGX_OK;
}

ngx_status unix_connect(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    return boot->rank < boot->peer ? listen_and_accept(c, boot, err) : connect_to_peer(c, boot, err);
}

ngx_status unix_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    const char* data = static_cast<const char*>(buf);
    ngx::mod::Deadline deadline(c->timeout_ns);
    while (len > 0) {
        ssize_t sent = send(c->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent > 0) {
            data += sent;
            len -= size_t(sent);
        } else if (sent < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (ngx_status s = ngx::mod::wait_fd(c->fd, POLLOUT, deadline, c->cancel, "send", err); s != NGX_OK)
                return s;
        } else {
            return fail(err, NGX_ERR_PEER_LOST, "send: the peer is gone (%s)", ngx::mod::errno_text(errno));
        }
    }
    return NGX_OK;
}

ngx_status unix_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    char* data = static_cast<char*>(buf);
    ngx::mod::Deadline deadline(c->timeout_ns);
    while (len > 0) {
        ssize_t got = recv(c->fd, data, len, MSG_DONTWAIT);
        if (got > 0) {
            data += got;
            len -= size_t(got);
        } else if (got == 0) {
            return fail(err, NGX_ERR_PEER_LOST, "recv: the peer closed the connection");
        } else if (errno == EAGAIN || errno == EINTR) {
            if (ngx_status s = ngx::mod::wait_fd(c->fd, POLLIN, deadline, c->cancel, "recv", err); s != NGX_OK)
                return s;
        } else {
            return fail(err, NGX_ERR_PEER_LOST, "recv: %s", ngx::mod::errno_text(errno));
        }
    }
    return NGX_OK;
}

void unix_finalize(void* ctx)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->fd >= 0)
        close(c->fd);
    delete c;
}

const ngx_module_ops ops = {
    sizeof(ngx_module_ops),
    unix_init,
    unix_connect,
    nullptr,
    nullptr,
    unix_send,
    unix_recv,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    unix_finalize,
    nullptr, // resync: reliable, nothing is ever lost
};

const ngx_module descriptor = {
    NGX_MODULE_ABI_MAJOR,
    NGX_MODULE_ABI_MINOR,
    sizeof(ngx_module),
    "unix",
    "UNIX-domain stream sockets (the out-of-tree example module)",
    "1.0",
    NGX_CAP_RELIABLE | NGX_CAP_SAME_NODE_ONLY,
    0,
    options.specs(),
    options.size(),
    &ops,
};

} // namespace

NGX_MODULE_EXPORT(descriptor)
