// Numbers in the fits' failure messages: the shortest form that still reads
// exactly ("0.95", "8192", "1e-09"), and a count of points with its unit.
#ifndef NGX_FIT_FAILURE_TEXT_HPP
#define NGX_FIT_FAILURE_TEXT_HPP

#include <cstddef>
#include <cstdio>
#include <string>

namespace ngx::fit::detail {

inline std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

inline std::string count(std::size_t n, const char* unit)
{
    return std::to_string(n) + " " + unit + (n == 1 ? "" : "s");
}

} // namespace ngx::fit::detail

#endif
