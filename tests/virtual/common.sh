# common.sh: sourced by the seeded-noise scripts of suite 'virtual': fail,
# the skips for a missing $NGX or python3, and a scratch dir removed on exit.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[[ -n ${NGX:-} && -x $NGX ]] || { echo "SKIP: \$NGX is not set (run through meson test)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is missing"; exit 77; }
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
