#!/bin/bash
# bad-input.sh: the bw pattern refuses what it cannot measure with exit 2
# and a message naming the reason: a window of 0, both ways over a module
# with only blocking calls (tcp, shm), put or get over a module without
# one-sided operations (tcp, udp), put both ways, a pair count of 0, more pairs than
# ranks, an empty message, a --bw-params file without a LogGP model, and the
# run's own fit (--bw-fit) together with --bw-params, over k pairs (4
# ranks) and over fewer than three sizes.
source "$(dirname "$0")/common.sh"
echo '{"not": "a model"}' >"$SCRATCH/nomodel.json"

# refused TEXT ARG...: ngx ARG... exits 2 and says TEXT on stderr
refused() { expect_ngx_usage "$*" "$@"; }

refused "bw-window '0': must be in 1.." -m sim -x bw -s 64 -c 2 --bw-window 0
refused "module tcp has only blocking calls" -m tcp -x bw -s 64 -c 2 --bw-direction bi --timeout 10
refused "module shm has only blocking calls" -m shm -x bw -s 64 -c 2 --bw-direction bi --timeout 10
refused "module tcp has no one-sided operations" -m tcp -x bw -s 64 -c 2 --bw-op put --timeout 10
refused "module udp has no one-sided operations" -m udp -x bw -s 64 -c 2 --bw-op get --timeout 10
refused "bw-op put is one way" -m sim -x bw -s 64 -c 2 --bw-op put --bw-direction bi
refused "bw-direction 'sideways'" -m sim -x bw -s 64 -c 2 --bw-direction sideways
refused "bw-pairs '0'" -m sim -x bw -s 64 -c 2 --bw-pairs 0
refused "2 pairs need 4 ranks, this run has 2" -m sim --sim-clock virtual -x bw -s 64 -c 2 --bw-pairs 2 --timeout 10
refused "s - 1" -m sim -x bw -s 0 -c 2
refused "bw-params $SCRATCH/nomodel.json" -m sim -x bw -s 64 -c 2 --bw-params "$SCRATCH/nomodel.json"
refused "bw-fit predicts from this run's own fit and --bw-params $SCRATCH/nomodel.json from a saved one" \
    -m sim -x bw -s 1,64,1Ki -c 2 --bw-fit --bw-params "$SCRATCH/nomodel.json"
refused "bw-fit measures its LogGP series between two ranks, this run has 4" \
    --pairs 2 -m sim --sim-clock virtual -x bw -s 1,64,1Ki -c 2 --bw-fit --timeout 10
refused "needs at least three message sizes, -s gives 2" -m sim --sim-clock virtual -x bw -s 1,64 -c 2 --bw-fit \
    --timeout 10
echo PASS
