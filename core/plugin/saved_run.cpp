// Which run of a saved document fit and predict read (see ngx/saved_run.hpp).
#include <ngx/saved_run.hpp>

#include <algorithm>
#include <vector>

namespace ngx {

const Json* json_member(const Json& object, const char* key)
{
    return object.is_object() && object.contains(key) ? &object[key] : nullptr;
}

namespace {

std::string module_of(const Json& run)
{
    const Json* module = json_member(run, "module");
    return module != nullptr && module->is_string() ? module->get<std::string>() : "(unnamed)";
}

// "shm, tcp"
std::string modules_of(const std::vector<const Json*>& runs)
{
    std::string list;
    for (const Json* run : runs)
        list += (list.empty() ? "" : ", ") + module_of(*run);
    return list;
}

} // namespace

Result<const Json*> choose_saved_run(const Json& document, const std::string& name, const std::string& what,
                                     const std::string& absent, const std::function<bool(const Json&)>& usable,
                                     const std::string& module)
{
    std::vector<const Json*> runs;
    if (const Json* many = json_member(document, "runs"); many != nullptr && many->is_array()) {
        for (const Json& run : *many)
            if (usable(run))
                runs.push_back(&run);
    } else if (usable(document)) {
        runs.push_back(&document);
    }
    if (runs.empty())
        return Status::usage(name + ": " + absent);
    if (!module.empty()) {
        const std::string all = modules_of(runs);
        std::erase_if(runs, [&](const Json* run) { return module_of(*run) != module; });
        if (runs.empty())
            return Status::usage(name + ": no " + what + " of module '" + module + "' (it holds: " + all + ")");
    }
    if (runs.size() > 1)
        return Status::usage(name + ": holds " + std::to_string(runs.size()) + " " + what + "s (modules " +
                             modules_of(runs) + "); name one with --module" +
                             (module.empty() ? "" : " (several of '" + module + "': save them apart)"));
    return runs.front();
}

std::string saved_module(opt::Reader& read)
{
    return read.optional(saved_module_row).value_or("");
}

opt::OptionSpec saved_module_spec()
{
    return opt::spec_of(saved_module_row);
}

} // namespace ngx
