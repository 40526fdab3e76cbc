#!/bin/bash
# listen-signals.sh: SIGTERM (and SIGINT) end a --listen server at every step
# of the handshake with exit 130, as the README promises:
# waiting for a client; a client connected but silent (its version line
# never sent); the version lines exchanged but no command line (and, with
# --secret-file, no answer to the challenge); a run accepted whose pair
# connections never come. The handshake's deadline is long (--timeout 30):
# only the signal can end these waits within the 5 s allowed here.
source "$(dirname "$0")/../lib/ngx-run.sh"
client_bg() { timeout -k 5 60 python3 "$IT_SCRIPT_DIR/listen_client.py" --deadline 50 "$@" >>client.log 2>&1 & }
printf 'a-shared-secret-of-this-test\n' >secret
chmod 600 secret

# case NAME SIGNAL CLIENT_STEP [SERVER_OPTION...]
case_() {
    local name=$1 signal=$2 step=$3
    shift 3
    local port
    port=$(free_port) || fail "no free port"
    it_bg "server-$name.log" --listen "127.0.0.1:$port" --accept-timeout 60 --timeout 30 "$@"
    local srv=$BG_PID
    for _ in $(seq 100); do grep -q 'listening on' "server-$name.log" && break; sleep 0.1; done
    case $step in
        none) ;;
        pairs) client_bg propose "$port" --connect "127.0.0.1:$port" -m tcp -x pingpong --pairs 2 -s 1 -c 5 ;;
        *) client_bg stall "$port" "$step" ;;
    esac
    sleep 1.5 # the server reaches the step (a slow machine: the check below says where it was)
    kill "-$signal" "$srv"
    wait_pid "$srv" 5
    [[ $RC == 130 ]] || { cat "server-$name.log" client.log; fail "$name: SIGTERM gave exit $RC after ${ELAPSED}s, expected 130"; }
    grep -q interrupted "server-$name.log" || fail "$name: the server did not say it was interrupted: $(cat "server-$name.log")"
    if [[ $step == pairs ]]; then
        grep -q 'running for the client' "server-$name.log" || fail "$name: the run was not accepted: $(cat "server-$name.log")"
    fi
    ok "$name: SIG$signal -> exit 130 in ${ELAPSED}s"
}
case_ waiting-for-a-client TERM none
case_ silent-client TERM connect
case_ no-hello-back TERM hello
case_ no-command-line TERM auth
case_ no-proof-of-the-secret TERM auth --secret-file secret
case_ pairs-never-connect TERM pairs
case_ sigint-no-command-line INT auth
echo PASS
