// Which run of a saved JSON document `ngx fit` and `ngx predict` work on. A
// document is one run, or several under "runs" (the main job saves shm and
// tcp together). Of the runs a subcommand can use, --module picks the one of
// that module; several left without it are a usage error that names them,
// never a silent choice of the first. A pattern's `fit` and model kind's
// `load` hooks read their runs through it (a file format, next to
// ngx/json_input.hpp, which reads the file).
//
//     Result<const Json*> run = choose_saved_run(document, "job.json", "loggp run", "not a saved loggp run",
//                                                is_loggp_run, module); // module "" = any
#ifndef NGX_SAVED_RUN_HPP
#define NGX_SAVED_RUN_HPP

#include <ngx/options.hpp>
#include <ngx/record.hpp>
#include <ngx/status.hpp>

#include <functional>
#include <string>

namespace ngx {

// `object[key]` when object is an object holding key, else nullptr (any JSON
// may come in: never index what is not there, never read a non-object).
const Json* json_member(const Json& object, const char* key);

// `usable` says which runs the subcommand can read; `what` names one ("loggp
// run") and `absent` is the error when there is none ("not a saved loggp run
// (no pattern \"loggp\" with results)").
Result<const Json*> choose_saved_run(const Json& document, const std::string& name, const std::string& what,
                                     const std::string& absent, const std::function<bool(const Json&)>& usable,
                                     const std::string& module);

// --module NAME: the option that picks a run of a multi-run document, and
// its value as choose_saved_run takes it ("" when not given).
inline constexpr auto saved_module_row =
    opt::row::text("module,m", opt::no_default, "in a file of several runs (the main job's), the run of this module");
opt::OptionSpec saved_module_spec();
std::string saved_module(opt::Reader& read); // read's table includes saved_module_row

} // namespace ngx

#endif
