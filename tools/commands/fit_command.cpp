// `ngx fit` and `ngx predict` (see fit_command.hpp). `ngx fit` builds the
// same run record the loggp pattern builds and hands it to the same
// reporters, so its output is the pattern's output.
#include "fit_command.hpp"

#include "loggopsim.hpp"
#include "loggp/loggp_model.hpp"
#include "prtt_file.hpp"

#include "ngx_config.h"

#include <ngx/reporter.hpp>
#include <ngx/sizes.hpp>

#include <boost/program_options.hpp>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

namespace ngx {
namespace {

namespace po = boost::program_options;

int usage_error(const char* command, const Status& status)
{
    std::cerr << "ngx " << command << ": " << status.message() << "\n";
    return exit_code(status);
}

Result<po::variables_map> parse(const std::vector<std::string>& arguments, const po::options_description& options,
                                const po::positional_options_description& positional)
{
    po::variables_map values;
    try {
        po::store(po::command_line_parser(arguments).options(options).positional(positional).run(), values);
        po::notify(values);
    } catch (const po::error& error) {
        return Status::usage(error.what());
    }
    return values;
}

SizeRecord offline_record(const fit::PrttSample& sample, double n)
{
    constexpr double unknown = std::numeric_limits<double>::quiet_NaN();
    SizeRecord record;
    record.size_bytes = uint64_t(sample.size);
    record.summary.count = 0; // medians only: the samples behind them are not in the file
    record.summary.median = sample.prtt_1_0;
    record.summary.min = record.summary.max = record.summary.mean = unknown;
    record.summary.stddev = record.summary.p99 = unknown;
    record.extra = patterns::loggp_size_columns(sample, n);
    return record;
}

Document offline_document(const std::string& path, const PrttTable& table, const patterns::LogGPFitSettings& settings,
                          Json model)
{
    Document document;
    document.context = {{"ngx_version", NGX_VERSION}, {"source", path}};
    RunRecord run;
    run.module = "offline";
    run.pattern = "loggp";
    run.metric = "PRTT(1,0,s) (medians from " + path + ")";
    run.options = {{"source", path},
                   {"pattern_options",
                    {{"n", table.n},
                     {"detector", settings.detector},
                     {"lookahead", settings.lookahead},
                     {"pfact", settings.pfact}}}};
    for (const fit::PrttSample& sample : table.samples)
        run.sizes.push_back(offline_record(sample, table.n));
    run.model = std::move(model);
    run.status = "complete";
    document.runs.push_back(std::move(run));
    return document;
}

po::options_description fit_options()
{
    po::options_description options("ngx fit FILE (raw-PRTT CSV or a saved loggp JSON run)");
    // clang-format off
    options.add_options()
        ("file", po::value<std::string>(), "the saved measurements")
        ("loggp-detector", po::value<std::string>()->default_value("robust"), "robust, paper or none")
        ("loggp-lookahead", po::value<double>()->default_value(5), "x of paper 001 section 3.5")
        ("loggp-pfact", po::value<double>()->default_value(2.0), "pfact of paper 001 section 3.5")
        ("output,o", po::value<std::vector<std::string>>(), "write the result (.json, .csv, .txt)")
        ("export", po::value<std::string>(), "print the parameters for another tool: loggopsim")
        ("help,h", "show this help");
    // clang-format on
    return options;
}

Status check_export(const po::variables_map& values)
{
    if (values.count("export") && values["export"].as<std::string>() != "loggopsim")
        return Status::usage("--export '" + values["export"].as<std::string>() + "': the one format is loggopsim");
    return Status::ok();
}

int run_fit(const std::vector<std::string>& arguments)
{
    po::options_description options = fit_options();
    po::positional_options_description positional;
    positional.add("file", 1);
    Result<po::variables_map> values = parse(arguments, options, positional);
    if (!values)
        return usage_error("fit", values.status());
    if (values->count("help")) {
        std::cout << "Usage: ngx fit FILE [options]\n" << options;
        return 0;
    }
    if (!values->count("file"))
        return usage_error("fit", Status::usage("no file given (ngx fit FILE.csv)"));
    if (Status exported = check_export(*values); !exported)
        return usage_error("fit", exported);
    patterns::LogGPFitSettings settings{(*values)["loggp-detector"].as<std::string>(),
                                        (*values)["loggp-lookahead"].as<double>(),
                                        (*values)["loggp-pfact"].as<double>()};
    if (Status valid = patterns::check_fit_settings(settings); !valid)
        return usage_error("fit", valid);
    std::string path = (*values)["file"].as<std::string>();
    Result<PrttTable> table = read_prtt_file(path);
    if (!table)
        return usage_error("fit", table.status());
    Result<Json> model = patterns::fit_loggp_model(table->samples, table->n, settings);
    if (!model)
        return usage_error("fit", model.status());
    if (values->count("export")) {
        Result<fit::LogGPParams> params = patterns::loggp_params_from_model(*model);
        std::cout << loggopsim_parameters(*params);
        return 0;
    }
    Document document = offline_document(path, *table, settings, std::move(*model));
    std::vector<std::unique_ptr<Reporter>> reporters;
    reporters.push_back(std::make_unique<TableReporter>(std::cout));
    if (values->count("output"))
        for (const std::string& output : (*values)["output"].as<std::vector<std::string>>()) {
            std::optional<OutputFormat> format = format_from_path(output);
            if (!format)
                return usage_error("fit", Status::usage("-o " + output + ": use .json, .csv or .txt"));
            reporters.push_back(make_file_reporter(output, *format, false));
        }
    // Replayed size by size, as a live run reports them.
    const RunRecord& run = document.runs.front();
    RunRecord growing = run;
    growing.sizes.clear();
    for (auto& reporter : reporters)
        reporter->run_started(growing);
    for (const SizeRecord& size : run.sizes) {
        growing.sizes.push_back(size);
        for (auto& reporter : reporters)
            reporter->size_done(growing, growing.sizes.back());
    }
    for (auto& reporter : reporters)
        reporter->run_finished(run);
    for (auto& reporter : reporters)
        if (Status written = reporter->close(document); !written)
            return usage_error("fit", written);
    return 0;
}

// The saved model: a document's own, or the first run's that has one.
Result<Json> saved_model(const std::string& path)
{
    std::ifstream file(path);
    if (!file)
        return Status::usage(path + ": cannot be read");
    Json document = Json::parse(file, nullptr, false);
    if (document.is_discarded() || !document.is_object())
        return Status::usage(path + ": not a JSON document");
    if (document.contains("model"))
        return document["model"];
    if (document.contains("runs"))
        for (const Json& run : document["runs"])
            if (run.contains("model"))
                return run["model"];
    return Status::usage(path + ": has no fitted model (run -x loggp, or ngx fit -o FILE.json)");
}

struct PredictRequest {
    std::string op;
    double size = 1, processes = 2, messages = 16, delay_us = 0;
};

double predict(const fit::LogGPParams& params, const PredictRequest& request)
{
    if (request.op == "pingpong")
        return params.half_rtt(request.size);
    if (request.op == "prtt")
        return params.prtt(request.messages, request.delay_us, request.size);
    if (request.op == "bcast-linear")
        return params.linear_bcast(request.processes, request.size);
    return params.tree_bcast(request.processes, request.size);
}

po::options_description predict_options()
{
    po::options_description options("ngx predict --params FILE.json --op OP -s SIZE [options]");
    // clang-format off
    options.add_options()
        ("params", po::value<std::string>(), "a JSON file with fitted LogGP parameters (from -x loggp or ngx fit)")
        ("op", po::value<std::string>(), "pingpong (half round trip), prtt, bcast-linear or bcast-tree")
        ("size,s", po::value<std::string>(), "message size, e.g. 4Ki")
        ("processes,P", po::value<double>()->default_value(2), "processes of a broadcast")
        ("messages,n", po::value<double>()->default_value(16), "n of PRTT(n,d,s)")
        ("delay,d", po::value<double>()->default_value(0), "d of PRTT(n,d,s), microseconds")
        ("export", po::value<std::string>(), "print the parameters for another tool instead: loggopsim")
        ("help,h", "show this help");
    // clang-format on
    return options;
}

Result<PredictRequest> read_request(const po::variables_map& values)
{
    PredictRequest request;
    if (!values.count("op"))
        return Status::usage("--op is required: pingpong, prtt, bcast-linear or bcast-tree");
    request.op = values["op"].as<std::string>();
    if (request.op != "pingpong" && request.op != "prtt" && request.op != "bcast-linear" && request.op != "bcast-tree")
        return Status::usage("--op '" + request.op + "': expected pingpong, prtt, bcast-linear or bcast-tree");
    if (!values.count("size"))
        return Status::usage("-s/--size is required");
    Result<uint64_t> size = parse_byte_count(values["size"].as<std::string>());
    if (!size)
        return size.status();
    if (*size < 1)
        return Status::usage("-s/--size: LogGP predictions need at least 1 byte");
    request.size = double(*size);
    request.processes = values["processes"].as<double>();
    request.messages = values["messages"].as<double>();
    request.delay_us = values["delay"].as<double>();
    if (!(request.processes >= 1 && request.processes == std::floor(request.processes)))
        return Status::usage("-P: expected a whole number of processes >= 1");
    if (!(request.messages >= 1) || !(request.delay_us >= 0))
        return Status::usage("-n must be >= 1 and -d >= 0");
    return request;
}

void print_predictions(const fit::LogGPParams& params, const PredictRequest& request)
{
    const fit::LogGPRange* applies = params.range_for(request.size);
    std::cout << "# " << request.op << " of " << format_bytes(uint64_t(request.size));
    if (request.op.starts_with("bcast"))
        std::cout << " to P = " << request.processes;
    if (request.op == "prtt")
        std::cout << " with n = " << request.messages << ", d = " << request.delay_us << " us";
    std::cout << ", predicted with each protocol range's parameters (microseconds)\n";
    for (const fit::LogGPRange& range : params.ranges) {
        fit::LogGPParams single;
        single.ranges = {range};
        std::cout << "  " << std::setw(10) << format_bytes(uint64_t(range.from_bytes)) << " .. " << std::setw(10)
                  << format_bytes(uint64_t(range.to_bytes)) << "  " << std::setw(12) << predict(single, request)
                  << (&range == applies ? "   <- the range this size falls in" : "") << "\n";
    }
    std::cout << "prediction: " << predict(params, request) << " us\n";
}

int run_predict(const std::vector<std::string>& arguments)
{
    po::options_description options = predict_options();
    Result<po::variables_map> values = parse(arguments, options, {});
    if (!values)
        return usage_error("predict", values.status());
    if (values->count("help")) {
        std::cout << options;
        return 0;
    }
    if (!values->count("params"))
        return usage_error("predict", Status::usage("--params FILE.json is required"));
    if (Status exported = check_export(*values); !exported)
        return usage_error("predict", exported);
    Result<Json> model = saved_model((*values)["params"].as<std::string>());
    if (!model)
        return usage_error("predict", model.status());
    Result<fit::LogGPParams> params = patterns::loggp_params_from_model(*model);
    if (!params)
        return usage_error("predict", params.status());
    if (values->count("export")) {
        std::cout << loggopsim_parameters(*params);
        return 0;
    }
    Result<PredictRequest> request = read_request(*values);
    if (!request)
        return usage_error("predict", request.status());
    print_predictions(*params, *request);
    return 0;
}

} // namespace

CommandInfo fit_command()
{
    return {"fit", "re-fit saved PRTT medians offline (LogGP, paper 001)", run_fit};
}

CommandInfo predict_command()
{
    return {"predict", "predict a communication's cost from saved LogGP parameters", run_predict};
}

} // namespace ngx
