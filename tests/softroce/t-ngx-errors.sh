#!/bin/sh
# `ngx -m ibv` with bad device options: each must exit 2 (usage error) with a
# message naming the problem. Exits 77 when ngx or its ibv module is missing.
[ -x "${NGX:-}" ] || { echo "no ngx binary at '${NGX:-}'"; exit 77; }
"$NGX" --list-modules 2>/dev/null | grep -q '^ *ibv ' || { echo "ngx has no ibv module"; exit 77; }
failed=0
expect() { # expect EXIT TEXT ARGS...
    want=$1 text=$2
    shift 2
    # --timeout 60: opening the device took more than the default 10 s in a
    # guest on a busy host (the watchdog then ends a run that would pass).
    out=$("$NGX" -m ibv -x pingpong -s 1 -c 5 --warmup 0 --timeout 60 "$@" 2>&1)
    rc=$?
    if [ $rc = "$want" ] && echo "$out" | grep -q "$text"; then
        echo "ok: ngx $* -> exit $rc: $(echo "$out" | grep "$text" | tail -1)"
    else
        echo "FAIL: ngx $* -> exit $rc (want $want and '$text'):"
        echo "$out" | tail -5
        failed=1
    fi
}
expect 2 "no such RDMA device" --ibv-device nosuch0
expect 2 "no such port" --ibv-port 9
expect 2 "out of range" --ibv-gid 4000
expect 2 "expected send, write or read" --ibv-mode atomic
expect 0 "ibv: ${RXE_DEV:-rxe0} port" --ibv-mode send
exit $failed
