#!/usr/bin/env bash
# Section 4.5's check on a real program no one here wrote: HPC Challenge
# (Debian's `hpcc`, Open MPI build; its HPL part is a Gaussian elimination)
# on NP ranks of this machine, per BTL:
#   1. LogGPS parameters: `mpirun -np 2 ngx -m mpi -x loggps` on the same BTL
#      (S taken from `ompi_info` when the fit found no rendezvous switch);
#   2. RUNS traced runs at Open MPI's eager limit and RUNS with it raised to
#      RAISE bytes (btl_<btl>_eager_limit), alternated;
#   3. `ngx trace analyze` of each run at the default limit, and the what-if
#      `--set S=RAISE` of the same traces;
#   4. prints T_m and T_p (median and range over the runs), sigma, and the
#      measured change of T_m against the predicted one.
#
#     bench/trace/real-program.sh BUILD [-n N] [-r RUNS] [-b tcp,vader] [-R RAISE] [-p NP] [-k DIR]
#
# N is HPL's matrix order in hpccinf.txt (every other test of hpcc is sized
# from it); -k keeps the traces, fits and analyses in DIR. Exit 77 when hpcc
# or mpirun is missing, 2 for usage errors.
set -euo pipefail
usage() { echo "usage: real-program.sh BUILD [-n N] [-r RUNS] [-b tcp,vader] [-R RAISE] [-p NP] [-k DIR]" >&2; exit 2; }
[[ $# -ge 1 && -x $1/ngx ]] || usage
build=$(cd "$1" && pwd)
shift
n=300 runs=3 btls=tcp,vader raise=262144 np=4 keep=
while getopts n:r:b:R:p:k: opt; do
    case $opt in
        n) n=$OPTARG ;; r) runs=$OPTARG ;; b) btls=$OPTARG ;; R) raise=$OPTARG ;; p) np=$OPTARG ;; k) keep=$OPTARG ;;
        *) usage ;;
    esac
done
for v in "$n" "$runs" "$raise" "$np"; do [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "real-program.sh: '$v' is not a positive integer" >&2; exit 2; }; done
command -v hpcc >/dev/null || { echo "real-program.sh: hpcc not installed (apt-get install hpcc)" >&2; exit 77; }
command -v mpirun >/dev/null || { echo "real-program.sh: mpirun not installed (openmpi-bin)" >&2; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ngx=$build/ngx
here=$(cd "$(dirname "$0")" && pwd)
if [[ -n $keep ]]; then mkdir -p "$keep"; work=$(cd "$keep" && pwd); else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
bash "$here/hpccinf.sh" "$n" "$np" >"$work/hpccinf.txt"

mpi() { # BTL LIMIT: the mpirun command line of one run
    echo mpirun --bind-to none --oversubscribe --mca oob_tcp_if_include lo --mca btl "self,$1" \
        --mca "btl_$1_eager_limit" "$2" -np "$np"
}
eager_limit() { # BTL: Open MPI's default eager limit of that BTL
    ompi_info --param btl "$1" --level 9 --parsable | awk -F: -v k="btl_$1_eager_limit" '$0 ~ ":" k ":value:" {print $NF}'
}
fit() { # BTL FILE: LogGPS between two ranks on BTL, with S from ompi_info when the fit found none
    timeout 600 mpirun --bind-to none --oversubscribe --mca oob_tcp_if_include lo --mca btl "self,$1" -np 2 \
        "$ngx" -m mpi -x loggps -o "${2%.json}-fit.json" >"$2.log" 2>&1 || { echo "fit on $1 failed: $2.log" >&2; exit 1; }
    python3 - "${2%.json}-fit.json" "$2" "$(eager_limit "$1")" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
model = doc["model"] if "model" in doc else doc["runs"][0]["model"]
if not isinstance(model.get("S_bytes"), (int, float)):
    model["S_bytes"] = float(sys.argv[3])
    print(f"  (the fit found no S: S = {sys.argv[3]} B, Open MPI's eager limit)", file=sys.stderr)
json.dump(model, open(sys.argv[2], "w"), indent=1)
EOF
}
traced() { # BTL LIMIT DIR: one traced run of hpcc
    rm -rf "$3"
    (cd "$work" && rm -f hpccoutf.txt && timeout 600 "$ngx" trace -o "$3" -- $(mpi "$1" "$2") hpcc >/dev/null 2>&1) ||
        { echo "traced run of hpcc on $1 failed" >&2; exit 1; }
}
field() { # JSON PATH...: a number of an analysis
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2:]: d = d[k]
print(d)' "$@"
}
stats() { # VALUES: median min max
    tr ' ' '\n' <<<"$*" | grep . | sort -g | awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f %.4f %.4f\n", m, v[1], v[NR]}'
}

printf 'hpcc, N = %s, %s ranks, %s runs per limit; load average %s\n' "$n" "$np" "$runs" "$(cut -d' ' -f1 /proc/loadavg)"
for btl in ${btls//,/ }; do
    base=$(eager_limit "$btl")
    [[ -n $base ]] || { echo "real-program.sh: ompi_info knows no btl_${btl}_eager_limit" >&2; exit 2; }
    echo "== btl $btl: eager limit $base B, raised to $raise B"
    fit "$btl" "$work/loggps-$btl.json"
    tm=() tp=() tm2=() gain=() ev=()
    for i in $(seq "$runs"); do
        traced "$btl" "$base" "$work/$btl-$i"
        traced "$btl" "$raise" "$work/$btl-raised-$i"
        a=$work/$btl-$i.json b=$work/$btl-raised-$i.json
        "$ngx" trace analyze "$work/$btl-$i" --params "$work/loggps-$btl.json" --set "S=$raise" -o "$a" >/dev/null
        "$ngx" trace analyze "$work/$btl-raised-$i" --params "$work/loggps-$btl.json" -o "$b" >/dev/null
        tm+=("$(field "$a" total measured_s)") tp+=("$(field "$a" total predicted_s)")
        tm2+=("$(field "$b" total measured_s)") gain+=("$(awk -v g="$(field "$a" what_if gain_s)" 'BEGIN {print -g}')") ev+=("$(field "$a" events)")
        [[ -n $keep ]] || rm -rf "$work/$btl-$i" "$work/$btl-raised-$i"
    done
    read -r m0 m0lo m0hi <<<"$(stats "${tm[@]}")"
    read -r p0 p0lo p0hi <<<"$(stats "${tp[@]}")"
    read -r m1 m1lo m1hi <<<"$(stats "${tm2[@]}")"
    read -r g glo ghi <<<"$(stats "${gain[@]}")" # predicted changes: minus the what-if's gains
    printf '  events per run          %s\n' "${ev[*]}"
    printf '  T_m at %-8s B       %s s (runs %s .. %s)\n' "$base" "$m0" "$m0lo" "$m0hi"
    printf '  T_p                     %s s (runs %s .. %s), sigma %+.1f %%\n' "$p0" "$p0lo" "$p0hi" \
        "$(awk -v p="$p0" -v m="$m0" 'BEGIN {print 100 * (p - m) / m}')"
    printf '  T_m at %-8s B       %s s (runs %s .. %s)\n' "$raise" "$m1" "$m1lo" "$m1hi"
    printf '  measured change         %+.4f s (medians; runs differ by up to %.4f s)\n' \
        "$(awk -v a="$m0" -v b="$m1" 'BEGIN {print b - a}')" "$(awk -v a="$m0hi" -v b="$m0lo" 'BEGIN {print a - b}')"
    printf '  predicted change        %+.4f s (--set S=%s on the runs at %s B; runs %s .. %s)\n' \
        "$g" "$raise" "$base" "$glo" "$ghi"
    python3 "$here/largest_gaps.py" "$work/$btl-1.json"
done
