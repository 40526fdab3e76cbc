#!/usr/bin/env bash
# The way in without root: a user the test creates (useradd; removed after)
# gets a copy of the tracked files of this tree in its home, builds ngx
# against the machine's MPI and libibverbs (found by pkg-config or mpicxx)
# and installs it under ~/.local:
#
#     meson setup build --prefix=$HOME/.local -Dbuildtype=release -Dtests=disabled -Dmpi=enabled
#     ninja -C build && meson install -C build
#
# Then, with no variable of ngx's in the environment (env -i, PATH with
# ~/.local/bin): the installed ngx lists its modules and patterns from the
# prefix, runs the main job over shm and a 2-rank mpirun pingpong, draws a
# figure with its installed plot script, `man ngx` finds the page (man-db
# derives ~/.local/share/man from PATH), the prefix moved elsewhere still
# works (files found relative to the binary), and `ninja uninstall` leaves
# nothing under the prefix. Needs root (to create the user); a few minutes on
# two free cores, the build being most of it (its deadline is 20 minutes for a
# loaded machine). With ccache installed the user's build uses the cache in
# $CCACHE_DIR (tools/test-all.sh points it at the cache its own builds fill,
# so only the files that name the prefix compile again), else
# /var/cache/ngx-install-test, kept between runs.
set -euo pipefail
: "${NGX_SOURCE_ROOT:?}"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root to create a user (useradd)"
for c in useradd userdel runuser git meson ninja mpirun man; do
    command -v "$c" >/dev/null || skip "$c is missing (bash tools/setup.sh; bash tools/test-deps.sh)"
done
git -C "$NGX_SOURCE_ROOT" rev-parse --git-dir >/dev/null 2>&1 || skip "$NGX_SOURCE_ROOT is not a git checkout"

user=ngxinst$$
base=$(mktemp -d /tmp/ngx-user-install.XXXXXX)
chmod 755 "$base"
home=$base/home
cache=${CCACHE_DIR:-/var/cache/ngx-install-test}
cleanup() {
    pkill -KILL -u "$user" 2>/dev/null || true # what a step left running past its deadline
    userdel -f "$user" >/dev/null 2>&1 || true
    [ ! -d "$cache" ] || chown -R root:root "$cache"
    rm -rf "$base"
}
trap cleanup EXIT
useradd -m -d "$home" -s /bin/bash "$user" || fail "useradd $user"

# A clean copy of the tracked files, as a clone has them (the tree's own edits included).
mkdir "$home/ngx"
(cd "$NGX_SOURCE_ROOT" && git ls-files -z | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
    tar -xf - -C "$home/ngx" || fail "copying the tracked files"
chown -R "$user:" "$home/ngx"

ccache_env=()
if command -v ccache >/dev/null; then
    mkdir -p "$cache"
    chown -R "$user:" "$cache"
    ccache_env=(CCACHE_DIR="$cache" CCACHE_BASEDIR="$home/ngx")
fi
# as_user SECONDS COMMAND: COMMAND in bash as the user, in its home, with a
# bare environment and a deadline.
as_user() {
    local seconds=$1
    shift
    (cd "$home" && timeout "$seconds" runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" \
        LANG=C.UTF-8 PATH="$home/.local/bin:/usr/local/bin:/usr/bin:/bin" "${ccache_env[@]}" bash -c "$1")
}

start=$(date +%s)
as_user 1200 'cd ngx && meson setup build --prefix="$HOME/.local" -Dbuildtype=release -Dtests=disabled -Dmpi=enabled \
    >setup.log 2>&1 && ninja -C build >build.log 2>&1 && meson install -C build >install.log 2>&1' ||
    fail "build and install as $user: $(tail -20 "$home"/ngx/*.log 2>/dev/null)"
echo "built and installed in $(($(date +%s) - start)) s"
prefix=$home/.local
libdir=$(as_user 30 'meson introspect --buildoptions ngx/build' |
    python3 -c 'import json,sys; print({o["name"]: o["value"] for o in json.load(sys.stdin)}["libdir"])')

# The installed program, found on PATH, finds its modules and patterns in the prefix alone.
[ "$(as_user 10 'command -v ngx')" = "$prefix/bin/ngx" ] || fail "ngx on PATH is not $prefix/bin/ngx"
as_user 30 'ngx --list-modules' >"$base/modules" 2>&1 || fail "ngx --list-modules: $(cat "$base/modules")"
for m in shm tcp mpi; do
    grep -qE "^  $m  .*\($prefix/$libdir/ngx/modules/ngx_$m.so\)" "$base/modules" ||
        fail "module $m not listed from the prefix: $(cat "$base/modules")"
done
grep -q "^Searched: $prefix/$libdir/ngx/modules $" "$base/modules" ||
    fail "modules searched outside the prefix: $(grep Searched "$base/modules")"
as_user 30 'ngx --list-patterns' >"$base/patterns" 2>&1 || fail "ngx --list-patterns: $(cat "$base/patterns")"
grep -qE "^  loggp  .*\($prefix/$libdir/ngx/patterns/ngx_pattern_loggp.so\)" "$base/patterns" ||
    fail "pattern loggp not listed from the prefix: $(cat "$base/patterns")"

# The main job (LogGP) over shm, and a pingpong over MPI between two ranks.
as_user 120 'ngx -m shm -s 1-4Ki -c 40 -o main.json' >"$base/main" 2>&1 || fail "ngx -m shm: $(tail "$base/main")"
grep -q "loggp" "$base/main" || fail "the main job printed no LogGP parameters: $(cat "$base/main")"
as_user 120 'mpirun -np 2 ngx -m mpi -x pingpong -s 1-1Ki -c 40 -o mpi.json' >"$base/mpi" 2>&1 ||
    fail "mpirun -np 2 ngx -m mpi: $(tail "$base/mpi")"
python3 - "$home/main.json" "$home/mpi.json" <<'PY' || fail "saved runs"
import json, sys
main, mpi = (json.load(open(path)) for path in sys.argv[1:])
assert main["module"] == "shm" and main["pattern"] == "loggp", (main["module"], main["pattern"])
assert mpi["module"] == "mpi" and [r["size_bytes"] for r in mpi["results"]] == [2**i for i in range(11)], mpi["results"]
assert all(r["median_us"] > 0 for r in mpi["results"])
PY

# The installed plot script draws the run (or says how to get matplotlib).
if as_user 30 'python3 -c "import matplotlib"' 2>/dev/null; then
    as_user 120 'ngx plot main.json -o main.png' >"$base/plot" 2>&1 || fail "ngx plot: $(cat "$base/plot")"
    [ -s "$home/main.png" ] || fail "ngx plot drew no main.png"
else
    ! as_user 60 'ngx plot main.json -o main.png' >"$base/plot" 2>&1 || fail "ngx plot without matplotlib succeeded"
    grep -q "pip install --user matplotlib" "$base/plot" || fail "ngx plot without matplotlib: $(cat "$base/plot")"
fi

# man finds the page through PATH (man-db looks in ../share/man beside each PATH entry).
page=$(as_user 30 'man -w ngx' 2>&1) || fail "man -w ngx: $page"
[ "$page" = "$prefix/share/man/man1/ngx.1" ] || fail "man -w ngx gave '$page', not the prefix's page"

# A prefix moved elsewhere: the binary finds its files relative to itself.
as_user 10 'mv .local moved'
as_user 30 'moved/bin/ngx --list-modules' >"$base/moved" 2>&1 || fail "moved ngx --list-modules: $(cat "$base/moved")"
grep -qE "^  shm  .*\($home/moved/$libdir/ngx/modules/ngx_shm.so\)" "$base/moved" ||
    fail "the moved prefix's modules are not found: $(cat "$base/moved")"
as_user 60 'moved/bin/ngx -m shm -x pingpong -s 8 -c 20' >"$base/moved-run" 2>&1 ||
    fail "the moved ngx does not run: $(tail "$base/moved-run")"
as_user 10 'mv moved .local'

# Uninstalled, nothing is left under the prefix (meson removes the folders it made).
as_user 120 'ninja -C ngx/build uninstall' >"$base/uninstall" 2>&1 || fail "ninja uninstall: $(tail "$base/uninstall")"
if [ -e "$prefix" ]; then
    left=$(find "$prefix" -mindepth 1)
    [ -z "$left" ] || fail "left after uninstall: $left"
fi
echo "PASS: built as $user, installed under ~/.local, ran shm, mpi (2 ranks), plot, man; moved; uninstalled" \
    "($(($(date +%s) - start)) s)"
