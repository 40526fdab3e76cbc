#!/bin/bash
# info.sh: --list-modules (tcp and shm found, nothing needed), --list-patterns
# (pingpong, pingping), --version, --help, and `-m tcp -x pingpong --help`
# showing the tcp module's own options; all exit 0 without measuring.
source "$(dirname "$0")/../lib/ngx-run.sh"
ngx_run 20 --list-modules
[[ $RC == 0 ]] || fail "--list-modules exited $RC"
for m in tcp shm; do grep -Eq "^ +$m +" out || fail "--list-modules does not list $m: $(cat out)"; done
ok "--list-modules"

ngx_run 20 --list-patterns
[[ $RC == 0 ]] || fail "--list-patterns exited $RC"
for p in pingpong pingping; do grep -Eq "^ +$p +" out || fail "--list-patterns does not list $p"; done
ok "--list-patterns"

ngx_run 20 --version
[[ $RC == 0 ]] || fail "--version exited $RC"
grep -Eq '^ngx [0-9]+\.[0-9]+\.[0-9]+' out || fail "--version printed: $(cat out)"
ok "--version: $(cat out)"

ngx_run 20 --help
[[ $RC == 0 ]] || fail "--help exited $RC"
grep -q -- '--sizes' out && grep -q -- '--timeout' out || fail "--help lacks the general options"
ok "--help"

ngx_run 20 -m tcp -x pingpong --help
[[ $RC == 0 ]] || fail "-m tcp -x pingpong --help exited $RC"
grep -q '^Module tcp' out || fail "no 'Module tcp' option group"
for o in --tcp-port --tcp-port-per-rank --tcp-sndbuf --tcp-rcvbuf --tcp-progress; do grep -q -- "$o" out || fail "help lacks $o"; done
grep -q -- '--shm-' out && fail "help for -m tcp shows shm options"
grep -q '^Pattern pingpong' out || fail "no 'Pattern pingpong' group"
ok "-m tcp -x pingpong --help"

ngx_run 20 -m shm -x pingping --help
[[ $RC == 0 ]] || fail "-m shm -x pingping --help exited $RC"
grep -q -- '--shm-ring-bytes' out || fail "help lacks --shm-ring-bytes"
grep -q -- '--pingping-n' out || fail "help lacks --pingping-n"
grep -q -- '--tcp-' out && fail "help for -m shm shows tcp options"
ok "-m shm -x pingping --help"
echo PASS
