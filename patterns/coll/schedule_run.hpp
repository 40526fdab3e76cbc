// Runs one rank's part of a collective schedule (models/collectives/collective_schedule.hpp:
// the same message list the predictions and the GOAL export are made of)
// over a pairwise module's send and receive, so that ngx's own collectives
// can be measured over tcp, shm or sim and set against the MPI library's.
//
// Operations run in the schedule's order, which respects every `after`,
// one blocking call after the other: the prediction of these runs plays the
// schedule the same way (fit::ScheduleRules::program_order). A send followed
// by a receive that waits for the same operations is one step of an
// exchange: with the same peer, over a module with real non-blocking calls
// (NGX_CAP_NONBLOCKING), it runs as isend + irecv + wait
// (fit::overlapped_exchange_at); otherwise (two peers, as in a ring's
// shift, or a module without them: tcp, shm) as a send and a receive in the
// order of fit::receives_first_at (send first only to a higher rank), which
// cannot deadlock whatever the message sizes. A calc
// adds the received doubles to the rank's own (a real reduction: sum of
// doubles), so the time includes the computation the model calls gamma.
//
//     ScheduleRunner runner(transport, links, me, schedule.ranks[me]);
//     NGX_TRY(runner.prepare());       // buffers, outside the timed region
//     NGX_TRY(runner.run());           // one collective
#ifndef NGX_PATTERNS_COLL_SCHEDULE_RUN_HPP
#define NGX_PATTERNS_COLL_SCHEDULE_RUN_HPP

#include <models/collectives/collective_schedule.hpp>
#include <ngx/peer_links.hpp>
#include <ngx/transport.hpp>

#include <vector>

namespace ngx::patterns::coll {

// The bytes a schedule's message of `bytes` (a block n/P need not be whole)
// moves: rounded to the nearest byte, at least 1.
size_t message_bytes(double bytes);

// The peers `ops` sends to or receives from, ascending.
std::vector<int> peers_of(const std::vector<fit::ScheduleOp>& ops);

class ScheduleRunner {
public:
    ScheduleRunner(Transport& transport, PeerLinks& links, int rank, const std::vector<fit::ScheduleOp>& ops)
            : transport_(transport), links_(links), rank_(rank), ops_(ops)
    {
    }

    // Buffers for the largest message: the data sent, the data received and
    // the rank's own values (doubles) the reductions add into.
    Status prepare();
    // This rank's operations, once.
    Status run();
    // Messages this rank sent in one run().
    uint64_t sends() const;

private:
    Status exchange(const fit::ScheduleOp& send, const fit::ScheduleOp& recv);
    Status run_one(const fit::ScheduleOp& op);
    void reduce(double bytes);

    Transport& transport_;
    PeerLinks& links_;
    int rank_;
    const std::vector<fit::ScheduleOp>& ops_;
    Buffer out_, in_;
    std::vector<double> own_;
};

} // namespace ngx::patterns::coll

#endif
