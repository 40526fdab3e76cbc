// The run plan (see plan.hpp).
#include "plan.hpp"

#include <ngx/sizes.hpp>

namespace ngx {
namespace {

Status bad_value(const std::string& option, const std::string& value, const std::string& why)
{
    return Status::usage(opt::bad_value(option, value, why));
}

// The runs of one module: every combination of the values its options list.
Status expand_variants(const ModuleChoice& choice, std::vector<ModuleChoice>& runs)
{
    std::vector<ModuleChoice> partial = {ModuleChoice{choice.module, {}, ""}};
    for (const auto& [name, value] : choice.options) {
        std::vector<std::string> values =
            value.find(',') == std::string::npos ? std::vector<std::string>{value} : opt::split_list(value);
        std::vector<ModuleChoice> next;
        for (const ModuleChoice& base : partial)
            for (const std::string& one : values) {
                if (one.empty() && values.size() > 1)
                    return bad_value(name, value, "empty item in the list of values");
                ModuleChoice extended = base;
                extended.options.emplace_back(name, one);
                if (values.size() > 1)
                    extended.variant += (extended.variant.empty() ? "" : ",") + name + "=" + one;
                next.push_back(std::move(extended));
            }
        partial = std::move(next);
        if (runs.size() + partial.size() > max_runs)
            return bad_value(name, value, "the value lists give more than " + std::to_string(max_runs) + " runs");
    }
    runs.insert(runs.end(), partial.begin(), partial.end());
    return Status::ok();
}

// What a capability bit gives, for messages: "collectives (NGX_CAP_COLLECTIVES)".
std::string capability_name(uint32_t bit)
{
    switch (bit) {
    case NGX_CAP_RELIABLE:
        return "reliable delivery (NGX_CAP_RELIABLE)";
    case NGX_CAP_NONBLOCKING:
        return "non-blocking operations (NGX_CAP_NONBLOCKING)";
    case NGX_CAP_RDMA:
        return "RDMA (NGX_CAP_RDMA)";
    case NGX_CAP_REGISTERED_MEMORY:
        return "registered memory (NGX_CAP_REGISTERED_MEMORY)";
    case NGX_CAP_SAME_NODE_ONLY:
        return "a same-node restriction (NGX_CAP_SAME_NODE_ONLY)";
    case NGX_CAP_ZERO_BYTE:
        return "0-byte messages (NGX_CAP_ZERO_BYTE)";
    case NGX_CAP_DATATYPES:
        return "derived datatypes (NGX_CAP_DATATYPES)";
    case NGX_CAP_COLLECTIVES:
        return "collectives (NGX_CAP_COLLECTIVES)";
    case NGX_CAP_SEND_TO_SELF:
        return "send to self (NGX_CAP_SEND_TO_SELF)";
    default:
        return "capability bit " + std::to_string(bit);
    }
}

} // namespace

Result<std::vector<ModuleChoice>> plan_module_runs(const std::vector<ModuleChoice>& modules)
{
    std::vector<ModuleChoice> runs;
    for (const ModuleChoice& choice : modules)
        NGX_TRY(expand_variants(choice, runs));
    return runs;
}

Status check_sizes_fit_modules(const std::vector<ModuleChoice>& runs, const std::vector<uint64_t>& sizes)
{
    for (const ModuleChoice& choice : runs) {
        const ngx_module& descriptor = choice.module->descriptor();
        if (sizes.front() == 0 && !choice.module->has(NGX_CAP_ZERO_BYTE))
            return Status::usage("-s/--sizes: module " + choice.module->name() +
                                 " has no 0-byte messages (a stream carries no empty message); start at 1");
        if (descriptor.max_message_size != 0 && sizes.back() > descriptor.max_message_size)
            return Status::usage("-s/--sizes: module " + choice.module->name() + " carries at most " +
                                 std::to_string(descriptor.max_message_size) + " bytes per message");
    }
    return Status::ok();
}

Status check_sizes_fit_pattern(const std::vector<uint64_t>& sizes, const PatternInfo& pattern)
{
    if (!sizes.empty() && sizes.front() < pattern.min_message_bytes)
        return Status::usage("-s/--sizes: pattern " + pattern.name + " measures messages of at least " +
                             format_bytes(pattern.min_message_bytes) + " (" + pattern.min_message_reason +
                             "); -s includes " + format_bytes(sizes.front()));
    return Status::ok();
}

Status check_modules_fit_pattern(const std::vector<ModuleChoice>& runs, const PatternInfo& pattern)
{
    for (const ModuleChoice& choice : runs)
        for (uint32_t bit = 1; bit != 0; bit <<= 1)
            if ((pattern.module_capabilities & bit) != 0 && !choice.module->has(bit))
                return Status::usage("module '" + choice.module->name() + "' has no " + capability_name(bit) +
                                     ", which pattern '" + pattern.name + "' needs");
    return Status::ok();
}

} // namespace ngx
