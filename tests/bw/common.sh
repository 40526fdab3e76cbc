# common.sh: sourced by the scripts of suite 'bw': fail, the skips for a
# missing $NGX or python3, a scratch dir removed on exit, and bw_run.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[[ -n ${NGX:-} && -x $NGX ]] || { echo "SKIP: \$NGX is not set (run through meson test)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is missing"; exit 77; }
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# bw_run OUT_TEXT NGX_ARGS...: one bounded run of ngx; its exit code.
bw_run() {
    local out=$1
    shift
    timeout -k 5 90 "$NGX" "$@" >"$out" 2>&1
}
