// libFuzzer target: the saved-model reader of `ngx predict`
// (patterns/loggp/loggp_model.hpp loggp_params_from_model) on any JSON, the
// model taken from where predict looks for it (the document's "model", a
// run's, or the document itself), then every prediction on the parameters
// it accepts. A bad model must be a usage error with a message.
#include <models/loggp/loggp_model.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

void predict_all(const ngx::fit::LogGPParams& params)
{
    for (double size : {1.0, 64.0, 65536.0, 1e9}) {
        (void)params.half_rtt(size);
        (void)params.prtt(16, 1.0, size);
        (void)params.linear_bcast(8, size);
        (void)params.tree_bcast(8, size);
        (void)params.range_for(size);
    }
}

void try_model(const ngx::Json& model)
{
    ngx::Result<ngx::fit::LogGPParams> params = ngx::patterns::loggp_params_from_model(model);
    if (!params) {
        if (params.status().kind() != ngx::ErrorKind::usage || params.status().message().empty())
            std::abort();
        return;
    }
    predict_all(*params);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ngx::Json document = ngx::Json::parse(data, data + size, nullptr, false);
    if (document.is_discarded())
        return 0;
    try_model(document);
    if (document.is_object() && document.contains("model"))
        try_model(document["model"]);
    if (document.is_object() && document.contains("runs") && document["runs"].is_array())
        for (const ngx::Json& run : document["runs"])
            if (run.is_object() && run.contains("model"))
                try_model(run["model"]);
    return 0;
}
