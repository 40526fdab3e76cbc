# common.sh: sourced by the tests of suite 'overhead' (paper 003: the
# overhead pattern, the protocol decomposition, LoGH{sS}P).
set -u
fail() { echo "FAIL: $*"; exit 1; }
[[ -n ${NGX:-} && -x $NGX ]] || { echo "SKIP: \$NGX is not set (run through meson test)"; exit 77; }
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# Runs CHECK (a function) up to twice: timing on 2 shared cores is noisy, a
# physical fact must hold once more before the test fails.
twice() {
    "$@" && return 0
    echo "--- measuring once more"
    "$@"
}
