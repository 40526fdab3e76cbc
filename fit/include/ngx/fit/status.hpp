// Errors as values for ngx::fit: every fit returns a Result<T> holding either
// the fitted value or the Status that says why there is none. Nothing in
// fit/ throws across its API, prints or does I/O.
//
//     Result<LineFit> r = fit_line(x, y);
//     if (!r) return describe(r.status());   // "too few points"
//     double slope = r->slope.value;
//
// A Result built from a Status must not be built from Status::ok (asserted);
// reading value() of a failed Result is a precondition violation (asserted).
#ifndef NGX_FIT_STATUS_HPP
#define NGX_FIT_STATUS_HPP

#include <cassert>
#include <optional>
#include <string_view>
#include <utility>

namespace ngx::fit {

enum class Status {
    ok,
    invalid_input,  // mismatched lengths, non-finite values, bad options
    too_few_points, // not enough data for the requested quantity
    degenerate,     // data admit no unique solution (e.g. all x equal)
    not_converged,  // an iterative search did not meet its tolerance
};

constexpr std::string_view describe(Status s) noexcept
{
    switch (s) {
    case Status::ok:
        return "ok";
    case Status::invalid_input:
        return "invalid input";
    case Status::too_few_points:
        return "too few points";
    case Status::degenerate:
        return "degenerate data (no unique solution)";
    case Status::not_converged:
        return "did not converge";
    }
    return "unknown status";
}

template <class T>
class Result {
public:
    Result(T value) : value_(std::move(value)), status_(Status::ok) {}
    Result(Status failure) : status_(failure) { assert(failure != Status::ok); }

    bool ok() const noexcept { return status_ == Status::ok; }
    explicit operator bool() const noexcept { return ok(); }
    Status status() const noexcept { return status_; }

    const T& value() const&
    {
        assert(ok());
        return *value_;
    }
    T& value() &
    {
        assert(ok());
        return *value_;
    }
    T&& value() &&
    {
        assert(ok());
        return std::move(*value_);
    }
    const T& operator*() const& { return value(); }
    T& operator*() & { return value(); }
    const T* operator->() const { return &value(); }
    T* operator->() { return &value(); }

private:
    std::optional<T> value_;
    Status status_;
};

} // namespace ngx::fit

#endif
