// `ngx predict --params FILE.json --op allreduce -s 1Mi -P 64`: the
// collectives of models/collectives/collectives.hpp predicted from a saved LogGP or LogGPS
// model (shared by the loggp and loggps model kinds), per algorithm, the
// best one, and the algorithm Open MPI 4.1's tuned component would run
// (models/collectives/ompi_decision.hpp). Several sizes (-s 8-1Mi) and process counts
// (-P 4,16,64) make more rows; the JSON of `--format json` is
// {"model", "op", "description", "gamma_us_per_byte", "predictions":
// [{model, op, algorithm, P, bytes, time_us}, ...], "skipped", "best",
// "open_mpi_4_1_tuned", "notes"}.
//
// Bad input is a usage error (exit 2) that names it: an algorithm the
// operation does not have, P < 2, a size the parameters do not cover (a
// message beyond the largest measured size, unless --extrapolate; a
// parameter the model lacks for that size).
#ifndef NGX_PATTERNS_LOGGP_COLLECTIVE_PREDICT_HPP
#define NGX_PATTERNS_LOGGP_COLLECTIVE_PREDICT_HPP

#include <models/collectives/collective_schedule.hpp>
#include <models/collectives/collectives.hpp>
#include <ngx/model_kind.hpp>
#include <ngx/options.hpp>
#include <ngx/record.hpp>
#include <ngx/status.hpp>

#include <string>
#include <vector>

namespace ngx::patterns {

// bcast, reduce, allreduce, allgather, alltoall, gather, scatter, barrier.
bool is_collective_op(const std::string& op);
// The names for --op's help: "allreduce, bcast, ...".
std::string collective_op_names();

// What the saved model offers the collectives.
struct CollectiveModel {
    fit::MessageCostFn p2p;
    std::string description;      // "LogGP, 3 protocol ranges" (the table's header)
    double largest_bytes = 0;     // the largest size its parameters cover (inf: any)
    double gamma_us_per_byte = 0; // the model file's "gamma_us_per_byte", if any
    std::string kind{};           // "loggp", "loggps": each JSON prediction's "model"
};

// A saved LogGP model (each message costed with its protocol range's
// parameters; it covers sizes up to its last range's largest size) or LogGPS
// model (with its rendezvous above S; any size, unknown parameters give NaN).
CollectiveModel loggp_collective_model(const fit::LogGPParams& params, const Json& model);
CollectiveModel loggps_collective_model(const fit::LogGPSParams& params, const Json& model);

// How a prediction is made: the closed form (`ngx predict`), or the
// event-by-event evaluation of the algorithm's schedule under the given
// rules (the `coll` pattern, which runs that schedule; collective_schedule.hpp).
enum class CollectiveCost { closed_form, schedule };

// One prediction, or why the model cannot make it (a usage error): the
// collective invalid, a message beyond the largest size the parameters cover
// (unless `extrapolate`), or a size they have no finite cost for.
Result<double> checked_prediction(const fit::Collective& c, const CollectiveModel& model, bool extrapolate,
                                  CollectiveCost how = CollectiveCost::closed_form,
                                  const fit::ScheduleRules& rules = {});

// The predictions --op, -s, -P, --algorithm ask for: one per algorithm,
// size and process count, with the best and Open MPI's choice as notes and
// in the JSON's summary. It reads ngx predict's common rows
// (predict_option::): --op, -s and -P (a value, a range or a list),
// --algorithm, --gamma, --segment, --element, --extrapolate.
Result<Predictions> predict_collectives(opt::Reader& read,
                                        const CollectiveModel& model); // read's table: predict_table()

} // namespace ngx::patterns

#endif
