#!/usr/bin/env python3
"""check_analyze.py PARAMS.json ANALYSIS.json SLEPT.txt [S_NEW]: the LogGPS
costs of phases.c computed by hand (Ino et al. 2001, Tables 3 and 4) against
`ngx trace analyze`'s totals: overhead, sender and receiver synchronization
within 5 %. With S_NEW (a threshold above every message), the analysis holds
the what-if --set S=S_NEW: its totals are checked against the all-eager hand
values, and its gain against the hand-computed change of the two rendezvous
phases' critical paths. Every phase starts on equal clocks (after a barrier),
the computation between calls is taken as 0 except the sleeps (measured,
printed by phases.c): the replay's params are large (o' = 0.1 s) so that the
real gaps, milliseconds at worst, stay far below 5 %."""
import json
import sys

SMALL, LARGE, PIPE = 1024, 65536, 4096
TOLERANCE = 0.05


def model(path):
    m = json.load(open(path))["model"]
    v = lambda k: m[k]["value"]
    return dict(o=v("o_prime_us"), L=v("L_us"), Os=v("O_s_us_per_byte"), Or=v("O_r_us_per_byte"),
                G=v("G_s_us_per_byte"), S=m["S_bytes"])


def hand(p, sleeps, S):
    """(overhead, sender sync, receiver sync) in us, summed over the 4 ranks."""
    o, L = p["o"], p["L"]
    T1 = lambda k: o + k * p["Os"]          # send overhead
    T2 = lambda k: k * p["G"] + L           # network (G_s = G_l)
    T3 = lambda k: o + k * p["Or"]          # receive overhead
    T5 = 2 * o + L                          # ACK
    ov = ss = rs = 0.0
    k = SMALL                               # 1: eager ring, all post at t0
    ov += 4 * (T1(k) + T3(k)); rs += 4 * T2(k)
    k = LARGE
    if k > S:                               # 2: rendezvous ring
        A = (2 * o + L) + T5 + T1(k)        # eq. (5), receiver on time
        R = o + T5 + T1(k) + T2(k) + T3(k)  # eq. (9) without its max term
        ov += 4 * (A + R); rs += 2 * (o + L + T2(k) + T3(k)) + 2 * (o + L)
    else:                                   # eager ring of LARGE
        ov += 4 * (T1(k) + T3(k)); rs += 2 * (T1(k) + 2 * T2(k) + T3(k)) + 2 * (T1(k) + T2(k))
    for w in sleeps[3]:                     # 3: receiver late by w (us)
        if k > S:
            ov += (2 * o + L) + T5 + T1(k) + o + T5 + T1(k) + T2(k) + T3(k)
            ss += w - (o + L)
            rs += max(o + L - w, 0)
        else:
            ov += T1(k) + T3(k)
            rs += max(T1(k) + T2(k) - w, 0)
    k = SMALL
    for w in sleeps[4]:                     # 4: sender late by w; Irecv o', Wait o'; Isend o', Wait o'
        ov += 4 * o
        rs += w + T1(k) + T2(k) + T3(k) - 2 * o
    k = PIPE                                # 5: pipeline 0 -> 1 -> 2 -> 3
    ov += 3 * (T1(k) + T3(k))
    rs += 6 * (T1(k) + T2(k)) + 3 * T3(k)
    return ov, ss, rs


def gain(p):
    """The predicted run time's change from rendezvous to eager LARGE messages (us)."""
    o, L, k = p["o"], p["L"], LARGE
    T1, T2 = o + k * p["Os"], k * p["G"] + L
    return 2 * (4 * o + 2 * L) + o + (2 * o + L) + T1 + T2


def close(name, got, want, failures):
    ok = abs(got - want) <= TOLERANCE * max(abs(want), 1e-9) or (want == 0 and abs(got) < 1e-3)
    print(f"{name:28s} ngx {got:12.6f} s   by hand {want:12.6f} s   {'ok' if ok else 'OFF by more than 5 %'}")
    if not ok:
        failures.append(name)


def main():
    p = model(sys.argv[1])
    analysis = json.load(open(sys.argv[2]))
    sleeps = {3: [], 4: []}
    for line in open(sys.argv[3]):
        f = line.split()
        if len(f) == 4 and f[0] == "slept":
            sleeps[int(f[2])].append(float(f[3]))
    if len(sleeps[3]) != 2 or len(sleeps[4]) != 2:
        sys.exit(f"check_analyze.py: expected 2 sleeps in phases 3 and 4, got {sleeps}")
    failures = []
    scenarios = [("", analysis["total"], p["S"])]
    if len(sys.argv) > 4:
        scenarios.append(("what-if ", analysis["what_if"]["total"], float(sys.argv[4])))
    for label, total, S in scenarios:
        ov, ss, rs = (x * 1e-6 for x in hand(p, sleeps, S))
        close(label + "overhead_s", total["overhead_s"], ov, failures)
        close(label + "sender_sync_s", total["sender_sync_s"], ss, failures)
        close(label + "receiver_sync_s", total["receiver_sync_s"], rs, failures)
    if len(sys.argv) > 4:
        close("what-if gain_s", analysis["what_if"]["gain_s"], gain(p) * 1e-6, failures)
    if analysis["unmodelled"]:
        failures.append(f"events left unmodelled: {analysis['unmodelled']}")
    if failures:
        sys.exit("check_analyze.py: " + ", ".join(failures))


if __name__ == "__main__":
    main()
