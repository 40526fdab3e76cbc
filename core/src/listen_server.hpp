// The --listen server: it waits for clients (--connect), checks each one's
// command line against its own policy (--allow, --secret-file, --max-*,
// --pairs), and runs each accepted client's measurement in a process of its
// own, so that a client who stalls or breaks its run never ends the server.
//
//     return run_server(config, registry, patterns, guard, [&](const Config& agreed, LocalGroup group) {
//         return measure(agreed, std::move(group)); // the run's exit code
//     });
#ifndef NGX_LISTEN_SERVER_HPP
#define NGX_LISTEN_SERVER_HPP

#include "cli.hpp"
#include "interrupt.hpp"
#include "local_group.hpp"

#include <functional>

namespace ngx {

// Measures with the ranks launched for one accepted client (whose command
// line, checked, is `agreed`) and ends them; returns the run's exit code.
using ClientRun = std::function<int(const Config& agreed, LocalGroup group)>;

// --listen: serves --serve N good clients (0: forever), one after another,
// each wait for the next bounded by --accept-timeout. Each client's run goes
// on in a child process, so that a client who stalls or breaks its run ends
// that process (its deadline, the watchdog), never the server, which logs
// the run's exit code and waits for the next client. The exit code is the
// first failed run's, else 0; a wait that ends without a client fails.
int run_server(const Config& server, const ModuleRegistry& registry, const PatternCatalog& patterns,
               const InterruptGuard& guard, const ClientRun& run_client);

} // namespace ngx

#endif
