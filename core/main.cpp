// ngx: measures what communication costs, module by module.
#include "app.hpp"

#include "commands.hpp"

#include <cstdio>
#include <iostream>

int main(int argc, char** argv)
{
    // A message to stderr leaves in one write per line: under mpirun, whose
    // ranks' stdout and stderr reach the terminal through separate pipes, an
    // unbuffered stderr would let a table line land inside a warning.
    std::setvbuf(stderr, nullptr, _IOLBF, 8192);
    std::cerr.unsetf(std::ios_base::unitbuf);
    return ngx::run_ngx(ngx::arguments_of(argc, argv), ngx::builtin_commands(), ngx::Environment::current());
}
