// ngx: measures what communication costs, module by module.
#include "app.hpp"

#include "commands.hpp"

int main(int argc, char** argv)
{
    return ngx::run_ngx(ngx::arguments_of(argc, argv), ngx::builtin_commands(), ngx::Environment::current());
}
