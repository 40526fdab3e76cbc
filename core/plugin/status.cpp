// Status construction and the mapping from failures to exit codes.
#include <ngx/status.hpp>

namespace ngx {

Status Status::from_module(ngx_status code, std::string message)
{
    switch (code) {
    case NGX_OK:
        return ok();
    case NGX_ERR_INVALID_OPTION:
        return usage(std::move(message));
    case NGX_ERR_INTERRUPTED:
        return interrupted(std::move(message));
    default:
        return runtime(std::move(message));
    }
}

Status Status::with_context(const std::string& context) const
{
    if (is_ok())
        return *this;
    return Status(kind_, context + ": " + message_);
}

int exit_code(const Status& status)
{
    switch (status.kind()) {
    case ErrorKind::none:
        return 0;
    case ErrorKind::usage:
        return 2;
    case ErrorKind::interrupted:
        return 130;
    case ErrorKind::runtime:
        break;
    }
    return 1;
}

} // namespace ngx
