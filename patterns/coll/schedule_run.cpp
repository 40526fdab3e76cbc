// One rank's part of a collective schedule over send/recv (see schedule_run.hpp).
#include "schedule_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

namespace ngx::patterns::coll {

using Kind = fit::ScheduleOp::Kind;

size_t message_bytes(double bytes)
{
    return size_t(std::max(1.0, std::round(bytes)));
}

std::vector<int> peers_of(const std::vector<fit::ScheduleOp>& ops)
{
    std::set<int> peers;
    for (const fit::ScheduleOp& op : ops)
        if (op.kind != Kind::calc)
            peers.insert(op.peer);
    return {peers.begin(), peers.end()};
}

Status ScheduleRunner::prepare()
{
    size_t largest = 1;
    for (const fit::ScheduleOp& op : ops_)
        largest = std::max(largest, message_bytes(op.bytes));
    NGX_ASSIGN_OR_RETURN(Buffer out, transport_.alloc(largest));
    NGX_ASSIGN_OR_RETURN(Buffer in, transport_.alloc(largest));
    out_ = std::move(out);
    in_ = std::move(in);
    own_.assign(largest / sizeof(double) + 1, 1.0);
    for (size_t i = 0; i < largest / sizeof(double); ++i) {
        const double one = 1.0;
        std::memcpy(out_.data() + i * sizeof one, &one, sizeof one);
    }
    return Status::ok();
}

uint64_t ScheduleRunner::sends() const
{
    return uint64_t(
        std::count_if(ops_.begin(), ops_.end(), [](const fit::ScheduleOp& op) { return op.kind == Kind::send; }));
}

// One overlapped step of an exchange with one peer (fit's
// overlapped_exchange_at): isend + irecv, then both waits.
Status ScheduleRunner::exchange(const fit::ScheduleOp& send, const fit::ScheduleOp& recv)
{
    NGX_TRY(links_.use(send.peer));
    ngx_request sent = 0, received = 0;
    NGX_TRY(transport_.irecv(in_.data(), message_bytes(recv.bytes), received));
    NGX_TRY(transport_.isend(out_.data(), message_bytes(send.bytes), sent));
    NGX_TRY(transport_.wait(sent));
    return transport_.wait(received);
}

// The reduction of a received message into the rank's own values: the sum
// of doubles MPI_SUM on MPI_DOUBLE computes.
void ScheduleRunner::reduce(double bytes)
{
    const size_t n = std::min(message_bytes(bytes), in_.size()) / sizeof(double);
    const uint8_t* in = in_.data();
    for (size_t i = 0; i < n; ++i) {
        double v = 0;
        std::memcpy(&v, in + i * sizeof v, sizeof v);
        own_[i] += v;
    }
}

Status ScheduleRunner::run_one(const fit::ScheduleOp& op)
{
    switch (op.kind) {
    case Kind::send:
        NGX_TRY(links_.use(op.peer));
        return transport_.send(out_.data(), message_bytes(op.bytes));
    case Kind::recv:
        NGX_TRY(links_.use(op.peer));
        return transport_.recv(in_.data(), message_bytes(op.bytes));
    case Kind::calc:
        reduce(op.bytes);
        return Status::ok();
    }
    return Status::ok();
}

Status ScheduleRunner::run()
{
    const bool nonblocking = transport_.has(NGX_CAP_NONBLOCKING);
    for (size_t i = 0; i < ops_.size(); ++i) {
        if (fit::overlapped_exchange_at(ops_, i, nonblocking)) {
            NGX_TRY(exchange(ops_[i], ops_[i + 1]));
            ++i;
        } else if (fit::receives_first_at(ops_, i, rank_, nonblocking)) {
            NGX_TRY(run_one(ops_[i + 1]));
            NGX_TRY(run_one(ops_[i]));
            ++i;
        } else {
            NGX_TRY(run_one(ops_[i]));
        }
    }
    return Status::ok();
}

} // namespace ngx::patterns::coll
