// The rooted two-party barrier (see rooted_barrier.hpp).
#include <ngx/measure/rooted_barrier.hpp>

namespace ngx::patterns {

Status rooted_barrier(Bootstrap& bootstrap, BarrierRoot root)
{
    if (bootstrap.nranks() > 2)
        NGX_TRY(bootstrap.barrier("rooted barrier: all ranks"));
    Bytes token;
    std::vector<Bytes> gathered;
    if (root == BarrierRoot::driver) {
        NGX_TRY(bootstrap.gather({}, gathered, "rooted barrier: arrivals")); // rank 0 waits for the arrivals
        return bootstrap.broadcast(token, "rooted barrier: release");        // and releases the others
    }
    NGX_TRY(bootstrap.broadcast(token, "rooted barrier: arrival"));   // the responder waits for rank 0's arrival
    return bootstrap.gather({}, gathered, "rooted barrier: release"); // rank 0 waits for the responder's release
}

std::vector<BarrierRoot> roots_of(RootChoice choice)
{
    switch (choice) {
    case RootChoice::driver:
        return {BarrierRoot::driver};
    case RootChoice::responder:
        return {BarrierRoot::responder};
    case RootChoice::both:
        break;
    }
    return {BarrierRoot::driver, BarrierRoot::responder};
}

std::string root_name(RootChoice choice)
{
    return choice == RootChoice::driver ? "driver" : choice == RootChoice::responder ? "responder" : "both";
}

} // namespace ngx::patterns
