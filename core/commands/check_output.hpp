// How `ngx check` shows a CheckResult (regression_check.hpp): a readable
// table with a closing summary line, or JUnit XML for CI systems (one
// testcase per size or parameter; a regression is a failure; the notes in
// the suite's system-out).
//
//     std::cout << check_table(result, options);
//     std::cout << check_junit(result, options);
#ifndef NGX_CHECK_OUTPUT_HPP
#define NGX_CHECK_OUTPUT_HPP

#include "regression_check.hpp"

#include <string>

namespace ngx {

std::string check_table(const CheckResult& result, const CheckOptions& options);

// "3 regressions, 0 improvements, 1 within tolerance, 7 unchanged"
std::string check_summary(const CheckResult& result);

std::string check_junit(const CheckResult& result, const CheckOptions& options);

// "+10.0%"; "?" when unknown.
std::string percent_change(double change);

} // namespace ngx

#endif
