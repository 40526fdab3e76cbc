#!/bin/bash
# bad-input.sh: table-driven malformed invocations: every one exits with its
# expected code (2 for a usage error) and a message that names the problem.
#
# Each row: expected exit code, an extended regex the stderr message must
# match (it names the option, the value or the problem), then the arguments.
# Every row must also finish within 5 s and print no result row (nothing
# was measured). Any row that misbehaves fails the test.
# Registered in suites 'faults' and 'bad-input' (meson test --suite bad-input).
source "$(dirname "$0")/../lib/ngx-run.sh"

pass=0 failed=0 rows=0

run_row() {  # RC REGEX ARG...
    local want=$1 regex=$2
    shift 2
    rows=$((rows + 1))
    local problem=""
    timeout -k 2 5 "$NGX" "$@" >"$IT_DIR/out" 2>"$IT_DIR/err" </dev/null
    local rc=$?
    local msg
    msg=$(head -c 300 "$IT_DIR/err" | tr '\n' ' ')
    if [[ $rc == 124 || $rc == 137 ]]; then
        problem="not refused within 5 s (it ran or hung)"
    elif [[ $rc != "$want" ]]; then
        problem="exit $rc, expected $want"
    elif ! grep -Eq -- "$regex" "$IT_DIR/err"; then
        problem="message does not match /$regex/"
    elif grep -Eq '^ +[0-9]+ +[0-9]+[KMG]?i?B ' "$IT_DIR/out"; then
        problem="it measured something (result rows on stdout)"
    fi
    local shown
    shown=$(printf '%q ' "$@")
    if [[ -n $problem ]]; then
        failed=$((failed + 1)); echo "FAIL   ngx $shown-> $problem; stderr: $msg"
    else
        pass=$((pass + 1)); echo "ok     ngx $shown-> $rc: $msg"
    fi
}
row() { run_row "$@"; }

S=(-s 1 -c 1 --warmup 0)   # a tiny valid run, for rows where only one thing is wrong

# --- sizes ------------------------------------------------------------------
row 2 "sizes.*'0-0'.*larger"                     -m tcp -s 0-0
row 2 "sizes.*'10-1'.*larger"                    -m tcp -s 10-1
row 2 "sizes.*'64Ki-1'.*larger"                  -m tcp -s 64Ki-1
row 2 "sizes.*'1T'.*unknown unit"                -m tcp -s 1-1T
row 2 "sizes.*'-1'.*negative"                    -m tcp -s -1
row 2 "sizes.*empty item"                        -m tcp -s 1,,2
row 2 "sizes.*empty item"                        -m tcp -s 1,2,
row 2 "sizes.*'abc'.*not a number"               -m tcp -s abc
row 2 "sizes.*(empty|'1-')"                      -m tcp -s 1-
row 2 "sizes.*'1\.5'"                            -m tcp -s 1.5
row 2 "sizes.*'5Q'.*unit"                        -m shm -s 5Q
row 2 "sizes.*tcp.*0-byte"                       -m tcp -s 0
row 2 "sizes.*tcp.*0-byte"                       -m tcp -s 0-64
row 2 "sizes: pattern loggp measures messages of at least 1 B.*s - 1.*includes 0 B" -m shm -x loggp -s 0-1Ki
row 2 "sizes.*(too large|at most|exceeds|limit)" -m tcp -s 1-64Gi
row 2 "(--sizes|-s).*(missing|required)"         -m tcp -s
# --- counts, warm-up, timeouts ---------------------------------------------
row 2 "--count '99999999999'.*must be in"        -m tcp -s 1 -c 99999999999
row 2 "--count '0'.*must be in 1\.\."            -m tcp -s 1 -c 0
row 2 "--count '-5'"                             -m tcp -s 1 -c -5
row 2 "--count 'abc'.*whole number"              -m tcp -s 1 -c abc
row 2 "--count '1e3'"                            -m tcp -s 1 -c 1e3
row 2 "(--count|-c).*(missing|required)"         -m tcp -s 1 -c
row 2 "--warmup '-1'"                            -m tcp -s 1 --warmup -1
row 2 "--warmup 'x'"                             -m tcp -s 1 --warmup x
row 2 "--timeout '0'.*must be in"                -m tcp "${S[@]}" --timeout 0
row 2 "--timeout '-3'"                           -m tcp "${S[@]}" --timeout -3
row 2 "--timeout 'abc'.*number"                  -m tcp "${S[@]}" --timeout abc
row 2 "--timeout 'nan'"                          -m tcp "${S[@]}" --timeout nan
row 2 "--timeout 'inf'"                          -m tcp "${S[@]}" --timeout inf
row 2 "--accept-timeout '0'"                     --listen 127.0.0.1:1 --accept-timeout 0
# --- size steps -------------------------------------------------------------
row 2 "--grade '1'.*must be in"                  -m tcp -s 1-8 --grade 1
row 2 "--grade '0\.5'.*must be in"               -m tcp -s 1-8 --grade 0.5
row 2 "--grade 'two'"                            -m tcp -s 1-8 --grade two
row 2 "--grade and --step exclude"               -m tcp -s 1-8 --grade 2 --step 10
row 2 "--step '0'.*must be in"                   -m tcp -s 1-8 --step 0
row 2 "--step '-4'"                              -m tcp -s 1-8 --step -4
# --- modules and patterns ---------------------------------------------------
row 2 "unknown module 'nosuch'.*tcp"             -m nosuch
row 2 "unknown pattern 'nosuch'.*pingpong"       -x nosuch
row 2 "-m/--module: (no module named|empty module name)" -m ""
row 2 "empty module name.*'tcp,'"                -m tcp,
row 2 "empty module name.*',tcp'"                -m ,tcp
row 2 "(--module|-m).*(missing|required)"        -m
row 2 "(--pattern|-x).*(missing|required)"       -x
row 2 "'--tcp-port' belongs to module 'tcp'"     -m shm "${S[@]}" --tcp-port 5
row 2 "'--shm-ring-bytes' belongs to module 'shm'" -m tcp "${S[@]}" --shm-ring-bytes 4096
row 2 "'--pingping-n' belongs to pattern 'pingping'" -m tcp -x pingpong "${S[@]}" --pingping-n 4
# an unknown option of a selected module or pattern: unknown to it, with its options
row 2 "'--sim-Q' is unknown to module 'sim' (\(did you mean [^)]*\) )?\(its options: --sim-L, --sim-os, --sim-or, --sim-g, --sim-G," -m sim --sim-Q 0.001 -x loggp
row 2 "'--tcp-nodelay' is unknown to module 'tcp' \(its options: .*--tcp-port" -m tcp "${S[@]}" --tcp-nodelay 1
row 2 "'--shm-size' is unknown to module 'shm' \(its options: --shm-ring-bytes" -m tcp,shm "${S[@]}" --shm-size 4096
row 2 "'--udp-mtu-bytes' is unknown to module 'udp' \(its options: .*--udp-mtu-payload" -m udp "${S[@]}" --udp-mtu-bytes 1400
# a misspelt option: exit 2 naming the closest valid one (at most 2 edits or a quarter of the name)
row 2 "'--loggp-nn' is unknown to pattern 'loggp' \(did you mean '--loggp-n'\?\)" -m sim -x loggp --loggp-nn 4
row 2 "'--tcp-progresss' is unknown to module 'tcp' \(did you mean '--tcp-progress'\?\)" -m tcp "${S[@]}" --tcp-progresss poll
row 2 "unknown option '--timout' \(did you mean '--timeout'\?\)" -m tcp "${S[@]}" --timout 3
row 2 "unknown option '--zzzzzz' \(see ngx --help\)" -m tcp "${S[@]}" --zzzzzz 1
row 2 "'--loggp-m' is unknown to pattern 'loggp' \(did you mean '--loggp-n'\?\) \(its options: --loggp-n," -m sim -x loggp "${S[@]}" --loggp-m 4
row 2 "'--pingping-count' is unknown to pattern 'pingping' \(its options: .*--pingping-n" -m tcp -x pingping "${S[@]}" --pingping-count 4
# module-level validation (the module's init judges its own options)
row 2 "tcp-port.*70000"                          -m tcp "${S[@]}" --tcp-port 70000
row 2 "tcp-port.*abc"                            -m tcp "${S[@]}" --tcp-port abc
row 2 "tcp-port-per-rank.*maybe"                 -m tcp "${S[@]}" --tcp-port 7100 --tcp-port-per-rank maybe
row 2 "tcp-port-per-rank.*needs a --tcp-port"    -m tcp "${S[@]}" --tcp-port-per-rank yes
row 2 "tcp-sndbuf.*-1"                           -m tcp "${S[@]}" --tcp-sndbuf -1
row 2 "tcp-rcvbuf.*x"                            -m tcp "${S[@]}" --tcp-rcvbuf x
row 2 "tcp-progress.*spin"                       -m tcp "${S[@]}" --tcp-progress spin
row 2 "shm-ring-bytes.*1000.*power of two"       -m shm "${S[@]}" --shm-ring-bytes 1000
row 2 "pingping-n '0'"                           -m tcp -x pingping "${S[@]}" --pingping-n 0
row 2 "pingping-delay '-1'"                      -m tcp -x pingping "${S[@]}" --pingping-delay -1
# --- placement, outputs, timer, bootstrap -----------------------------------
row 2 "--cpus '0'.*one CPU per side"             -m tcp "${S[@]}" --cpus 0
row 2 "--cpus '0,999'.*CPU 999"                  -m tcp "${S[@]}" --cpus 0,999
row 2 "--cpus 'a,b'.*CPU numbers"                -m tcp "${S[@]}" --cpus a,b
row 2 "--cpus '0,1,'"                            -m tcp "${S[@]}" --cpus 0,1,
row 2 "/nonexistent/dir/x\.json.*(No such file|cannot)" -m tcp "${S[@]}" -o /nonexistent/dir/x.json
row 2 "out\.weird.*unknown file type"            -m tcp "${S[@]}" -o out.weird
row 2 "--format 'xml'.*table, csv or json"       -m tcp "${S[@]}" --format xml
row 2 "--percentiles '101'.*must be in"          -m tcp "${S[@]}" --percentiles 101
row 2 "--percentiles.*(empty|'')"                -m tcp "${S[@]}" --percentiles 50,,90
row 2 "--timer 'foo'.*auto, tsc or clock"        -m tcp "${S[@]}" --timer foo
row 2 "--buffer-offset '4096'.*0\.\.[0-9]+"       -m tcp "${S[@]}" --buffer-offset 4096
row 2 "--buffer-offset 'x'.*whole number"        -m tcp "${S[@]}" --buffer-offset x
row 2 "--bootstrap 'foo'.*auto, local, tcp or mpi" -m tcp "${S[@]}" --bootstrap foo
row 2 "--bootstrap tcp needs --listen"           -m tcp "${S[@]}" --bootstrap tcp
row 2 "--listen '99999'.*port"                   --listen 99999
row 2 "--listen 'abc'.*port"                     --listen abc
row 2 "--listen '127\.0\.0\.1:0'.*port"          --listen 127.0.0.1:0
row 2 "--connect 'nohost'.*port"                 -m tcp "${S[@]}" --connect nohost
row 2 "--connect 'h:70000'.*port"                -m tcp "${S[@]}" --connect h:70000
row 2 "--listen and --connect exclude"           --listen 1 --connect a:1
# --- what a --listen server accepts (--allow, --serve, its limits) ---------
row 2 "--allow '10\.0\.0\.0/33'.*prefix"          --listen 127.0.0.1:1 --allow 10.0.0.0/33
row 2 "--allow 'example\.org'.*numeric"           --listen 127.0.0.1:1 --allow example.org
row 2 "--serve 'never'.*forever"                 --listen 127.0.0.1:1 --serve never
row 2 "--max-pairs '0'"                          --listen 127.0.0.1:1 --max-pairs 0
row 2 "--max-timeout 'x'"                        --listen 127.0.0.1:1 --max-timeout x
row 2 "--max-size '2Gi'"                         --listen 127.0.0.1:1 --max-size 2Gi
row 2 "--max-count '0'"                          --listen 127.0.0.1:1 --max-count 0
row 2 "--allow is an option of the server"       -m tcp "${S[@]}" --allow 10.0.0.0/8
row 2 "--serve is an option of the server"       -m tcp "${S[@]}" --connect 127.0.0.1:1 --serve 2
row 2 "--secret-file is for --listen and --connect" -m tcp "${S[@]}" --secret-file "$IT_DIR/nosuch"
row 2 "--secret-file .*/nosuch: cannot be read|--secret-file .*nosuch: No such" -m tcp "${S[@]}" --connect 127.0.0.1:1 --secret-file "$IT_DIR/nosuch"
# --- unknown options and stray words ---------------------------------------
row 2 "unknown option '--frobnicate'"            --frobnicate
row 2 "unknown option '--frobnicate'"            -m tcp -x pingpong "${S[@]}" --frobnicate
row 2 "unknown option '----------'"              ----------   # dashes only: once an uncaught out_of_range (fuzz_listen)
row 2 "foo"                                      foo
row 2 "junk"                                     -m tcp "${S[@]}" junk

# --- loss retries (udp) and payload verification (--verify) -----------------
row 2 "--retries '-1'"                           -m udp "${S[@]}" --retries -1
row 2 "--retries 'abc'.*whole number"            -m udp "${S[@]}" --retries abc
row 2 "--retries '2000000'.*must be in 0\.\.1000000" -m udp "${S[@]}" --retries 2000000
row 2 "--retries '1\.5'"                         -m udp "${S[@]}" --retries 1.5
row 2 "(--retries).*(missing|required)"          -m udp "${S[@]}" --retries
row 2 "verify.*(does not take|argument)"         -m tcp "${S[@]}" --verify=yes
# --- udp module options, and one module's options given to another ---------
row 2 "'--udp-port' belongs to module 'udp'"     -m tcp "${S[@]}" --udp-port 5000
row 2 "'--tcp-port' belongs to module 'tcp'"     -m udp "${S[@]}" --tcp-port 5000
row 2 "'--sim-L' belongs to module 'sim'"        -m udp "${S[@]}" --sim-L 3
row 2 "udp-port '70000'.*0\.\.65534"           -m udp "${S[@]}" --udp-port 70000
row 2 "udp-loss-timeout-us '0'.*1\.\.3600000000" -m udp "${S[@]}" --udp-loss-timeout-us 0
row 2 "udp-loss-timeout-us '1s'.*whole number" -m udp "${S[@]}" --udp-loss-timeout-us 1s
row 2 "udp-mtu-payload '10'.*auto or a byte count" -m udp "${S[@]}" --udp-mtu-payload 10
row 2 "udp-busy-poll 'maybe'.*0, 1"            -m udp "${S[@]}" --udp-busy-poll maybe
row 2 "udp-buffer '-5'"                          -m udp "${S[@]}" --udp-buffer -5
row 2 "udp-mtu-payload '70000'.*byte count"      -m udp "${S[@]}" --udp-mtu-payload 70000
# --- more sizes, counts and outputs ----------------------------------------
row 2 "--warmup '99999999999'.*must be in"       -m tcp -s 1 --warmup 99999999999
row 2 "--count '18446744073709551616'"           -m tcp -s 1 -c 18446744073709551616
row 2 "sizes.*more than 100000"                  -m tcp -s 1-1Gi --step 1
row 2 "sizes.*' '|sizes.*(not a number|invalid)" -m tcp -s " "
row 2 "--percentiles 'abc'.*number"              -m tcp "${S[@]}" --percentiles abc
row 2 "-o /proc/ngx-x\.json: cannot write there" -m tcp "${S[@]}" -o /proc/ngx-x.json
row 2 "--raw-prtt.*-x loggp"                     -m tcp -x pingpong "${S[@]}" --raw-prtt r.csv
# --- raw-data files for ngx fit ----------------------------------------------
printf '' >"$IT_DIR/empty.csv"
printf 'size_bytes,n,delay_us,prtt_1_0_us,prtt_n_0_us,prtt_n_d_us\n1,16,5.1,10' >"$IT_DIR/truncated.csv"
head -c 256 /bin/sh >"$IT_DIR/binary.csv"
printf 'size,n\n1,2\n' >"$IT_DIR/header.csv"
printf 'size_bytes,n,delay_us,prtt_1_0_us,prtt_n_0_us,prtt_n_d_us\n1,16,5,ten,40,120\n' >"$IT_DIR/nan.csv"
printf 'size_bytes,n,delay_us,prtt_1_0_us,prtt_n_0_us,prtt_n_d_us\n1,16,5,10,40,120\n2,16,5,-10,40,120\n' >"$IT_DIR/negative.csv"
printf '{"pattern": "loggp", "results": [' >"$IT_DIR/broken.json"
row 2 "empty\.csv: empty file"                  fit "$IT_DIR/empty.csv"
row 2 "truncated\.csv:2: expected 6 cells"      fit "$IT_DIR/truncated.csv"
row 2 "binary\.csv: binary data"                fit "$IT_DIR/binary.csv"
row 2 "header\.csv:1: .*(missing column|column 1)" fit "$IT_DIR/header.csv"
row 2 "nan\.csv:2: column prtt_1_0_us: 'ten' is not a number" fit "$IT_DIR/nan.csv"
row 2 "negative\.csv:3: .*negative"             fit "$IT_DIR/negative.csv"
row 2 "broken\.json: starts like JSON but is not valid JSON" fit "$IT_DIR/broken.json"
row 2 "nosuch\.csv: cannot be read"             fit "$IT_DIR/nosuch.csv"
printf '{"pattern":"loggp","results":[{"size_bytes":1,"median_us":10,"prtt_n_0_us":40,"prtt_n_d_us":120,"delay_us":5}]}' >"$IT_DIR/noopts.json"
printf '{"runs": [1, "x", {"pattern": 5}]}' >"$IT_DIR/oddruns.json"
row 2 "noopts\.json: options\.pattern_options\.n is missing" fit "$IT_DIR/noopts.json"
row 2 'oddruns\.json: runs\[2\]: "pattern" is not a string' fit "$IT_DIR/oddruns.json"
row 2 "no file given"                            fit
# --- saved JSON for ngx compare and ngx predict ------------------------------
printf 'this is not json\n' >"$IT_DIR/notjson.json"
printf '{"module": "tcp", "results": []}' >"$IT_DIR/nopattern.json"
printf '{"module": "tcp", "pattern": "pingpong", "results": 5}' >"$IT_DIR/resultsnum.json"
printf '{"module": "tcp", "pattern": "pingpong", "results": [{"median_us": 1}]}' >"$IT_DIR/nosize.json"
printf '{"module": "tcp", "pattern": "pingpong", "results": [{"size_bytes": 1, "median_us": 5}]}' >"$IT_DIR/good.json"
printf '{"module": "shm", "pattern": "pingping", "results": [{"size_bytes": 1, "median_us": 5}]}' >"$IT_DIR/other.json"
printf '[1, 2, 3]' >"$IT_DIR/array.json"
printf '{"model": {"kind": "loggp", "ranges": []}}' >"$IT_DIR/noranges.json"
printf '{"model": {"kind": "loggp", "ranges": [{"from_bytes": 1, "to_bytes": 64}]}}' >"$IT_DIR/halfrange.json"
row 2 "notjson\.json: not a JSON file"          compare "$IT_DIR/notjson.json" "$IT_DIR/good.json"
row 2 "nopattern\.json: missing field \"pattern\"" compare "$IT_DIR/good.json" "$IT_DIR/nopattern.json"
row 2 "resultsnum\.json: \"results\" is not an array" compare "$IT_DIR/good.json" "$IT_DIR/resultsnum.json"
row 2 "nosize\.json: a result without a valid \"size_bytes\"" compare "$IT_DIR/good.json" "$IT_DIR/nosize.json"
row 2 "array\.json: not an ngx result"          compare "$IT_DIR/good.json" "$IT_DIR/array.json"
row 2 "cannot compare different patterns"        compare "$IT_DIR/good.json" "$IT_DIR/other.json"
row 2 "need at least two runs"                   compare "$IT_DIR/good.json"
row 2 "nosuch\.json: cannot be read"            compare "$IT_DIR/good.json" "$IT_DIR/nosuch.json"
mkdir -p "$IT_DIR/emptydir"
row 2 "notjson\.json: not a JSON file"          check "$IT_DIR/notjson.json" "$IT_DIR/good.json"
row 2 "different pattern: .*good\.json has pingpong, .*other\.json has pingping" check "$IT_DIR/good.json" "$IT_DIR/other.json"
row 2 "missing samples: 1 B of .*good\.json"    check "$IT_DIR/good.json" "$IT_DIR/good.json"
row 2 "expected BASELINE\.json NEW\.json, or one directory" check "$IT_DIR/good.json"
row 2 "--tolerance 'x'"                          check --tolerance x "$IT_DIR/good.json" "$IT_DIR/good.json"
row 2 "--alpha '2'"                              check --alpha 2 "$IT_DIR/good.json" "$IT_DIR/good.json"
row 2 "--format 'xml'"                           check --format xml "$IT_DIR/good.json" "$IT_DIR/good.json"
row 2 "emptydir: a history needs at least two"   check "$IT_DIR/emptydir"
row 2 "notjson\.json: not a JSON document"      predict --params "$IT_DIR/notjson.json" --op pingpong -s 1
row 2 "good\.json: has no fitted model"         predict --params "$IT_DIR/good.json" --op pingpong -s 1
row 2 "no LogGP parameters"                      predict --params "$IT_DIR/noranges.json" --op pingpong -s 1
row 2 "(L_us|o_us|g_us|G_us_per_byte)"           predict --params "$IT_DIR/halfrange.json" --op pingpong -s 1
row 2 "--params FILE\.json is required"         predict --op pingpong -s 1

# Usage errors must not be blamed on the peer: the --listen side rejects its
# own argument, not "the peer side".
row 2 "^ngx: --listen '99999'"                   --listen 99999

echo "rows: $rows, ok: $pass, failed: $failed"
# The README promises over a hundred malformed invocations.
((rows > 100)) || fail "only $rows rows, the suite (and docs/testing.md) promise over a hundred"
((failed == 0)) || fail "$failed malformed invocations misbehaved"
echo PASS
