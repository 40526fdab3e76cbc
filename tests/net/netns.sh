# netns.sh: a sourceable bash library that builds throw-away test networks
# out of Linux network namespaces, for ngx's net, integration and fault tests.
#
# A "pair" is two namespaces (two hosts) joined either by a veth pair or
# through the ngx-netdelay TUN relay (fixed one-way delay, optional random
# loss). Names are unique per test run (the script's pid is in them), so
# meson can run tests in parallel; addresses are private 10.77.N.0/24 (veth)
# and 10.78.N.0/24 (relay) subnets that exist only inside the namespaces.
# Everything is removed at exit, also after a failure.
#
#     source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
#     netns_require tun probe           # exit 77 with a reason if unavailable
#     netns_init                        # unique names + EXIT trap -> netns_cleanup
#     netns_relay_pair p 100            # hosts $(netns_get p ns_a) / ns_b, 100 us each way
#     netns_bg "$(netns_get p ns_b)" "$NETNS_DIR/srv.log" "$NETNS_NETPROBE" rtt-server \
#         --addr "$(netns_get p ip_b)" --port 7000
#     netns_exec "$(netns_get p ns_a)" "$NETNS_NETPROBE" rtt-client --addr "$(netns_get p ip_b)" --port 7000
#
# Functions (each returns non-zero with a message on stderr when it fails;
# setup functions are idempotent; callers may use set -eu):
#   netns_require [tun] [tbf] [probe] [mpi]
#                        exit 77 (meson "skipped") with a reason unless we are
#                        root and may create namespaces; the words add needs:
#                        tun = /dev/net/tun and ngx-netdelay, tbf = the tbf
#                        qdisc, probe = ngx-netprobe, mpi = mpirun + unshare
#   netns_init           start a run: NETNS_RUN_ID, scratch dir NETNS_DIR,
#                        `trap netns_cleanup EXIT`, and INT/TERM traps that
#                        clean up and exit 130/143 (set NETNS_NO_TRAP=1 to
#                        install your own traps that call netns_cleanup)
#   netns_veth_pair PAIR two namespaces joined by a veth pair, lo up
#   netns_relay_pair PAIR DELAY_US [DROP [RELAY_OPTION...]]
#                        two namespaces joined through ngx-netdelay (started in
#                        the background with --max-seconds NETNS_RELAY_SECONDS,
#                        default 300, stopped at cleanup); DROP is a probability
#                        in [0, 1]; e.g. `netns_relay_pair p 0 0.05 --seed 7
#                        --drop-proto udp` loses UDP only, so a TCP bootstrap
#                        is spared. The relay moves about 1 Gbit/s at MTU 1500
#                        and about 10 at MTU 65000 (netns_mtu p 65000).
#   netns_get PAIR KEY   kind (veth|relay), ns_a, ns_b, dev_a, dev_b, ip_a, ip_b,
#                        subnet (CIDR), relay_pid, relay_log
#   netns_tbf PAIR RATE BURST LATENCY [a|b|both]
#                        tbf rate limit on the pair's devices (default both
#                        directions), e.g. netns_tbf p 100mbit 4kb 10ms.
#                        Keep the bucket (BURST) a few KiB: an emulated NIC
#                        must not burst. After an idle moment tbf sends a
#                        full bucket at the veth's speed, so with a large one
#                        a lone message crosses nearly free while a stream
#                        pays the rate: a ping-pong fit then underestimates
#                        G (and L, o) for the streams an application sends.
#                        4 KiB holds two 1514-byte frames.
#   netns_tbf_clear PAIR [a|b|both]
#   netns_link_down PAIR [a|b|both] / netns_link_up PAIR [a|b|both]
#                        take a device down or up mid-run (fault tests)
#   netns_exec NS CMD... run CMD inside namespace NS, bounded by
#                        NETNS_CMD_TIMEOUT seconds (default 120)
#   netns_exec_host NS CMD...
#                        the same with a private UTS namespace whose hostname
#                        is NS, so each namespace looks like its own node
#   netns_bg NS LOG CMD...
#                        start CMD in NS in the background, output to LOG;
#                        sets NETNS_BG_PID; killed at cleanup if still running
#   netns_wait_bg PID [SECONDS]
#                        wait for a netns_bg job; returns its exit status
#                        (124 and the job killed if it outlives SECONDS)
#   netns_wait_file FILE [SECONDS]
#                        wait until FILE exists (e.g. a server's --ready-file)
#   netns_mpirun_args PAIR
#                        the mpirun arguments for one rank per namespace, one
#                        per line: mapfile -t args < <(netns_mpirun_args p)
#   netns_mpirun PAIR [MPIRUN_OPTION...] -- PROGRAM [ARG...]
#                        run mpirun with those arguments inside ns_a, bounded
#                        by NETNS_MPI_TIMEOUT seconds (default 60)
#   netns_probe PAIR rtt|stream|udp [CLIENT_OPTION...]
#                        run ngx-netprobe's server in ns_b and its client in
#                        ns_a (e.g. --iters 1000, --seconds 2, --count 2000),
#                        print the result line (the client's; the server's
#                        for udp); each run has NETNS_PROBE_TIMEOUT seconds
#   netns_mtu PAIR MTU   set the MTU of both devices of the pair
#   netns_cluster NAME N [RATE [SLOW_NODE SLOW_RATE]]
#                        an emulated cluster: N namespaces (nodes 0..N-1) with
#                        one NIC each on a Linux bridge that lives in a
#                        namespace of its own (a full-bisection switch);
#                        private 10.79.S.(i+1)/24; each NIC limited by tbf to
#                        RATE on both ends (node side and switch port), node
#                        SLOW_NODE to SLOW_RATE; no RATE (or "none"): no limit
#   netns_cluster_switches NAME NA NB RATE UPLINK_RATE
#                        a cluster on two switches joined by one uplink:
#                        nodes 0..NA-1 on switch 0, NA..NA+NB-1 on switch 1
#                        (each switch a bridge in a namespace of its own,
#                        one subnet across both), every NIC at RATE, the
#                        uplink (a veth between the two bridges) at
#                        UPLINK_RATE each way, tbf on both of its ends; a
#                        2:1 oversubscribed uplink has half of the smaller
#                        side's NIC rates (2 + 2 nodes: one NIC's rate)
#   netns_cluster_get NAME KEY
#                        nodes (N), subnet, ns_I and ip_I (node I), hosts
#                        (comma-separated ip:1 list for mpirun), port_I (the
#                        namespace of node I's switch port p<I>), switch
#                        (one switch: its namespace); on two
#                        switches also switch_I (0 or 1, node I's switch),
#                        switches (the node's switch per node, "0,0,1,1")
#                        and uplink (its rate)
#   netns_cluster_pair NAME I J PAIR
#                        a pair view of nodes I (side a) and J (side b), so
#                        that netns_probe, netns_link_down etc. work on it
#   netns_cluster_rate NAME NODE RATE
#                        change one node's NIC rate (both ends) mid-test
#   netns_cluster_mpirun NAME NP [MPIRUN_OPTION...] -- PROGRAM [ARG...]
#                        mpirun with NP ranks placed round-robin over the
#                        nodes (rank r on node r mod N), launched inside
#                        node 0, each node with its namespace's host name;
#                        NETNS_CLUSTER_NODES="0,2,3" places them over those
#                        nodes instead (rank r on the (r mod 3)-th listed),
#                        launched inside the first
#   netns_kv "LINE" KEY  the value of a key=value word (ngx-netprobe output)
#   netns_cleanup        stop jobs and relays, kill what is left inside our
#                        namespaces, delete them and the scratch dir
#   netns_sweep_stale    delete namespaces left by runs whose process is gone
#
# Tools: NETNS_NETDELAY and NETNS_NETPROBE (from $NGX_NETDELAY/$NGX_NETPROBE,
# else $NGX_BUILD_ROOT/tools/netdelay/, else PATH) and NETNS_NSRSH (the fake
# rsh agent next to this file).

# Sourcing twice in one shell keeps the state of the first time.
[[ -n ${_NETNS_SOURCED:-} ]] && return 0
_NETNS_SOURCED=1

NETNS_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NETNS_NSRSH=${NETNS_NSRSH:-$NETNS_LIB_DIR/nsrsh}
NETNS_CMD_TIMEOUT=${NETNS_CMD_TIMEOUT:-120}
NETNS_BG_TIMEOUT=${NETNS_BG_TIMEOUT:-300}
NETNS_RELAY_SECONDS=${NETNS_RELAY_SECONDS:-300}
NETNS_MPI_TIMEOUT=${NETNS_MPI_TIMEOUT:-60}
NETNS_IPV6=${NETNS_IPV6:-0}
NETNS_PROBE_TIMEOUT=${NETNS_PROBE_TIMEOUT:-30}
NETNS_NEXT_PORT=7100

declare -gA NETNS_INFO=()
declare -ga NETNS_PAIRS=() NETNS_NAMESPACES=() NETNS_JOBS=() NETNS_RELAYS=()
# Run state: never inherited from the environment (a child script is a new run).
NETNS_RUN_ID=
NETNS_DIR=
NETNS_NEXT_SUBNET=0
NETNS_BG_PID=

_netns_err() { echo "netns: $*" >&2; }

_netns_find_tool() {  # NAME ENVVAR -> path or empty
    local name=$1 env=$2 p
    p=${!env:-}
    if [[ -n $p && -x $p ]]; then echo "$p"; return; fi
    if [[ -n ${NGX_BUILD_ROOT:-} && -x $NGX_BUILD_ROOT/tools/netdelay/$name ]]; then
        echo "$NGX_BUILD_ROOT/tools/netdelay/$name"; return
    fi
    command -v "$name" 2>/dev/null || true
}
NETNS_NETDELAY=${NETNS_NETDELAY:-$(_netns_find_tool ngx-netdelay NGX_NETDELAY)}
NETNS_NETPROBE=${NETNS_NETPROBE:-$(_netns_find_tool ngx-netprobe NGX_NETPROBE)}

_netns_skip() { echo "SKIP: $*"; exit 77; }

netns_require() {
    [[ $(id -u) == 0 ]] || _netns_skip "network namespaces need root"
    local tool
    for tool in ip timeout; do
        command -v "$tool" >/dev/null || _netns_skip "'$tool' is not installed"
    done
    local probe="ngxprobe$$" out
    ip netns del "$probe" 2>/dev/null
    if ! out=$(ip netns add "$probe" 2>&1); then
        _netns_skip "cannot create a network namespace: $out"
    fi
    local want
    for want in "$@"; do
        case $want in
        tun)
            [[ -c /dev/net/tun ]] || { ip netns del "$probe"; _netns_skip "/dev/net/tun is missing"; }
            [[ -n $NETNS_NETDELAY ]] || { ip netns del "$probe"; _netns_skip "ngx-netdelay not found (build it or set NGX_NETDELAY)"; } ;;
        probe)
            [[ -n $NETNS_NETPROBE ]] || { ip netns del "$probe"; _netns_skip "ngx-netprobe not found (build it or set NGX_NETPROBE)"; } ;;
        tbf)
            command -v tc >/dev/null || { ip netns del "$probe"; _netns_skip "'tc' is not installed"; }
            ip -n "$probe" link set lo up
            if ! out=$(tc -n "$probe" qdisc add dev lo root tbf rate 10mbit burst 10kb latency 10ms 2>&1); then
                ip netns del "$probe"; _netns_skip "the tbf qdisc is unavailable: $out"
            fi ;;
        mpi)
            command -v mpirun >/dev/null || { ip netns del "$probe"; _netns_skip "mpirun is not installed"; }
            command -v unshare >/dev/null || { ip netns del "$probe"; _netns_skip "'unshare' is not installed"; } ;;
        *) ip netns del "$probe"; _netns_err "netns_require: unknown need '$want'"; exit 99 ;;
        esac
    done
    ip netns del "$probe"
    return 0
}

netns_init() {
    [[ -n $NETNS_RUN_ID && -n $NETNS_DIR && -d $NETNS_DIR ]] && return 0
    NETNS_RUN_ID="ngx$$"
    NETNS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ngx-netns.XXXXXX") || { _netns_err "mktemp failed"; return 1; }
    if [[ ${NETNS_NO_TRAP:-0} != 1 ]]; then
        trap netns_cleanup EXIT
        trap '_netns_on_signal 130' INT
        trap '_netns_on_signal 143' TERM
    fi
    # Leftovers of an earlier run that had our pid cannot be in use.
    local ns
    for ns in $(ip netns list | awk '{print $1}'); do
        [[ $ns == "$NETNS_RUN_ID"-* ]] && ip netns del "$ns" 2>/dev/null
    done
    return 0
}

_netns_on_signal() {  # STATUS: clean up outside the EXIT trap, then exit
    trap - EXIT INT TERM
    netns_cleanup
    exit "$1"
}

_netns_check_pair_name() {
    [[ $1 =~ ^[A-Za-z0-9_]{1,16}$ ]] || { _netns_err "bad pair name '$1' (1-16 of [A-Za-z0-9_])"; return 1; }
    [[ -n $NETNS_RUN_ID ]] || { _netns_err "call netns_init first"; return 1; }
}

_netns_add_ns() {  # NAME: fresh namespace with lo up
    local ns=$1 out
    if ! out=$(ip netns add "$ns" 2>&1); then _netns_err "ip netns add $ns: $out"; return 1; fi
    NETNS_NAMESPACES+=("$ns")
    ip -n "$ns" link set lo up
}

_netns_no_ipv6() {  # NS DEV: no link-local IPv6 noise on test links
    [[ $NETNS_IPV6 == 1 ]] && return 0
    ip netns exec "$1" sh -c "echo 1 > /proc/sys/net/ipv6/conf/$2/disable_ipv6" 2>/dev/null || true
}

_netns_record() {  # PAIR KIND NS_A NS_B DEV_A DEV_B NET(a.b.c)
    local p=$1
    NETNS_INFO[$p.kind]=$2
    NETNS_INFO[$p.ns_a]=$3
    NETNS_INFO[$p.ns_b]=$4
    NETNS_INFO[$p.dev_a]=$5
    NETNS_INFO[$p.dev_b]=$6
    NETNS_INFO[$p.ip_a]=$7.1
    NETNS_INFO[$p.ip_b]=$7.2
    NETNS_INFO[$p.subnet]=$7.0/24
    NETNS_PAIRS+=("$p")
}

netns_get() {
    local key="$1.$2"
    if [[ -z ${NETNS_INFO[$key]+set} ]]; then _netns_err "netns_get: no '$2' for pair '$1'"; return 1; fi
    echo "${NETNS_INFO[$key]}"
}

netns_veth_pair() {
    local p=$1
    _netns_check_pair_name "$p" || return 1
    if [[ -n ${NETNS_INFO[$p.kind]:-} ]]; then
        [[ ${NETNS_INFO[$p.kind]} == veth ]] && return 0
        _netns_err "pair '$p' already exists as a ${NETNS_INFO[$p.kind]} pair"; return 1
    fi
    local a="$NETNS_RUN_ID-$p-a" b="$NETNS_RUN_ID-$p-b" net out
    net="10.77.$NETNS_NEXT_SUBNET"
    NETNS_NEXT_SUBNET=$((NETNS_NEXT_SUBNET + 1))
    _netns_add_ns "$a" && _netns_add_ns "$b" || return 1
    # Created directly inside the namespaces: no name clash in the root one.
    if ! out=$(ip link add veth-a netns "$a" type veth peer name veth-b netns "$b" 2>&1); then
        _netns_err "veth pair for '$p': $out"; return 1
    fi
    _netns_no_ipv6 "$a" veth-a
    _netns_no_ipv6 "$b" veth-b
    ip -n "$a" addr add "$net.1/24" dev veth-a &&
        ip -n "$b" addr add "$net.2/24" dev veth-b &&
        ip -n "$a" link set veth-a up &&
        ip -n "$b" link set veth-b up || { _netns_err "configuring veth for '$p' failed"; return 1; }
    _netns_record "$p" veth "$a" "$b" veth-a veth-b "$net"
}

netns_relay_pair() {
    local p=$1 delay=${2:-} drop=${3:-0}
    shift 3 2>/dev/null || shift $#
    _netns_check_pair_name "$p" || return 1
    if [[ -n ${NETNS_INFO[$p.kind]:-} ]]; then
        [[ ${NETNS_INFO[$p.kind]} == relay ]] && return 0
        _netns_err "pair '$p' already exists as a ${NETNS_INFO[$p.kind]} pair"; return 1
    fi
    [[ $delay =~ ^[0-9]+$ ]] || { _netns_err "netns_relay_pair: delay '$delay' is not a whole number of us"; return 1; }
    [[ -n $NETNS_NETDELAY ]] || { _netns_err "ngx-netdelay not found"; return 1; }
    local a="$NETNS_RUN_ID-$p-a" b="$NETNS_RUN_ID-$p-b" net
    net="10.78.$NETNS_NEXT_SUBNET"
    NETNS_NEXT_SUBNET=$((NETNS_NEXT_SUBNET + 1))
    _netns_add_ns "$a" && _netns_add_ns "$b" || return 1
    local ready="$NETNS_DIR/relay-$p.ready" log="$NETNS_DIR/relay-$p.log"
    rm -f "$ready"
    "$NETNS_NETDELAY" --ns-a "$a" --dev-a tun-a --ns-b "$b" --dev-b tun-b --delay-us "$delay" \
        --drop "$drop" --max-seconds "$NETNS_RELAY_SECONDS" --ready-file "$ready" "$@" \
        </dev/null >"$log" 2>&1 &
    local pid=$!
    NETNS_RELAYS+=("$pid")
    NETNS_INFO[$p.relay_pid]=$pid
    NETNS_INFO[$p.relay_log]=$log
    local i
    for ((i = 0; i < 200; i++)); do  # up to 10 s
        [[ -e $ready ]] && break
        if ! kill -0 "$pid" 2>/dev/null; then
            _netns_err "ngx-netdelay for '$p' exited early:"; cat "$log" >&2; return 1
        fi
        sleep 0.05
    done
    [[ -e $ready ]] || { _netns_err "ngx-netdelay for '$p' did not become ready"; cat "$log" >&2; return 1; }
    _netns_no_ipv6 "$a" tun-a
    _netns_no_ipv6 "$b" tun-b
    # A long TUN queue rides out the relay losing its CPU for a few ms.
    ip -n "$a" link set tun-a txqueuelen "${NETNS_TUN_QLEN:-10000}" &&
        ip -n "$b" link set tun-b txqueuelen "${NETNS_TUN_QLEN:-10000}" &&
        ip -n "$a" addr add "$net.1/24" dev tun-a &&
        ip -n "$b" addr add "$net.2/24" dev tun-b &&
        ip -n "$a" link set tun-a up &&
        ip -n "$b" link set tun-b up || { _netns_err "configuring the relay link for '$p' failed"; return 1; }
    _netns_record "$p" relay "$a" "$b" tun-a tun-b "$net"
}

_netns_sides() {  # PAIR a|b|both -> "NS DEV" lines
    local p=$1 side=${2:-both}
    [[ -n ${NETNS_INFO[$p.kind]:-} ]] || { _netns_err "no pair '$p'"; return 1; }
    case $side in
    a) echo "${NETNS_INFO[$p.ns_a]} ${NETNS_INFO[$p.dev_a]}" ;;
    b) echo "${NETNS_INFO[$p.ns_b]} ${NETNS_INFO[$p.dev_b]}" ;;
    both) echo "${NETNS_INFO[$p.ns_a]} ${NETNS_INFO[$p.dev_a]}"
          echo "${NETNS_INFO[$p.ns_b]} ${NETNS_INFO[$p.dev_b]}" ;;
    *) _netns_err "side must be a, b or both, not '$side'"; return 1 ;;
    esac
}

netns_tbf() {
    local p=$1 rate=$2 burst=$3 latency=$4 side=${5:-both} sides ns dev out
    [[ -n $rate && -n $burst && -n $latency ]] || { _netns_err "usage: netns_tbf PAIR RATE BURST LATENCY [a|b|both]"; return 1; }
    sides=$(_netns_sides "$p" "$side") || return 1
    while read -r ns dev; do
        if ! out=$(tc -n "$ns" qdisc replace dev "$dev" root tbf rate "$rate" burst "$burst" latency "$latency" 2>&1); then
            _netns_err "tbf on $ns/$dev: $out"; return 1
        fi
    done <<<"$sides"
}

netns_tbf_clear() {
    local sides ns dev
    sides=$(_netns_sides "$1" "${2:-both}") || return 1
    while read -r ns dev; do
        tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null || true
    done <<<"$sides"
}

_netns_link() {  # up|down PAIR SIDE
    local state=$1 sides ns dev
    sides=$(_netns_sides "$2" "${3:-both}") || return 1
    while read -r ns dev; do
        ip -n "$ns" link set "$dev" "$state" || { _netns_err "link $state $ns/$dev failed"; return 1; }
    done <<<"$sides"
}
netns_link_down() { _netns_link down "$@"; }
netns_link_up() { _netns_link up "$@"; }

netns_exec() {
    local ns=$1
    shift
    ip netns exec "$ns" timeout -k 5 "$NETNS_CMD_TIMEOUT" "$@"
}

netns_exec_host() {
    local ns=$1
    shift
    ip netns exec "$ns" timeout -k 5 "$NETNS_CMD_TIMEOUT" \
        unshare --uts sh -c 'hostname "$0" && exec "$@"' "$ns" "$@"
}

netns_bg() {
    local ns=$1 log=$2
    shift 2
    ip netns exec "$ns" timeout -k 5 "$NETNS_BG_TIMEOUT" "$@" </dev/null >"$log" 2>&1 &
    NETNS_BG_PID=$!
    NETNS_JOBS+=("$NETNS_BG_PID")
}

netns_wait_bg() {
    local -
    set +e
    local pid=$1 secs=${2:-$NETNS_CMD_TIMEOUT} i n
    n=$(awk -v s="$secs" 'BEGIN { printf "%d", s * 20 }')
    for ((i = 0; i < n; i++)); do
        _netns_is_child "$pid" || break
        sleep 0.05
    done
    if _netns_is_child "$pid"; then
        _netns_err "job $pid still running after $secs s: killing it"
        _netns_stop_pid "$pid"
        return 124
    fi
    _netns_forget "$pid"
    wait "$pid"
}

netns_wait_file() {
    local file=$1 secs=${2:-10} i n
    n=$(awk -v s="$secs" 'BEGIN { printf "%d", s * 50 }')
    for ((i = 0; i < n; i++)); do
        [[ -e $file ]] && return 0
        sleep 0.02
    done
    _netns_err "$file did not appear within $secs s"
    return 1
}

netns_mpirun_args() {
    local p=$1
    [[ -n ${NETNS_INFO[$p.kind]:-} ]] || { _netns_err "no pair '$p'"; return 1; }
    local subnet=${NETNS_INFO[$p.subnet]}
    [[ $(id -u) == 0 ]] && echo --allow-run-as-root
    printf '%s\n' -np 2 --host "${NETNS_INFO[$p.ip_a]}:1,${NETNS_INFO[$p.ip_b]}:1" --bind-to none \
        --mca plm_rsh_agent "$NETNS_NSRSH --ns ${NETNS_INFO[$p.ns_a]},${NETNS_INFO[$p.ns_b]}" \
        --mca btl self,tcp --mca btl_tcp_if_include "$subnet" --mca oob_tcp_if_include "$subnet" \
        --mca btl_tcp_disable_family 6
    # Busy-polling ranks on 2 cores would starve the relay threads.
    [[ ${NETNS_INFO[$p.kind]} == relay ]] && printf '%s\n' --mca mpi_yield_when_idle 1
    return 0
}

netns_mpirun() {
    local p=$1
    shift
    local -a args extra=()
    mapfile -t args < <(netns_mpirun_args "$p") || return 1
    [[ ${#args[@]} -gt 0 ]] || return 1
    while [[ $# -gt 0 && $1 != -- ]]; do extra+=("$1"); shift; done
    [[ ${1:-} == -- ]] && shift
    [[ $# -gt 0 ]] || { _netns_err "usage: netns_mpirun PAIR [MPIRUN_OPTION...] -- PROGRAM [ARG...]"; return 1; }
    NETNS_CMD_TIMEOUT=$NETNS_MPI_TIMEOUT netns_exec_host "${NETNS_INFO[$p.ns_a]}" \
        mpirun "${args[@]}" "${extra[@]}" "$@"
}

netns_probe() {
    local -
    set +e
    local p=$1 kind=${2:-}
    shift 2 2>/dev/null || { _netns_err "usage: netns_probe PAIR rtt|stream|udp [CLIENT_OPTION...]"; return 1; }
    case $kind in rtt|stream|udp) ;; *) _netns_err "netns_probe: unknown kind '$kind'"; return 1 ;; esac
    [[ -n $NETNS_NETPROBE ]] || { _netns_err "ngx-netprobe not found"; return 1; }
    [[ -n ${NETNS_INFO[$p.kind]:-} ]] || { _netns_err "no pair '$p'"; return 1; }
    local a=${NETNS_INFO[$p.ns_a]} b=${NETNS_INFO[$p.ns_b]} ip=${NETNS_INFO[$p.ip_b]}
    local port=$NETNS_NEXT_PORT
    NETNS_NEXT_PORT=$((NETNS_NEXT_PORT + 1))
    local ready="$NETNS_DIR/probe-$port.ready" log="$NETNS_DIR/probe-$port.log"
    local -a server=(--addr "$ip" --port "$port" --ready-file "$ready" --timeout "$NETNS_PROBE_TIMEOUT")
    local i
    for ((i = 1; i < $#; i++)); do  # the server must expect as many datagrams as are sent
        [[ ${!i} == --count ]] && { local j=$((i + 1)); server+=(--count "${!j}"); }
    done
    netns_bg "$b" "$log" "$NETNS_NETPROBE" "$kind-server" "${server[@]}"
    local spid=$NETNS_BG_PID out rc src
    netns_wait_file "$ready" 10 || { cat "$log" >&2; _netns_stop_pid "$spid"; return 1; }
    out=$(NETNS_CMD_TIMEOUT=$((NETNS_PROBE_TIMEOUT + 5)) netns_exec "$a" "$NETNS_NETPROBE" "$kind-client" \
        --addr "$ip" --port "$port" --timeout "$NETNS_PROBE_TIMEOUT" "$@")
    rc=$?
    [[ $rc == 0 ]] || _netns_stop_pid "$spid"  # a failed client: do not wait for the server
    netns_wait_bg "$spid" "$((NETNS_PROBE_TIMEOUT + 5))"
    src=$?
    if [[ $rc != 0 || $src != 0 ]]; then
        _netns_err "netns_probe $kind on '$p': client status $rc, server status $src"
        cat "$log" >&2
        [[ $rc != 0 ]] && return "$rc"
        return "$src"
    fi
    if [[ $kind == udp ]]; then cat "$log"; else echo "$out"; fi
}

netns_mtu() {
    local sides ns dev
    [[ ${2:-} =~ ^[0-9]+$ ]] || { _netns_err "usage: netns_mtu PAIR MTU"; return 1; }
    sides=$(_netns_sides "$1" both) || return 1
    while read -r ns dev; do
        ip -n "$ns" link set "$dev" mtu "$2" || { _netns_err "mtu $2 on $ns/$dev failed"; return 1; }
    done <<<"$sides"
}

netns_kv() {
    local w
    for w in $1; do
        if [[ $w == "$2="* ]]; then echo "${w#*=}"; return 0; fi
    done
    _netns_err "no '$2=' in: $1"
    return 1
}

# --- Emulated clusters: N nodes on one bridge -----------------------------

# The bucket is NETNS_CLUSTER_BURST (default 4 KiB: a NIC that does not
# burst; see netns_tbf above). NETNS_CLUSTER_PEAK=1 also gives tbf a peak
# rate 1% above the rate (with a bucket of one 1514-byte frame), so that
# not even the bucket's few KiB cross faster than the rate after an idle
# moment: with 4 KiB messages at 30 Mbit/s, a full 4 KiB bucket alone makes
# a message up to half as long (docs/collectives.md, "On an emulated cluster").
_netns_cluster_tbf() {  # NS DEV RATE: limit one end of a node's NIC
    local out peak=()
    [[ -z $3 || $3 == none ]] && { tc -n "$1" qdisc del dev "$2" root 2>/dev/null; return 0; }
    if [[ ${NETNS_CLUSTER_PEAK:-0} == 1 ]]; then
        [[ $3 =~ ^([0-9]+)(kbit|mbit|gbit)$ ]] || { _netns_err "NETNS_CLUSTER_PEAK: rate '$3' is not N kbit|mbit|gbit"; return 1; }
        local -A lower=([kbit]=bit [mbit]=kbit [gbit]=mbit)  # 1.01 x the rate, in the unit below
        peak=(peakrate "$((BASH_REMATCH[1] * 1010))${lower[${BASH_REMATCH[2]}]}" mtu 1514)
    fi
    if ! out=$(tc -n "$1" qdisc replace dev "$2" root tbf rate "$3" \
        burst "${NETNS_CLUSTER_BURST:-4kb}" "${peak[@]}" latency "${NETNS_CLUSTER_LATENCY:-200ms}" 2>&1); then
        _netns_err "tbf $3 on $1/$2: $out"; return 1
    fi
}

netns_cluster() {
    local c=$1 n=${2:-} rate=${3:-} slow=${4:--1} slow_rate=${5:-}
    _netns_check_pair_name "$c" || return 1
    [[ -z ${NETNS_INFO[$c.kind]:-} ]] || { _netns_err "'$c' already exists"; return 1; }
    [[ $n =~ ^[0-9]+$ && $n -ge 2 && $n -le 64 ]] ||
        { _netns_err "netns_cluster: node count '$n' is not a whole number in 2..64"; return 1; }
    [[ $slow == -1 || ($slow =~ ^[0-9]+$ && $slow -lt $n && -n $slow_rate) ]] ||
        { _netns_err "netns_cluster: slow node '$slow' needs a node index below $n and a rate"; return 1; }
    local net="10.79.$NETNS_NEXT_SUBNET" br="$NETNS_RUN_ID-$c-sw" i r
    NETNS_NEXT_SUBNET=$((NETNS_NEXT_SUBNET + 1))
    _netns_cluster_bridge "$c" "$br" || return 1
    for ((i = 0; i < n; i++)); do
        r=$rate
        [[ $i == "$slow" ]] && r=$slow_rate
        _netns_cluster_node "$c" "$i" "$net" "$br" "$r" || return 1
    done
    _netns_cluster_record "$c" "$n" "$net"
    NETNS_INFO[$c.switch]=$br
}

_netns_cluster_bridge() {  # C NS: a bridge br0 in a fresh namespace NS
    _netns_add_ns "$2" || return 1
    ip -n "$2" link add br0 type bridge && ip -n "$2" link set br0 up ||
        { _netns_err "bridge for '$1' failed"; return 1; }
}

_netns_cluster_node() {  # C I NET BRIDGE_NS RATE: node I's namespace and NIC on the bridge
    local c=$1 i=$2 net=$3 br=$4 rate=$5 ns="$NETNS_RUN_ID-$1-n$2" out
    _netns_add_ns "$ns" || return 1
    if ! out=$(ip link add eth0 netns "$ns" type veth peer name "p$i" netns "$br" 2>&1); then
        _netns_err "NIC of node $i of '$c': $out"; return 1
    fi
    _netns_no_ipv6 "$ns" eth0
    _netns_no_ipv6 "$br" "p$i"
    ip -n "$br" link set "p$i" master br0 && ip -n "$br" link set "p$i" up &&
        ip -n "$ns" addr add "$net.$((i + 1))/24" dev eth0 && ip -n "$ns" link set eth0 up ||
        { _netns_err "configuring node $i of '$c' failed"; return 1; }
    _netns_cluster_tbf "$ns" eth0 "$rate" && _netns_cluster_tbf "$br" "p$i" "$rate" || return 1
    NETNS_INFO[$c.ns_$i]=$ns
    NETNS_INFO[$c.ip_$i]=$net.$((i + 1))
    NETNS_INFO[$c.port_$i]=$br
}

_netns_cluster_record() {  # C N NET
    local c=$1 n=$2 net=$3 i hosts=
    NETNS_INFO[$c.kind]=cluster
    NETNS_INFO[$c.nodes]=$n
    NETNS_INFO[$c.subnet]=$net.0/24
    for ((i = 0; i < n; i++)); do hosts+="${hosts:+,}$net.$((i + 1)):1"; done
    NETNS_INFO[$c.hosts]=$hosts
}

netns_cluster_switches() {
    local c=$1 na=${2:-} nb=${3:-} rate=${4:-} uplink=${5:-}
    _netns_check_pair_name "$c" || return 1
    [[ -z ${NETNS_INFO[$c.kind]:-} ]] || { _netns_err "'$c' already exists"; return 1; }
    [[ $na =~ ^[0-9]+$ && $nb =~ ^[0-9]+$ && $na -ge 1 && $nb -ge 1 && $((na + nb)) -le 64 ]] ||
        { _netns_err "netns_cluster_switches: node counts '$na' and '$nb' must be whole numbers >= 1, 64 at most together"; return 1; }
    [[ -n $rate && -n $uplink && $uplink != none ]] ||
        { _netns_err "usage: netns_cluster_switches NAME NA NB RATE UPLINK_RATE (the uplink needs a rate)"; return 1; }
    local net="10.79.$NETNS_NEXT_SUBNET" sw0="$NETNS_RUN_ID-$c-sw0" sw1="$NETNS_RUN_ID-$c-sw1" i out list=
    NETNS_NEXT_SUBNET=$((NETNS_NEXT_SUBNET + 1))
    _netns_cluster_bridge "$c" "$sw0" && _netns_cluster_bridge "$c" "$sw1" || return 1
    if ! out=$(ip link add up0 netns "$sw0" type veth peer name up1 netns "$sw1" 2>&1); then
        _netns_err "uplink of '$c': $out"; return 1
    fi
    _netns_no_ipv6 "$sw0" up0
    _netns_no_ipv6 "$sw1" up1
    ip -n "$sw0" link set up0 master br0 && ip -n "$sw0" link set up0 up &&
        ip -n "$sw1" link set up1 master br0 && ip -n "$sw1" link set up1 up ||
        { _netns_err "configuring the uplink of '$c' failed"; return 1; }
    _netns_cluster_tbf "$sw0" up0 "$uplink" && _netns_cluster_tbf "$sw1" up1 "$uplink" || return 1
    for ((i = 0; i < na + nb; i++)); do
        local s=$((i < na ? 0 : 1)) sw=$sw0
        [[ $s == 1 ]] && sw=$sw1
        _netns_cluster_node "$c" "$i" "$net" "$sw" "$rate" || return 1
        NETNS_INFO[$c.switch_$i]=$s
        list+="${list:+,}$s"
    done
    _netns_cluster_record "$c" $((na + nb)) "$net"
    NETNS_INFO[$c.switches]=$list
    NETNS_INFO[$c.uplink]=$uplink
}

netns_cluster_get() {
    [[ ${NETNS_INFO[$1.kind]:-} == cluster ]] || { _netns_err "no cluster '$1'"; return 1; }
    netns_get "$1" "$2"
}

netns_cluster_pair() {
    local c=$1 i=$2 j=$3 p=$4
    [[ ${NETNS_INFO[$c.kind]:-} == cluster ]] || { _netns_err "no cluster '$c'"; return 1; }
    [[ -n ${NETNS_INFO[$c.ns_$i]:-} && -n ${NETNS_INFO[$c.ns_$j]:-} && $i != "$j" ]] ||
        { _netns_err "cluster '$c' has no two nodes '$i' and '$j'"; return 1; }
    _netns_check_pair_name "$p" || return 1
    [[ -z ${NETNS_INFO[$p.kind]:-} ]] || { _netns_err "'$p' already exists"; return 1; }
    NETNS_INFO[$p.kind]=cluster-link
    NETNS_INFO[$p.ns_a]=${NETNS_INFO[$c.ns_$i]}
    NETNS_INFO[$p.ns_b]=${NETNS_INFO[$c.ns_$j]}
    NETNS_INFO[$p.dev_a]=eth0
    NETNS_INFO[$p.dev_b]=eth0
    NETNS_INFO[$p.ip_a]=${NETNS_INFO[$c.ip_$i]}
    NETNS_INFO[$p.ip_b]=${NETNS_INFO[$c.ip_$j]}
    NETNS_INFO[$p.subnet]=${NETNS_INFO[$c.subnet]}
    NETNS_PAIRS+=("$p")
}

netns_cluster_rate() {
    local c=$1 i=$2 rate=$3
    [[ ${NETNS_INFO[$c.kind]:-} == cluster ]] || { _netns_err "no cluster '$c'"; return 1; }
    [[ -n ${NETNS_INFO[$c.ns_$i]:-} ]] || { _netns_err "cluster '$c' has no node '$i'"; return 1; }
    _netns_cluster_tbf "${NETNS_INFO[$c.ns_$i]}" eth0 "$rate" &&
        _netns_cluster_tbf "${NETNS_INFO[$c.port_$i]}" "p$i" "$rate"
}

netns_cluster_mpirun() {
    local c=$1 np=${2:-}
    shift 2 2>/dev/null || shift $#
    [[ ${NETNS_INFO[$c.kind]:-} == cluster ]] || { _netns_err "no cluster '$c'"; return 1; }
    [[ $np =~ ^[0-9]+$ && $np -ge 1 ]] || { _netns_err "netns_cluster_mpirun: rank count '$np' is not a whole number"; return 1; }
    local -a extra=() hosts=()
    while [[ $# -gt 0 && $1 != -- ]]; do extra+=("$1"); shift; done
    [[ ${1:-} == -- ]] && shift
    [[ $# -gt 0 ]] || { _netns_err "usage: netns_cluster_mpirun CLUSTER NP [MPIRUN_OPTION...] -- PROGRAM [ARG...]"; return 1; }
    local i nslist= subnet=${NETNS_INFO[$c.subnet]}
    local -a nodes=()
    if [[ -n ${NETNS_CLUSTER_NODES:-} ]]; then
        IFS=, read -ra nodes <<<"$NETNS_CLUSTER_NODES"
        for i in "${nodes[@]}"; do
            [[ $i =~ ^[0-9]+$ && -n ${NETNS_INFO[$c.ns_$i]:-} ]] ||
                { _netns_err "NETNS_CLUSTER_NODES=$NETNS_CLUSTER_NODES: cluster '$c' has no node '$i'"; return 1; }
        done
    else
        for ((i = 0; i < ${NETNS_INFO[$c.nodes]}; i++)); do nodes+=("$i"); done
    fi
    local n=${#nodes[@]}
    # Slots per node: enough for rank r on the (r mod n)-th node.
    local slots=$(((np + n - 1) / n))
    for i in "${nodes[@]}"; do
        hosts+=("${NETNS_INFO[$c.ip_$i]}:$slots")
        nslist+="${nslist:+,}${NETNS_INFO[$c.ns_$i]}"
    done
    local -a args=()
    [[ $(id -u) == 0 ]] && args+=(--allow-run-as-root)
    args+=(-np "$np" --host "$(IFS=,; echo "${hosts[*]}")" --map-by node --bind-to none
        --mca plm_rsh_agent "$NETNS_NSRSH --ns $nslist"
        --mca btl self,tcp --mca btl_tcp_if_include "$subnet" --mca oob_tcp_if_include "$subnet"
        --mca btl_tcp_disable_family 6
        # More ranks than cores: a rank that busy-polls would starve the others.
        --mca mpi_yield_when_idle 1)
    NETNS_CMD_TIMEOUT=$NETNS_MPI_TIMEOUT netns_exec_host "${NETNS_INFO[$c.ns_${nodes[0]}]}" \
        mpirun "${args[@]}" "${extra[@]}" "$@"
}

_netns_is_child() {  # PID: still alive and our child (not a recycled pid)
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }  # fields after "pid (comm) "
    set -- $stat
    [[ $1 != Z && ($2 == "$BASHPID" || $2 == "$$") ]]
}

_netns_forget() {  # PID: drop it from the job and relay lists
    local -a keep=()
    local x
    for x in "${NETNS_JOBS[@]}"; do [[ $x == "$1" ]] || keep+=("$x"); done
    NETNS_JOBS=("${keep[@]}")
    keep=()
    for x in "${NETNS_RELAYS[@]}"; do [[ $x == "$1" ]] || keep+=("$x"); done
    NETNS_RELAYS=("${keep[@]}")
}

_netns_stop_pid() {  # PID: TERM, up to 3 s, then KILL; only our own children
    local -
    set +e
    local pid=$1 i
    _netns_forget "$pid"
    _netns_is_child "$pid" || { wait "$pid" 2>/dev/null; return 0; }
    kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < 60; i++)); do
        _netns_is_child "$pid" || break
        sleep 0.05
    done
    _netns_is_child "$pid" && kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

netns_cleanup() {
    local -
    set +e  # a caller's errexit must not cut the cleanup short
    local pid ns i
    for pid in "${NETNS_JOBS[@]}"; do _netns_stop_pid "$pid"; done
    NETNS_JOBS=()
    for pid in "${NETNS_RELAYS[@]}"; do _netns_stop_pid "$pid"; done
    NETNS_RELAYS=()
    for ns in "${NETNS_NAMESPACES[@]}"; do
        # Whatever still runs inside (e.g. an orted started through nsrsh) was started by us.
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null; done
        for ((i = 0; i < 40; i++)); do
            [[ -z $(ip netns pids "$ns" 2>/dev/null) ]] && break
            sleep 0.05
        done
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
    NETNS_NAMESPACES=()
    NETNS_PAIRS=()
    NETNS_INFO=()
    if [[ -n $NETNS_DIR && -d $NETNS_DIR && ${NETNS_KEEP_DIR:-0} != 1 ]]; then rm -rf "$NETNS_DIR"; fi
    if [[ -n $NETNS_RUN_ID ]] && ip netns list | awk '{print $1}' | grep -q "^$NETNS_RUN_ID-"; then
        _netns_err "warning: namespaces of run $NETNS_RUN_ID are still present"
    fi
    return 0
}

netns_sweep_stale() {
    local ns pid
    for ns in $(ip netns list | awk '{print $1}'); do
        [[ $ns =~ ^ngx([0-9]+)- ]] || continue
        pid=${BASH_REMATCH[1]}
        [[ $pid == "$$" ]] && continue
        kill -0 "$pid" 2>/dev/null && continue
        echo "netns: removing stale namespace $ns" >&2
        ip netns del "$ns"
    done
}
