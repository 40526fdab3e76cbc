// What this build of ngx left out because a library was missing when it was
// configured (MPI, libibverbs), and how to get it: `ngx --list-modules`
// prints it under "Not built:", `ngx trace` says it when it needs MPI.
//
//     for (const MissingFeature& feature : modules_not_built())
//         std::cout << feature.name << ": " << feature.how << "\n";
#ifndef NGX_MISSING_FEATURES_HPP
#define NGX_MISSING_FEATURES_HPP

#include <string>
#include <vector>

namespace ngx {

struct MissingFeature {
    std::string name; // the module's name (mpi, ibv)
    std::string how;  // what was missing, how to get it and rebuild
};

// The in-tree modules this build did not build, in name order.
std::vector<MissingFeature> modules_not_built();

// Empty when MPI was found at build time.
std::string mpi_not_built();

} // namespace ngx

#endif
