// The optional parts of the build (see missing_features.hpp).
#include "missing_features.hpp"

#include "ngx_config.h"

namespace ngx {

std::string mpi_not_built()
{
    if (NGX_HAVE_MPI)
        return "";
    return "not built (" NGX_MPI_MISSING ": install libopenmpi-dev on Debian/Ubuntu or openmpi-devel on "
           "RHEL/Rocky, or load your site's MPI (module load openmpi, spack load openmpi) so that pkg-config or "
           "mpicxx finds it, then reconfigure with -Dmpi=enabled and rebuild)";
}

std::vector<MissingFeature> modules_not_built()
{
    std::vector<MissingFeature> missing;
    if (!NGX_HAVE_IBVERBS)
        missing.push_back({"ibv", "not built (" NGX_IBVERBS_MISSING ": install libibverbs-dev on "
                                  "Debian/Ubuntu or rdma-core-devel on RHEL/Rocky, or load your site's rdma-core, "
                                  "then reconfigure with -Dibverbs=enabled and rebuild)"});
    if (std::string mpi = mpi_not_built(); !mpi.empty())
        missing.push_back({"mpi", mpi});
    return missing;
}

} // namespace ngx
