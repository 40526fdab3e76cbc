// Connection setup of the tcp module. It goes through the bootstrap, never
// over the measured link: the lower rank listens and hands "host:port" to
// its peer, which dials that port of the peer's own address (overview in
// tcp.cpp). The listener and the connect attempt are also what send to self
// (tcp_self.cpp) builds its loopback connection from.
#ifndef NGX_TCP_CONNECT_HPP
#define NGX_TCP_CONNECT_HPP

#include "tcp_context.hpp"
#include "tcp_socket.hpp"

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <netdb.h>

#include <string>

namespace ngx::tcp::detail {

ngx_status open_listener(const Context& c, const std::string& host, const std::string& port, Socket* out,
                         ngx_error* err);

// What the listening rank tells its peer: the bound address, or only the port
// when it listens on every address (the peer then uses its peer_address).
ngx_status describe_listener(int fd, std::string* out, ngx_error* err);

// One non-blocking connect attempt, completed with poll() under the deadline.
// Returns the errno of a failed attempt in *attempt_errno with NGX_OK status
// so that the caller can decide to retry.
ngx_status try_connect(Context* c, const addrinfo* ai, const ngx::mod::Deadline& deadline, Socket* out,
                       int* attempt_errno, ngx_error* err);

// The lower rank: listens, sends where to the peer, accepts its connection into c->fd.
ngx_status connect_as_listener(Context* c, const ngx_bootstrap* boot, ngx_error* err);

// The higher rank: dials the port the peer sent, on the peer's own address, into c->fd.
ngx_status connect_as_dialer(Context* c, const ngx_bootstrap* boot, ngx_error* err);

} // namespace ngx::tcp::detail

#endif
