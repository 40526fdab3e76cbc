#!/bin/bash
# bench/overhead/protocols.sh: where the protocol decomposition (Al-Tawil
# and Moritz 1998, section 3.2) under mpirun turns to a handshake, against
# Open MPI's eager limit, over R rounds (root for the tcp BTL's namespaces).
# Each round runs tests/overhead/protocols.sh (which asserts only that
# every size gets a protocol, 1 B a pushed one) and reads its "inferred"
# lines: per BTL and round, whether the first RTA/RAT size is the first size
# at or above the limit (or the next), whether every size up to half the
# limit is pushed (T or TA), and the sizes inferred pushed again above the
# switch. Prints one line per BTL and round and the counts.
#
#     bench/overhead/protocols.sh [BUILD_DIR] [-r ROUNDS]
set -u
source "$(dirname "$0")/../lib.sh"
accuracy_args "$0" "$@"
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
for ((r = 1; r <= ROUNDS; r++)); do
    out=$(timeout -k 5 900 bash "$SOURCE_ROOT/tests/overhead/protocols.sh" 2>&1)
    echo "round $r: $(grep -E '^(PASS|FAIL|SKIP)' <<<"$out" | tail -1)"
    grep -E '^(vader|tcp): eager limit' <<<"$out" | sed "s/^/$r /" >> "$lines"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$lines" <<'PY'
import re, sys
counts = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\d+) (\w+): eager limit (\d+) B .*inferred (.*)", line.strip())
    if not m:
        continue
    rnd, btl, limit = m.group(1), m.group(2), int(m.group(3))
    rows = [(int(s), p) for s, p in (x.split(":") for x in m.group(4).split(", "))]
    sizes = [s for s, _ in rows]
    first = next((i for i, (_, p) in enumerate(rows) if p in ("RTA", "RAT")), None)
    at = next((i for i, s in enumerate(sizes) if s >= limit), None)
    on_limit = first is not None and at is not None and at <= first <= at + 1
    pushed_below = all(p in ("T", "TA") for s, p in rows if s <= limit // 2)
    flips = [s for s, p in rows[first:] if p not in ("RTA", "RAT")] if first is not None else []
    c = counts.setdefault(btl, [0, 0, 0])
    c[0] += 1
    c[1] += on_limit
    c[2] += pushed_below
    print(f"round {rnd} {btl}: switch {'at' if on_limit else 'NOT at'} the limit {limit} B"
          f" (first handshake {sizes[first] if first is not None else None}), pushed up to half the limit:"
          f" {'yes' if pushed_below else 'no'}, pushed again above: {flips}")
for btl, (n, on, below) in counts.items():
    print(f"{btl}: switch at the eager limit in {on} of {n} runs; every size up to half the limit pushed in {below} of {n}")
PY
