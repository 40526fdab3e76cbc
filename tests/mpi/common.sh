# common.sh: sourced by the tests of suite 'mpi'. Runs mpirun as root on
# loopback with the flags of the notes (shared/notes/README.md, Open MPI):
#     ngx_mpirun vader|tcp [MPIRUN_OPTION...] -- PROGRAM [ARG...]
# Exits 77 (skipped) with a reason when mpirun or the mpi module is missing.
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
need_mpirun
need_ngx
need_mpi_module
MPI_TIMEOUT=${MPI_TIMEOUT:-90}
make_scratch

ngx_mpirun() {
    local btl=$1
    shift
    local -a extra=()
    while [[ $# -gt 0 && $1 != -- ]]; do extra+=("$1"); shift; done
    shift
    timeout -k 5 "$MPI_TIMEOUT" "${MPIRUN_LOCAL[@]}" --mca btl_tcp_if_include lo --mca btl "self,$btl" \
        -x NGX_MODULE_PATH "${extra[@]}" "$@"
}

# The median (us) of SIZE bytes of run number RUN (0-based) in a result file.
median_of() {
    python3 - "$1" "$2" "${3:-0}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
runs = d.get("runs", [d])
run = runs[int(sys.argv[3])]
for r in run["results"]:
    if r["size_bytes"] == int(sys.argv[2]):
        print(r["median_us"]); break
PY
}

# A field of the results of SIZE bytes, e.g. o_s_us.
# field_of FILE SIZE FIELD [RUN]: a result field of one size of run RUN (default 0).
field_of() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); run=d.get("runs",[d])[int(sys.argv[4])]; print([r[sys.argv[3]] for r in run["results"] if r["size_bytes"]==int(sys.argv[2])][0])' "$1" "$2" "$3" "${4:-0}"
}

# True when A > B (floating point).
gt() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)' "$1" "$2"; }
