#!/bin/bash
# `ngx trace export --goal` through LogGOPSim (../shared/tools/loggopsim,
# built from its source by that folder's script, as the other LogGOPSim
# tests do): test_analyze.py --goal writes a two-rank trace, exports it,
# runs txt2bin and LogGOPSim and compares the simulated time with ngx's
# prediction. Skipped (77) when LogGOPSim cannot be built here, with the reason.
# Arguments: test_analyze.py, ngx.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/common.sh"
source "$here/../lib/shared-tools.sh"
tools=$(ngx_shared_tools)
[[ -f $tools/loggopsim/loggopsim.sh ]] || skip "no LogGOPSim script under $tools"
source "$tools/loggopsim/loggopsim.sh"
why=$(loggopsim_build 2>&1) || skip "LogGOPSim cannot be built here: $why"
NGX_PEERS_DIR=$NGX_PEERS_DIR exec python3 "$1" --goal "$2"
