// The loghssp pattern's results (see loghssp.cpp): both tiers fitted from the
// two pairs' overhead records, each measured point next to its prediction
// by eq. (8) or eq. (9), and the tables the core prints when the run ends.
//
//     TierFit fitted = fit_both_tiers(hosts, pairs, {intra_records, inter_records});
//     fitted.model["intra"]["s_s_us"];   // what ngx predict --tier intra reads
#ifndef NGX_LOGHSSP_TIER_REPORT_HPP
#define NGX_LOGHSSP_TIER_REPORT_HPP

#include <ngx/rank_hosts.hpp>
#include <ngx/record.hpp>
#include <ngx/table.hpp>

#include <vector>

namespace ngx::patterns {

struct Pair {
    int driver = -1;    // times and records (Figure 2's P1)
    int responder = -1; // P2
};

struct TierPairs {
    Pair intra; // two ranks on one host
    Pair inter; // two hosts
};

// "intra" (tier 0) or "inter" (tier 1).
const char* tier_name(size_t tier);

struct TierFit {
    std::vector<SizeRecord> records; // intra's then inter's, each with its prediction and error
    Json model;                      // {"kind": "loghssp", "intra", "inter", "pairs", "hosts", "points", ...}
};

// `records`: the intra pair's and the inter pair's overhead records (ascending size).
TierFit fit_both_tiers(const RankHosts& hosts, const TierPairs& pairs, std::vector<std::vector<SizeRecord>> records);

// The run's "measurement" from the two pairs' (`tiers`: {"intra": ..., "inter": ...}, each as
// the passes loop reports it): the regular plan (the options', the same for both), the extra
// passes of both, the sizes measured again or still wide in either, the schedule of the intra
// pair's passes then the inter pair's, and both in full under "tiers".
Json merge_measurements(const Json& tiers);

// A finished loghssp run's tables (PatternInfo::run_tables): both tiers'
// parameters and their ratio (the tables `ngx fit --loghssp` shows too), each
// point with its prediction, and the prediction errors; none for another run.
std::vector<Table> tier_tables(const RunRecord& run);

} // namespace ngx::patterns

#endif
