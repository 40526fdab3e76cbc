// Text and JUnit forms of a check (see check_output.hpp).
#include "check_output.hpp"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace ngx {
namespace {

std::string number(double value, const char* format)
{
    if (!std::isfinite(value))
        return "?";
    char text[32];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

// A p-value; one below the smallest double is shown as such, not as 0.
std::string p_value(double p)
{
    return p == 0 ? "<1e-300" : number(p, "%.2g");
}

std::string methods(const CheckResult& result)
{
    if (result.baseline_launches > 1 || result.current_launches > 1)
        return "between launches (" + std::to_string(result.baseline_launches) + " baseline, " +
               std::to_string(result.current_launches) +
               " new): t tests on each launch's median (parameter), the spread between launches as the noise";
    bool rank_sum = false, intervals = false;
    for (const CheckedValue& v : result.values)
        (v.test == "rank-sum" ? rank_sum : intervals) = true;
    if (rank_sum && intervals)
        return "Mann-Whitney rank-sum on raw samples, and z tests on 95% intervals";
    return rank_sum ? "Mann-Whitney rank-sum on the raw samples"
                    : "z tests on the medians' (parameters') 95% intervals";
}

std::string xml_escaped(const std::string& text)
{
    std::string out;
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

// "+10.0% (5.31 -> 5.84, p = 1e-60)"
std::string describe(const CheckedValue& v)
{
    return percent_change(v.change) + " (" + number(v.baseline, "%.6g") + " -> " + number(v.current, "%.6g") +
           ", Holm-adjusted p = " + p_value(v.p_adjusted) + ", " + v.test + ")";
}

// The smallest change that counts, as a percentage per kind of value.
std::string effect_of(const CheckResult& result, bool parameters)
{
    for (const CheckedValue& v : result.values)
        if (v.is_parameter == parameters)
            return number(v.min_effect * 100, "%g") + "%";
    return "";
}

// "beyond 15% (sizes), 30% (parameters)", or "beyond 5%" when both agree.
std::string effects(const CheckResult& result)
{
    std::string sizes = effect_of(result, false), parameters = effect_of(result, true);
    if (sizes.empty() || parameters.empty() || sizes == parameters)
        return "beyond " + (sizes.empty() ? parameters : sizes);
    return "beyond " + sizes + " (sizes), " + parameters + " (parameters)";
}

} // namespace

std::string percent_change(double change)
{
    return number(change * 100, "%+.1f%%");
}

std::string check_summary(const CheckResult& result)
{
    std::ostringstream out;
    out << result.count(Verdict::regression) << " regressions, " << result.count(Verdict::improvement)
        << " improvements, " << result.count(Verdict::within_tolerance) << " within tolerance, "
        << result.count(Verdict::unchanged) << " unchanged (of " << result.values.size() << ")";
    return out.str();
}

std::string check_table(const CheckResult& result, const CheckOptions& options)
{
    std::ostringstream out;
    out << "baseline " << result.baseline << ", new " << result.current << "\n"
        << methods(result) << "; a change counts when significant (p < " << number(options.alpha, "%g")
        << ", Holm over " << result.values.size() << " tests) and " << effects(result) << "\n";
    std::string run;
    for (const CheckedValue& v : result.values) {
        if (v.run != run) {
            run = v.run;
            out << run << " (sizes: median us)\n"
                << std::setw(30) << "size / parameter" << std::setw(13) << "baseline" << std::setw(13) << "new"
                << std::setw(10) << "change" << std::setw(11) << "p (Holm)"
                << "  verdict\n";
        }
        out << std::setw(30) << v.name << std::setw(13) << number(v.baseline, "%.6g") << std::setw(13)
            << number(v.current, "%.6g") << std::setw(10) << percent_change(v.change) << std::setw(11)
            << p_value(v.p_adjusted) << "  " << verdict_name(v.verdict) << "\n";
    }
    for (const std::string& note : result.notes)
        out << "note: " << note << "\n";
    out << (result.count(Verdict::regression) > 0 ? "REGRESSION: " : "ok: ") << check_summary(result) << "\n";
    return out.str();
}

std::string check_junit(const CheckResult& result, const CheckOptions& options)
{
    const size_t failures = result.count(Verdict::regression);
    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<testsuites name=\"ngx check\" tests=\"" << result.values.size() << "\" failures=\"" << failures << "\">\n"
        << "  <testsuite name=\"" << xml_escaped(result.baseline + " -> " + result.current) << "\" tests=\""
        << result.values.size() << "\" failures=\"" << failures << "\">\n"
        << "    <properties><property name=\"tolerance\" value=\"" << xml_escaped(effects(result).substr(7))
        << "\"/><property name=\"alpha\" value=\"" << number(options.alpha, "%g")
        << "\"/><property name=\"launches\" value=\"" << result.baseline_launches << " " << result.current_launches
        << "\"/></properties>\n";
    for (const CheckedValue& v : result.values) {
        out << "    <testcase classname=\"" << xml_escaped("ngx.check." + v.run) << "\" name=\"" << xml_escaped(v.name)
            << "\">";
        if (v.verdict == Verdict::regression)
            out << "<failure message=\"" << xml_escaped("regression: " + describe(v)) << "\"/>";
        else
            out << "<system-out>" << xml_escaped(std::string(verdict_name(v.verdict)) + ": " + describe(v))
                << "</system-out>";
        out << "</testcase>\n";
    }
    if (!result.notes.empty()) {
        out << "    <system-out>";
        for (const std::string& note : result.notes)
            out << xml_escaped("note: " + note) << "\n";
        out << "</system-out>\n";
    }
    out << "  </testsuite>\n</testsuites>\n";
    return out.str();
}

} // namespace ngx
