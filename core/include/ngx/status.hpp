// Errors as values inside the core: a Status says what failed and which exit
// code it deserves; Result<T> carries either a value or a Status.
//
//     Result<std::vector<size_t>> sizes = parse_sizes("1-64Ki", rule);
//     if (!sizes) return sizes.status();
//     use(*sizes);
#ifndef NGX_STATUS_HPP
#define NGX_STATUS_HPP

#include <ngx/module.h>

#include <string>
#include <utility>
#include <variant>

namespace ngx {

// What kind of failure: decides the exit code (see exit_code()).
enum class ErrorKind {
    none,
    usage,       // the user asked for something invalid: exit 2
    runtime,     // peer lost, deadline passed, module failure: exit 1
    interrupted, // Ctrl-C or SIGTERM: exit 130
};

class Status {
public:
    Status() = default;
    static Status ok() { return {}; }
    static Status usage(std::string message) { return {ErrorKind::usage, std::move(message)}; }
    static Status runtime(std::string message) { return {ErrorKind::runtime, std::move(message)}; }
    static Status interrupted(std::string message = "interrupted")
    {
        return {ErrorKind::interrupted, std::move(message)};
    }

    // Maps a module's status code: option errors are usage errors, the rest runtime.
    static Status from_module(ngx_status code, std::string message);

    bool is_ok() const { return kind_ == ErrorKind::none; }
    explicit operator bool() const { return is_ok(); }
    ErrorKind kind() const { return kind_; }
    const std::string& message() const { return message_; }

    // Prefixes the message with context: "connect: " + "timeout ..." .
    Status with_context(const std::string& context) const;

private:
    Status(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}
    ErrorKind kind_ = ErrorKind::none;
    std::string message_;
};

int exit_code(const Status& status);

template <typename T>
class Result {
public:
    Result(T value) : state_(std::move(value)) {}
    Result(Status status) : state_(std::move(status)) {}

    bool has_value() const { return std::holds_alternative<T>(state_); }
    explicit operator bool() const { return has_value(); }
    T& operator*() { return std::get<T>(state_); }
    const T& operator*() const { return std::get<T>(state_); }
    T* operator->() { return &std::get<T>(state_); }
    const T* operator->() const { return &std::get<T>(state_); }
    const Status& status() const
    {
        static const Status ok_status;
        return has_value() ? ok_status : std::get<Status>(state_);
    }

private:
    std::variant<T, Status> state_;
};

} // namespace ngx

// Returns early from the calling function when `expr` (a Status) failed.
#define NGX_TRY(expr)                                                                                                  \
    do {                                                                                                               \
        ::ngx::Status ngx_try_status = (expr);                                                                         \
        if (!ngx_try_status.is_ok())                                                                                   \
            return ngx_try_status;                                                                                     \
    } while (0)

#endif
