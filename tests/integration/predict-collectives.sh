#!/bin/bash
# predict-collectives.sh: `ngx predict --op COLLECTIVE` and `ngx export
# --goal` from a hand-written one-range LogGP model, against costs worked
# out by hand (models/collectives/collectives.hpp's rules), and every kind of bad input
# refused with exit 2 and a message naming it.
# One message of s bytes, o_s = o_r = 1, O = 0, L = 5, g = 2, G = 0.0003:
#   arrival o + L = 6, receiver's CPU o + (s-1)G, gap g + (s-1)G.
# Recursive doubling over P = 16 (4 exchange steps, every rank alike):
#   each step 6 + 1 + (s-1)G, s = 1 KiB: 4 * 7.3069 = 29.2276 us.
# Ring allreduce over P = 4 of 4 KiB: 6 steps of 1 KiB blocks = 43.8414 us.
source "$(dirname "$0")/../lib/ngx-run.sh"
cat >model.json <<'JSON'
{"pattern": "loggp", "model": {"kind": "loggp", "ranges": [
  {"from_bytes": 1, "to_bytes": 65536, "L_us": 5, "o_us": 1, "g_us": 2, "G_us_per_byte": 0.0003}]}}
JSON

# time_of ARGS...: the one prediction's time_us of --format json.
time_of() {
    ngx_run 30 predict --params model.json --format json "$@"
    [[ $RC == 0 ]] || fail "ngx predict $*: exit $RC"
    json_field out 'd["predictions"][0]["time_us"]'
}
# expect_time WANT ARGS...: the prediction equals WANT (1e-9 relative).
expect_time() {
    local want=$1 got
    shift
    got=$(time_of "$@")
    awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * b) }' ||
        fail "predict $*: $got us, by hand $want us"
    ok "predict $*: $got us"
}
expect_time 29.2276 --op allreduce --algorithm recursive_doubling -P 16 -s 1Ki
expect_time 43.8414 --op allreduce --algorithm ring -P 4 -s 4Ki
# Binomial bcast over 16: four hops of 6 + 1 + (s-1)G, the root's sends 2 + (s-1)G apart don't bind.
expect_time 29.2276 --op bcast --algorithm binomial -P 16 -s 1Ki
# The reduction's cost: each of the 3 reduce-scatter steps adds gamma x 1 KiB.
expect_time 46.9134 --op allreduce --algorithm ring -P 4 -s 4Ki --gamma 0.001
sed 's/"kind": "loggp",/"kind": "loggp", "gamma_us_per_byte": 0.001,/' model.json >gamma.json
ngx_run 30 predict --params gamma.json --op allreduce --algorithm ring -P 4 -s 4Ki
grep -qE '^loggp +allreduce +ring +4096 +4 +46.9134$' out || fail "gamma_us_per_byte of the model file not used: $(cat out)"
ok "the model file's gamma_us_per_byte is the default of --gamma"
# Dissemination barrier over 17: five steps of 1-byte messages (7 us).
expect_time 35 --op barrier --algorithm dissemination -P 17

# LogGPS (Ino et al., Table 3): o' 1, L 3, G_s 0.001 up to s = 2 KiB, G_l 0.0005 beyond,
# rendezvous above S = 4 KiB. One message of 4 KiB to a waiting receiver: o' + sG_s +
# (k-s)G_l + L + o' = 8.072; of 8 KiB: 11.12 plus the handshake 4o' + 2L = 10.
cat >loggps.json <<'JSON'
{"pattern": "loggps", "model": {"kind": "loggps", "L_us": {"value": 3}, "o_prime_us": {"value": 1},
 "O_s_us_per_byte": {"value": 0}, "O_r_us_per_byte": {"value": 0}, "G_s_us_per_byte": {"value": 0.001},
 "G_l_us_per_byte": {"value": 0.0005}, "s_bytes": 2048, "S_bytes": 4096}}
JSON
loggps_time() {
    ngx_run 30 predict --params loggps.json --format json "$@"
    [[ $RC == 0 ]] || fail "ngx predict (loggps) $*: exit $RC"
    json_field out 'd["predictions"][0]["time_us"]'
}
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * b) }'; }
near "$(loggps_time --op bcast --algorithm linear -P 2 -s 4Ki)" 8.072 || fail "LogGPS eager message: $(cat out)"
near "$(loggps_time --op bcast --algorithm linear -P 2 -s 8Ki)" 20.12 || fail "LogGPS rendezvous message: $(cat out)"
ok "LogGPS: 4 KiB eager 8.072 us, 8 KiB with the rendezvous handshake 20.12 us"
sed 's/"G_l_us_per_byte": {"value": 0.0005}/"G_l_us_per_byte": null/' loggps.json >no-G_l.json
ngx_run 30 predict --params no-G_l.json --op bcast --algorithm linear -P 2 -s 8Ki
[[ $RC == 2 ]] && grep -q "no finite cost" err || fail "LogGPS without G_l, 8 KiB: exit $RC, $(cat err)"
ok "LogGPS without G_l: 8 KiB is refused (exit 2): $(cat err)"

# The existing ops are unchanged.
ngx_run 30 predict --params model.json --op pingpong -s 100
grep -qE '^loggp +pingpong +100 +7.0297$' out || fail "predict --op pingpong changed: $(cat out)"
ok "predict --op pingpong unchanged"

# All algorithms, the best, Open MPI's choice.
ngx_run 30 predict --params model.json --op allreduce -P 32 -s 64Ki
[[ $RC == 0 ]] || fail "predict --op allreduce: exit $RC"
for a in binomial recursive_doubling ring rabenseifner; do grep -qE "^loggp +allreduce +$a " out || fail "no $a line: $(cat out)"; done
grep -q '^# best: ' out || fail "no best line: $(cat out)"
grep -q '^# Open MPI 4.1 tuned (fixed rules) runs: rabenseifner (6)' out || fail "Open MPI 4.1 runs rabenseifner at P = 32, 64 KiB: $(cat out)"
ok "predict --op allreduce: every algorithm, the best, Open MPI 4.1's choice"
ngx_run 30 predict --params model.json --op allreduce -P 16 -s 1Ki --algorithm auto
grep -q '^# Open MPI 4.1 tuned (fixed rules) runs: recursive_doubling (3), predicted 29.2276 us' out ||
    fail "--algorithm auto at P = 16, 1 KiB: recursive doubling: $(cat out)"
ok "--algorithm auto names and predicts Open MPI's choice"

# A table over sizes and P, one row per (P, size, algorithm); json and csv alike.
ngx_run 30 predict --params model.json --op alltoall -s 8-1Ki -P 4,16,64
[[ $RC == 0 ]] || fail "predict table: exit $RC"
[[ $(grep -cE '^loggp +alltoall +(linear|pairwise|bruck) +[0-9]+ +(4|16|64) +' out) == 72 ]] || fail "expected 3 x 8 x 3 table rows: $(cat out)"
ngx_run 30 predict --params model.json --op alltoall -s 8-1Ki -P 4,16,64 --format csv
[[ $(head -1 out) == model,op,algorithm,bytes,P,time_us && $(wc -l <out) == 73 ]] || fail "predict --format csv: $(cat out)"
ngx_run 30 predict --params model.json --op alltoall -s 8-1Ki -P 4,16,64 --format json
python3 - out <<'PY' || fail "predict --format json: $(head -c 600 out)"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["predictions"]
assert len(p) == 3 * 8 * 3, len(p)
assert set(p[0]) == {"model", "op", "algorithm", "P", "bytes", "time_us"}, p[0]
assert {e["algorithm"] for e in p} == {"linear", "pairwise", "bruck"}
assert all(e["op"] == "alltoall" and e["time_us"] > 0 for e in p)
PY
ok "a table over -s 8-1Ki -P 4,16,64, and its json"

# The schedule for LogGOPSim.
ngx_run 30 export --goal --op allreduce --algorithm ring -P 4 -s 4Ki
[[ $RC == 0 ]] || fail "export --goal: exit $RC"
head -1 out | grep -qx 'num_ranks 4' || fail "export --goal: no num_ranks line: $(head -3 out)"
[[ $(grep -c ': send 1024b to ' out) == 24 && $(grep -c ': recv 1024b from ' out) == 24 ]] ||
    fail "ring allreduce over 4: 6 steps x 4 ranks of 1 KiB sends and receives: $(cat out)"
ok "export --goal: a ring allreduce's 24 sends and receives"
grep -q "GOAL carries no topology" err || fail "export --goal does not say what GOAL cannot carry: $(cat err)"
ok "export --goal says that GOAL leaves contention out: $(cat err)"
ngx_run 30 export --goal --op barrier --algorithm dissemination -P 5
[[ $RC == 0 && $(grep -c ': send 1b to ' out) == 15 ]] || fail "a barrier over 5: 3 steps x 5 sends of 1 byte: $(cat out err)"
ok "export --goal: a barrier needs no size"

# --contention (a congestion fit of the uplink: R_N 100, R_C 80 MB/s) with
# ranks 0, 1 on switch 0: pairwise alltoall of 1 KiB over 4 crosses the
# uplink twice each way in its second round, which LoGPC's delay prices at
# 2048 / min(100, 2 x 80) - 1024 / min(100, 80) = 7.68 us over LogGP.
cat >uplink.json <<'JSON'
{"pattern": "congestion", "model": {"kind": "congestion", "congestion": {"maxrate": {
  "alpha_us": 5, "R_N_MBps": 100, "R_C_MBps": 80}}}}
JSON
ngx_run 30 predict --params model.json --format json --op alltoall --algorithm pairwise -P 4 -s 1Ki \
    --contention uplink.json --switches 0,0,1,1
[[ $RC == 0 ]] || fail "predict --contention: exit $RC: $(cat err)"
delay=$(json_field out '[p["time_us"] for p in d["predictions"] if p["model"] == "loggp+contention"][0] - [p["time_us"] for p in d["predictions"] if p["model"] == "loggp"][0]')
awk -v a="$delay" 'BEGIN { d = a - 7.68; if (d < 0) d = -d; exit !(d <= 1e-9) }' ||
    fail "--contention: the delay is $delay us, by hand 7.68"
ok "predict --contention: pairwise alltoall over 2 + 2 delayed by $delay us"
expect_ngx_usage "--contention alone" "--contention and --switches go together" \
    predict --params model.json --op alltoall -s 8 -P 4 --contention uplink.json
expect_ngx_usage "a switch list for another P" "2 switches listed for 4 ranks" \
    predict --params model.json --op alltoall -s 8 -P 4 --contention uplink.json --switches 0,1
expect_ngx_usage "--contention from a loggp file" "a congestion run's model is needed" \
    predict --params model.json --op alltoall -s 8 -P 4 --contention model.json --switches 0,0,1,1
expect_ngx_usage "--contention on a schedule without rounds" "the schedule has no rounds" \
    predict --params model.json --op bcast --algorithm binomial -s 8 -P 4 --contention uplink.json --switches 0,0,1,1

# Bad input: exit 2, the reason named.
expect_ngx_usage "an algorithm allreduce lacks" "allreduce has binomial, recursive_doubling, ring, rabenseifner" \
    predict --params model.json --op allreduce -s 8 -P 4 --algorithm bruck
expect_ngx_usage "P = 1" "needs at least 2 processes" predict --params model.json --op allreduce -s 8 -P 1
expect_ngx_usage "P = 1 in a list" "needs at least 2 processes" predict --params model.json --op barrier -P 1,4
expect_ngx_usage "a message beyond the measured sizes" "beyond the largest size the parameters cover (64 KiB)" \
    predict --params model.json --op bcast -s 1Mi -P 4 --algorithm binomial
expect_ngx_usage "no algorithm within the measured sizes" "beyond the largest size" \
    predict --params model.json --op allreduce -s 1Gi -P 2
expect_ngx_usage "no size" "-s/--size is required" predict --params model.json --op allreduce -P 4
expect_ngx_usage "a bad size" "size" predict --params model.json --op allreduce -P 4 -s 12Q
expect_ngx_usage "a bad --format" "format" predict --params model.json --op allreduce -P 4 -s 8 --format xml
expect_ngx_usage "export without --goal" "--goal" export --op allreduce --algorithm ring -P 4 -s 8
expect_ngx_usage "export of an unknown op" "not a collective" export --goal --op allsum --algorithm ring -P 4 -s 8
expect_ngx_usage "export of an algorithm alltoall lacks" "alltoall has linear, pairwise, bruck" \
    export --goal --op alltoall --algorithm ring -P 4 -s 8
expect_ngx_usage "export with P = 1" "processes" export --goal --op allreduce --algorithm ring -P 1 -s 8
# With --extrapolate the largest range prices any size.
ngx_run 30 predict --params model.json --op bcast -s 1Mi -P 4 --algorithm binomial --extrapolate
[[ $RC == 0 ]] || fail "--extrapolate: exit $RC"
ok "--extrapolate prices 1 MiB with the last range"
echo PASS
