// Declared options (opt::OptionSpec) as Boost.Program_options groups, and
// the parsed values back as OptionValues. The one place where the core's
// command-line library meets the declarations of patterns and commands.
#ifndef NGX_OPTION_GROUP_HPP
#define NGX_OPTION_GROUP_HPP

#include <ngx/options.hpp>

#include <boost/program_options.hpp>

#include <string>
#include <vector>

namespace ngx {

namespace po = boost::program_options;

po::options_description option_group(const std::string& title, const std::vector<opt::OptionSpec>& specs);

// " (did you mean '--loggp-n'?)" for the long name of `group` nearest to
// `bare` (a name without its dashes) when it is a likely typo, else "".
std::string closest_option_hint(const std::string& bare, const po::options_description& group);

// The values of declared options, in declaration order; a repeated option
// gives several entries, a flag the value "1".
OptionValues values_of(const po::variables_map& values, const std::vector<opt::OptionSpec>& specs);

} // namespace ngx

#endif
