// Reporting a failed Status on stderr (see error_output.hpp).
#include "error_output.hpp"

#include <iostream>

namespace ngx {

void print_error(const Status& status, const std::string& side, bool quiet)
{
    if (status.is_ok() || quiet)
        return;
    std::string who = side.empty() ? "ngx" : "ngx (" + side + ")";
    if (status.kind() == ErrorKind::interrupted)
        std::cerr << who << ": interrupted; results so far are kept\n";
    else
        std::cerr << who << ": " << status.message() << "\n";
}

} // namespace ngx
