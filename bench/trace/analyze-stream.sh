#!/bin/bash
# analyze-stream.sh BUILD_DIR [EVENTS...]: `ngx trace analyze` on synthetic
# traces (gen_trace.c: 4 ranks, Irecv / Isend / Waitall rings) of EVENTS
# records in all (default 1 and 10 million): wall time and peak memory
# (GNU time's maximum resident set), which must not grow with the events.
set -eu
build=$(cd "${1:?usage: analyze-stream.sh BUILD_DIR [EVENTS...]}" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
events=("$@")
[[ ${#events[@]} -gt 0 ]] || events=(1000000 10000000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/gen_trace" "$here/gen_trace.c"
cat >"$work/params.json" <<'JSON'
{"pattern": "loggps", "model": {"kind": "loggps", "L_us": {"value": 1.5}, "o_prime_us": {"value": 0.4},
 "O_s_us_per_byte": {"value": 0.0001}, "O_r_us_per_byte": {"value": 0.0002}, "G_s_us_per_byte": {"value": 0.0003},
 "G_l_us_per_byte": {"value": 0.0003}, "s_bytes": null, "S_bytes": 4096}}
JSON
printf '%12s %10s %12s\n' events seconds max_rss_MiB
for n in "${events[@]}"; do
    rm -f "$work"/rank-*.ngxt
    "$work/gen_trace" "$work" 4 $((n / 20))   # 4 ranks x 5 records per iteration
    /usr/bin/time -f '%e %M' -o "$work/time" timeout 300 "$build/ngx" trace analyze "$work" \
        --params "$work/params.json" --format json >"$work/out.json"
    read -r secs kib <"$work/time"
    printf '%12d %10s %12.1f\n' "$n" "$secs" "$(echo "$kib / 1024" | bc -l)"
done
