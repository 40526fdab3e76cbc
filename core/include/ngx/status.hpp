// Errors as values inside C++: a Status says what failed (a message) and
// which exit code it deserves (its kind); Result<T> carries either a value or
// a Status. This is the one error type of the core, the patterns and the models;
// the C ABI's ngx_status codes appear only where a plugin is called
// (Status::from_module turns one into a Status).
//
//     Status check(const Plan& plan)
//     {
//         NGX_TRY(validate(plan.options));                  // returns a failed Status
//         NGX_ASSIGN_OR_RETURN(auto sizes, parse_sizes(plan.sizes_text, rule));
//         use(sizes);                                       // a std::vector<size_t>
//         return Status::ok();
//     }
//
// Header-only, so that code of pure maths (models/base) uses it without
// calling into the plugin library.
#ifndef NGX_STATUS_HPP
#define NGX_STATUS_HPP

#include <ngx/module.h>

#include <cassert>
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

// Why a computation on data failed, for callers that branch on it (a fit that
// had too few points is reported differently from one that had bad input).
// Most failures need no reason beyond their message: `unspecified`.
enum class Reason {
    unspecified,
    invalid_input,  // mismatched lengths, non-finite values, bad options
    too_few_points, // not enough data for the requested quantity
    degenerate,     // data admit no unique solution (e.g. all x equal)
    not_converged,  // an iterative search did not meet its tolerance
};

class [[nodiscard]] Status {
public:
    Status() = default;
    static Status ok() { return {}; }
    static Status usage(std::string message, Reason reason = Reason::unspecified)
    {
        return {ErrorKind::usage, reason, std::move(message)};
    }
    static Status runtime(std::string message, Reason reason = Reason::unspecified)
    {
        return {ErrorKind::runtime, reason, std::move(message)};
    }
    static Status interrupted(std::string message = "interrupted")
    {
        return {ErrorKind::interrupted, Reason::unspecified, std::move(message)};
    }

    // Maps a module's status code: option errors are usage errors, the rest runtime.
    static Status from_module(ngx_status code, std::string message)
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

    bool is_ok() const { return kind_ == ErrorKind::none; }
    explicit operator bool() const { return is_ok(); }
    ErrorKind kind() const { return kind_; }
    Reason reason() const { return reason_; }
    const std::string& message() const { return message_; }

    // Prefixes the message with context: "connect: " + "timeout ..." .
    Status with_context(const std::string& context) const
    {
        if (is_ok())
            return *this;
        return Status(kind_, reason_, context + ": " + message_);
    }

private:
    Status(ErrorKind kind, Reason reason, std::string message)
            : kind_(kind), reason_(reason), message_(std::move(message))
    {
    }
    ErrorKind kind_ = ErrorKind::none;
    Reason reason_ = Reason::unspecified;
    std::string message_;
};

inline int exit_code(const Status& status)
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

// A value or the Status saying why there is none. A Result is never built
// from an ok Status, and reading the value of a failed one is a bug (both
// asserted).
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : state_(std::move(value)) {}
    Result(Status status) : state_(std::move(status)) { assert(!std::get<Status>(state_).is_ok()); }

    bool has_value() const { return std::holds_alternative<T>(state_); }
    explicit operator bool() const { return has_value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(value()); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& value() &
    {
        assert(has_value());
        return std::get<T>(state_);
    }
    const T& value() const&
    {
        assert(has_value());
        return std::get<T>(state_);
    }
    T&& value() && { return std::move(value()); }
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

// Evaluates `...` (a Result<T>); when it failed, returns its Status from the
// calling function (which returns a Status or a Result<U>), else moves the
// value into `lhs`, a declaration (`auto sizes`) or an existing variable:
//
//     NGX_ASSIGN_OR_RETURN(auto sizes, parse_sizes(text, rule));
//     NGX_ASSIGN_OR_RETURN(fit.range, fit_range(samples));
//
// It expands to more than one statement: not the sole body of an unbraced if;
// `lhs` has no comma outside parentheses (`auto`, or an alias, for a pair).
#define NGX_ASSIGN_OR_RETURN(lhs, ...)                                                                                 \
    NGX_ASSIGN_OR_RETURN_AT(NGX_STATUS_CONCAT(ngx_result_, __COUNTER__), lhs, __VA_ARGS__)
#define NGX_ASSIGN_OR_RETURN_AT(tmp, lhs, ...)                                                                         \
    auto tmp = (__VA_ARGS__);                                                                                          \
    if (!tmp)                                                                                                          \
        return tmp.status();                                                                                           \
    lhs = std::move(tmp).value()
#define NGX_STATUS_CONCAT(a, b) NGX_STATUS_CONCAT_INNER(a, b)
#define NGX_STATUS_CONCAT_INNER(a, b) a##b

#endif
