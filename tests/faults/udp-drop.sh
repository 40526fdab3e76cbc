#!/bin/bash
# udp-drop.sh: udp ping-pong between two namespaces through the ngx-netdelay
# TUN relay, once with 5% of the UDP packets dropped at random in each
# direction (--drop 0.05 --drop-proto udp: the TCP bootstrap is spared) and
# once through an identical relay without drops. Required: the run
# completes, the loss rate is reported within a few points of 5%, and the
# medians are close to the no-drop run's.
#
# What is asserted, defined precisely: ngx reports per size `lost`, the
# repetitions that lost a message and were retried, and `loss_rate` = lost /
# attempted repetitions (warm-up included). A ping-pong repetition of a
# one-datagram message carries 2 datagrams, so with a per-packet drop
# probability p the expected per-repetition rate is 1 - (1 - p)^2 = 9.75%
# for p = 5%. The test pools the sizes (1, 64, 1024 B: one datagram each at
# MTU 1500) and asserts
#   - exit 0, status complete, every size with count samples, on both runs;
#   - pooled loss_rate within 9.75% +- 3.5 points, i.e. the per-packet drop
#     estimate 1 - sqrt(1 - loss_rate) within about 5% +- 2 points;
#   - the no-drop run: loss_rate below 2% (only stalls of the loaded relay);
#   - each size's p99 with drops below half the loss timeout
#     (--udp-loss-timeout-us 50000: 25 ms), a physical bound: no wait for a
#     lost message leaks into a kept repetition (with about 10% of the
#     repetitions losing one, such a leak would put the p99 at 50 ms or
#     more). Not the two runs' medians against each other: the TUN relay
#     itself is bimodal (about 6 and 40 us, its process awake or woken), and
#     one CI run put the drop run in its slow mode (38.9 us, 66% of the
#     samples) and the no-drop run in its fast one (6.2 us), a factor 6.3
#     that is the relay's, not ngx's.
# Then a lossy link must stay measurable at ordinary counts (-c 1000 -s 1-8Ki,
# and loggp) over the same path: see the two cases at the end.
# Exit 77 without root, namespaces or the relay.
source "$(dirname "$0")/../lib/ngx-run-netns.sh"
netns_require tun
netns_init
netns_relay_pair d 0 0.05 --seed 7 --drop-proto udp || fail "relay pair with drops"
netns_relay_pair c 0 0 || fail "relay pair without drops"
count=300 warmup=10

run_over() {  # PAIR PORT OUT [NGX_OPTION...] (default: the ping-pong of the first case)
    local p=$1 port=$2 out=$3 a b ip
    shift 3
    local -a what=("$@")
    [[ ${#what[@]} -gt 0 ]] || what=(-x pingpong -s 1,64,1024 -c "$count" --warmup "$warmup" --udp-loss-timeout-us 50000)
    a=$(netns_get "$p" ns_a) b=$(netns_get "$p" ns_b) ip=$(netns_get "$p" ip_a)
    netns_bg "$a" "$IT_DIR/server-$p.log" "$NGX" --listen "$ip:$port" --accept-timeout 30 --timeout 5
    local srv=$NETNS_BG_PID
    ip netns exec "$b" timeout -k 2 240 "$NGX" --connect "$ip:$port" -m udp "${what[@]}" --timeout 5 -o "$out" \
        >"$IT_DIR/out-$p" 2>"$IT_DIR/err-$p" </dev/null
    RC=$?
    netns_wait_bg "$srv" 10
    local src=$?
    echo "pair $p: client exit $RC, server exit $src; stderr: $(tr '\n' ' ' <"$IT_DIR/err-$p")"
    cat "$IT_DIR/out-$p"
    [[ $RC == 0 ]] || fail "udp over the relay ($p): client exit $RC: $(cat "$IT_DIR/server-$p.log")"
    [[ $src == 0 ]] || fail "udp over the relay ($p): server exit $src"
}

run_over d 7331 "$IT_DIR/drop.json"
run_over c 7332 "$IT_DIR/clean.json"
python3 - "$IT_DIR/drop.json" "$IT_DIR/clean.json" "$count" "$warmup" <<'PY' || fail "loss report"
import json, math, os, sys
sys.path.insert(0, os.path.join(os.environ["NGX_SOURCE_ROOT"], "tests", "lib"))
import bounds
drop, clean = (json.load(open(f)) for f in sys.argv[1:3])
count, warmup = int(sys.argv[3]), int(sys.argv[4])
def pooled(doc):
    assert doc["status"] == "complete", doc["status"]
    lost = attempted = 0
    for r in doc["results"]:
        assert r["count"] >= count, r  # more when the size was measured again (docs/output.md, Passes)
        assert "lost" in r and "loss_rate" in r, f"no loss columns in {r}"
        # warm-up: --warmup before the size's first pass, the re-warm before each later one (docs/output.md, Passes)
        warm = warmup + doc["measurement"]["rewarm"] * (r["passes"] - 1)
        assert abs(r["loss_rate"] - r["lost"] / (r["count"] + warm + r["lost"])) < 1e-6, r
        lost += r["lost"]
        attempted += r["count"] + warm + r["lost"]
    return lost, attempted, lost / attempted
lost, attempted, rate = pooled(drop)
clean_lost, clean_attempted, clean_rate = pooled(clean)
per_packet = 1 - math.sqrt(1 - rate)
print(f"drop run: {lost}/{attempted} repetitions lost: loss_rate {rate:.4f} "
      f"(expected 1-0.95^2 = 0.0975), per-packet estimate {per_packet:.4f} (relay drops 0.05)")
print(f"no-drop run: {clean_lost}/{clean_attempted}: loss_rate {clean_rate:.4f}")
assert abs(rate - 0.0975) <= 0.035, f"loss_rate {rate:.4f} is not within 3.5 points of 9.75%"
assert clean_rate < 0.02, f"the no-drop run lost {clean_rate:.4f} of its repetitions"
loss_wait_us = 50000  # --udp-loss-timeout-us of run_over
for r, c in zip(drop["results"], clean["results"]):
    print(f"size {r['size_bytes']}: median {r['median_us']:.2f} us with drops, {c['median_us']:.2f} us without; "
          f"p99 with drops {r['p99_us']:.2f} us")
    assert bounds.at_least(f"size {r['size_bytes']}: half the loss timeout against the p99 with drops (us)",
                           loss_wait_us / 2, r["p99_us"])
PY
ok "udp with 5% random drops: completes, loss rate reported, no loss wait in a kept repetition"

# A lossy link stays measurable at an ordinary count: -c 1000 -s 1-8Ki over
# the same path (here -c 400: each loss
# waits the 20 ms loss timeout, and -c 1000 spent a minute of the suite on
# them). A message of s bytes takes ceil(s / 1472) datagrams at MTU 1500, so
# an 8 KiB repetition (6 + 6 datagrams) loses one with probability
# 1 - 0.95^12 = 46%: about 340 lost repetitions for 410 good ones, past the
# old fixed budget (--retries 100, which failed the -c 1000 run at 2 KiB,
# exit 1); the relative one (--max-loss 50% of the repetitions) completes,
# and every size reports its loss in the JSON and in the table.
# The sanitizer pass of tools/test-all.sh (NGX_TEST_SANITIZED=1) leaves the
# sweep to the release pass: it is mostly waiting on loss timeouts, and its
# code path (loss, resync, the budget) is the first case's.
if [[ ${NGX_TEST_SANITIZED:-0} == 1 ]]; then
    echo "note: sanitizer pass: the -c 400 sweep runs in the release pass only"
else
run_over d 7333 "$IT_DIR/sweep.json" -x pingpong -s 1-8Ki -c 400 --warmup 10 --udp-loss-timeout-us 20000
grep -q 'loss_rate' "$IT_DIR/out-d" || fail "the table has no loss_rate column"
python3 - "$IT_DIR/sweep.json" <<'PY' || fail "sweep -c 1000 -s 1-8Ki"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
sizes = [r["size_bytes"] for r in d["results"]]
assert sizes == [2**i for i in range(14)], sizes
for r in d["results"]:
    assert r["count"] >= 400, r
    assert "lost" in r and "loss_rate" in r, f"no loss columns in {r}"
    assert r["loss_rate"] < 0.5, r
    print(f'size {r["size_bytes"]}: lost {r["lost"]:.0f}, loss_rate {r["loss_rate"]:.3f}, median {r["median_us"]:.1f} us')
assert max(r["lost"] for r in d["results"]) > 100, "no size lost more than the old budget of 100"
PY
ok "udp -c 400 -s 1-8Ki with 5% drops: completes within --max-loss, loss per size reported"
fi

# loggp over the lossy path. Its o_r series (the responder times
# its receive) ended the run at the first loss; it now takes part in the
# resync like the PRTT series. --loggp-n 4: a PRTT(16, d, s) repetition
# carries 17 datagrams and loses one 58% of the time, past --max-loss 50%.
run_over d 7334 "$IT_DIR/loggp.json" -x loggp --loggp-n 4 -s 1,64,1024 -c 100 --warmup 10 --udp-loss-timeout-us 20000
python3 - "$IT_DIR/loggp.json" <<'PY' || fail "loggp over the lossy path"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
assert [r["size_bytes"] for r in d["results"]] == [1, 64, 1024], d["results"]
lost = sum(r["lost"] for r in d["results"])
assert lost > 0, "no loss at all: the o_r series was not exercised under loss"
for r in d["results"]:
    assert r["o_r_us"] > 0, r
print(f"loggp: complete, {lost:.0f} repetitions lost and retried")
PY
ok "loggp over udp with 5% drops: completes, o_r resyncs after a loss"
echo PASS
