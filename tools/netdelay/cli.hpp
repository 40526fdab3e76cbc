// cli.hpp: the small, strict command-line and clock helpers shared by the
// test-network tools (ngx-netdelay, ngx-netprobe). Header-only on purpose:
// each tool is one translation unit plus this file.
//
//     ngxnet::ArgReader args(argc, argv);
//     std::string name;
//     while (args.next(name)) {
//         if (name == "--delay-us") delay = ngxnet::parse_int<long>(args.value(), 0, 10'000'000, name);
//         else throw ngxnet::UsageError("unknown option " + name);
//     }
//
// Any malformed or out-of-range value throws UsageError; the tools turn it
// into exit status 2 with the message.
#ifndef NGX_TOOLS_NETDELAY_CLI_HPP
#define NGX_TOOLS_NETDELAY_CLI_HPP

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace ngxnet {

// A bad command line: the message is for the user, the exit status is 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Walks "--name value" and "--name=value" options in order.
class ArgReader {
public:
    ArgReader(int argc, char** argv, int first = 1) : argc_(argc), argv_(argv), pos_(first) {}

    // Stores the next option name (without any "=value") in `name`;
    // false when the arguments are exhausted.
    bool next(std::string& name)
    {
        if (pending_)
            throw UsageError("option " + current_ + " takes no value");
        if (pos_ >= argc_)
            return false;
        std::string_view arg = argv_[pos_++];
        if (arg.size() < 3 || arg.substr(0, 2) != "--")
            throw UsageError("unexpected argument '" + std::string(arg) + "'");
        auto eq = arg.find('=');
        if (eq == std::string_view::npos) {
            current_ = std::string(arg);
            pending_ = false;
        } else {
            current_ = std::string(arg.substr(0, eq));
            inline_value_ = std::string(arg.substr(eq + 1));
            pending_ = true;
        }
        name = current_;
        return true;
    }

    // The value of the option last returned by next().
    std::string value()
    {
        if (pending_) {
            pending_ = false;
            return inline_value_;
        }
        if (pos_ >= argc_)
            throw UsageError("option " + current_ + " needs a value");
        return argv_[pos_++];
    }

private:
    int argc_;
    char** argv_;
    int pos_;
    std::string current_;
    std::string inline_value_;
    bool pending_ = false;
};

// Parses a whole string as an integer in [lo, hi].
template <class T>
T parse_int(const std::string& text, T lo, T hi, const std::string& what)
{
    T v{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        throw UsageError(what + ": '" + text + "' is not an integer");
    if (v < lo || v > hi)
        throw UsageError(what + ": " + text + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
}

// Parses a whole string as a finite number in [lo, hi].
inline double parse_double(const std::string& text, double lo, double hi, const std::string& what)
{
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        throw UsageError(what + ": '" + text + "' is not a number");
    if (!(v >= lo && v <= hi)) {
        char range[96];
        std::snprintf(range, sizeof range, "[%g, %g]", lo, hi);
        throw UsageError(what + ": " + text + " is outside " + range);
    }
    return v;
}

// CLOCK_MONOTONIC in nanoseconds (vDSO, about 40 ns per call here).
inline int64_t mono_ns()
{
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

inline timespec to_timespec(int64_t ns)
{
    if (ns < 0)
        ns = 0;
    timespec t{};
    t.tv_sec = time_t(ns / 1'000'000'000);
    t.tv_nsec = long(ns % 1'000'000'000);
    return t;
}

} // namespace ngxnet

#endif
