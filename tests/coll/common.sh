# common.sh: sourced by the scripts of suite 'coll': fail, the skips for a
# missing $NGX or python3, a scratch dir removed on exit, and P ranks started
# as the layouts tests start them (even P: local pairs; odd P: mpirun).
set -u
fail() { echo "FAIL: $*"; exit 1; }
[[ -n ${NGX:-} && -x $NGX ]] || { echo "SKIP: \$NGX is not set (run through meson test)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is missing"; exit 77; }
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# coll_run P OUT_TEXT NGX_ARGS...: P ranks of ngx; the exit code of the run.
coll_run() {
    local np=$1 out=$2
    shift 2
    if ((np % 2 == 1)); then
        timeout -k 5 60 mpirun --allow-run-as-root --bind-to none --oversubscribe \
            --mca oob_tcp_if_include lo --mca btl self,vader -x NGX_MODULE_PATH -x NGX_PATTERN_PATH \
            -np "$np" "$NGX" "$@" >"$out" 2>&1
    else
        timeout -k 5 60 "$NGX" --pairs $((np / 2)) "$@" >"$out" 2>&1
    fi
}
