#!/bin/bash
# The protocol decomposition (Al-Tawil and Moritz 1998, section 3.2, eqs. 1-7; `ngx fit RUN.json`)
# over the sim in virtual time (exact: the protocol inferred at every size
# and mode, and the predictions within 5% where the paper's equations
# describe the sim's protocol):
#  sim with a rendezvous threshold (--sim-S 2048), standard mode (the base
#     run: o_s, o_r, L, G) and synchronous mode: T at every size <= S in
#     standard mode; above S the sim asks (zero-byte request), waits for the
#     acknowledgement and pushes the data. Al-Tawil and Moritz 1998 (section 3.2, Figure 1)
#     calls the push model RAT (Request, Acknowledge, Transfer; RTA pulls the
#     data and acknowledges after it), and RAT is inferred at every size > S
#     in both modes. The T sizes' predicted T_s-r (eq. 2) within 5% of the
#     measured. The paper's RAT also ends with an acknowledgement of the
#     pushed data (eq. 7: T_s-r = 4 o_s + 4L + 3 o_r + (k-1)G, the ACK's L
#     and o_r included); the sim's rendezvous is LogGPS's (Ino et al. 2001,
#     Table 3), without it: half its ping-pong is 3 o_s + 3L + 3 o_r + (k-1)G,
#     eq. (7) less that ACK's o_s + L, which the RAT rows must match within
#     5%. Synchronous mode below S: the send waits for the receiver's match
#     (the sim's acknowledgement arrives L after the data), the data went
#     first: TA (eq. 3 nearer the measured send than eq. 1 when 2L > o_s +
#     2 o_r: L = 10 us here, o_s 2, o_r 4); `-o` writes the decomposition
#     as JSON (rows mode x size), and --format csv prints the transport's
#     parameters and the decomposition as CSV, a row per row of the JSON.
source "$(dirname "$0")/common.sh"

sim_check() {
    "$NGX" -m sim --sim-clock virtual --sim-mode standard,synchronous --sim-os 2 --sim-or 4 --sim-L 10 --sim-S 2048 -x overhead \
        -s 1,256,1Ki,2Ki,4Ki,8Ki,16Ki -c 20 --warmup 2 -o "$SCRATCH/sim.json" >"$SCRATCH/log" 2>&1 ||
        { cat "$SCRATCH/log"; return 1; }
    "$NGX" fit "$SCRATCH/sim.json" -o "$SCRATCH/sim-protocols.json" || return 1
    python3 - "$SCRATCH/sim-protocols.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["kind"] == "protocols" and doc["rows"], doc
p = doc["params"]
ok = True
for row in doc["rows"]:
    s, sync = row["size_bytes"], row["run"].endswith("synchronous")
    want = ("TA" if sync else "T") if s <= 2048 else "RAT"
    good = row["protocol"] == want
    measured = row["measured_end_to_end_us"]
    if want == "T":  # eq. (2)
        err = row["relative_error"]
    elif want == "RAT":  # eq. (7) less the closing ACK the sim does not send
        err = (row["predicted_end_to_end_us"] - p["o_s_us"] - p["L_us"] - measured) / measured
    else:
        err = None  # TA: half a ping-pong of synchronous sends is not eq. (3)'s two deliveries
    good &= err is None or abs(err) <= 0.05
    ok &= good
    shown = "" if err is None else f", error {100 * err:+.1f}%"
    print(f'{row["run"]} {s} B: {row["protocol"]} (sim: {want}), measured {measured:.2f} us{shown}'
          f'{"" if good else "  <-- FAILS"}')
sys.exit(0 if ok else 1)
PY
}
sim_check || fail "protocols over sim"
"$NGX" fit "$SCRATCH/sim.json" --format csv >"$SCRATCH/fit.csv" || fail "ngx fit --format csv"
python3 "$NGX_SOURCE_ROOT/tests/lib/fit_csv.py" "$SCRATCH/fit.csv" "transport=o_s_us,o_r_us,L_us,G_us_per_byte" \
    "protocol decomposition=run,size_bytes,protocol,predicted_end_to_end_us,measured_end_to_end_us,relative_error,predicted_sender_us,measured_o_s_us,measured_o_r_us" ||
    fail "the CSV of ngx fit --format csv"
python3 - "$SCRATCH/fit.csv" "$SCRATCH/sim-protocols.json" <<'PY' || fail "the CSV's decomposition is not the JSON's"
import csv, json, sys
block = open(sys.argv[1]).read().split("\n\n")[1]
rows = list(csv.DictReader(line for line in block.splitlines() if not line.startswith("#")))
want = json.load(open(sys.argv[2]))["rows"]
assert len(rows) == len(want), (len(rows), len(want))
for got, row in zip(rows, want):
    assert all(got[k] == v if isinstance(v, str) else float(got[k]) == v for k, v in row.items()), (got, row)
print(f"csv: the {len(rows)} rows of the decomposition are the JSON's")
PY
echo PASS
