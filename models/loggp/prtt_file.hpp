// The loggp pattern's raw file, written and read here: the raw-PRTT CSV that
// `ngx -x loggp --raw-prtt` writes (header size_bytes,n,delay_us,
// prtt_1_0_us,prtt_n_0_us,prtt_n_d_us, optionally o_r_us and rel_ci95 after
// them: the relative width of the widest 95% interval of the three medians), or a
// saved loggp run in JSON (whose results carry o_r). Every defect of the file
// is a usage error naming the line and the column.
//
//     Result<PrttTable> table = read_prtt_file("run.csv");
#ifndef NGX_TOOLS_PRTT_FILE_HPP
#define NGX_TOOLS_PRTT_FILE_HPP

#include <models/loggp/loggp.hpp>
#include <ngx/reporter.hpp>
#include <ngx/status.hpp>

#include <memory>

#include <string>
#include <vector>

namespace ngx {

struct PrttTable {
    double n = 0;
    std::vector<fit::PrttSample> samples;
    std::vector<double> rel_ci; // per sample when the file has rel_ci95, else empty
    std::string negative;       // the saved run's --loggp-negative ("" when it recorded none)
};

// The header of the raw-PRTT CSV that `-x loggp --raw-prtt` writes and `ngx fit` reads.
inline constexpr const char* prtt_csv_header =
    "size_bytes,n,delay_us,prtt_1_0_us,prtt_n_0_us,prtt_n_d_us,o_r_us,rel_ci95";

Result<PrttTable> parse_prtt_csv(const std::string& text, const std::string& name);
// A JSON of several runs takes the loggp run of `module` ("" when it holds one).
Result<PrttTable> read_prtt_file(const std::string& path, const std::string& module = "");

// A loggp run's per-size medians as that CSV.
std::string to_prtt_csv(const RunRecord& run);

// Writes the first run's medians to `path` when the invocation ends.
std::unique_ptr<Reporter> make_prtt_csv_reporter(std::string path);

} // namespace ngx

#endif
