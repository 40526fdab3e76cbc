#!/usr/bin/env bash
# tests/fuzz/run.sh [BUILD_DIR] [SECONDS]: builds the libFuzzer targets with
# clang, ASan and UBSan (everything instrumented for coverage) and runs each
# for SECONDS (default 30) on a copy of its seed corpus in tests/fuzz/corpus/,
# FUZZ_JOBS (default: the CPU count) targets at a time.
# Exits non-zero when a target crashes, leaks, trips a sanitizer or fails to
# build; the crashing input is kept in BUILD_DIR/fuzz-artifacts/.
#   FUZZ_TARGETS="fuzz_sizes fuzz_model" tests/fuzz/run.sh   (a subset)
#   FUZZ_BUILD_ONLY=1 tests/fuzz/run.sh                      (builds, runs nothing)
# Needs clang and its libFuzzer runtime (Debian: clang, libclang-rt-14-dev).
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 1
BUILD=${1:-build-fuzz}
SECONDS_EACH=${2:-30}
TARGETS=${FUZZ_TARGETS:-fuzz_sizes fuzz_prtt_csv fuzz_compare fuzz_model fuzz_listen fuzz_json_input fuzz_trace}
[[ $SECONDS_EACH =~ ^[0-9]+$ && $SECONDS_EACH -ge 1 ]] || { echo "run.sh: SECONDS must be >= 1" >&2; exit 2; }
command -v clang++ >/dev/null || { echo "run.sh: clang++ not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }

if [[ ! -f $BUILD/build.ninja ]]; then
    CC=clang CXX=clang++ meson setup "$BUILD" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized -Dcpp_args=-fsanitize=fuzzer-no-link -Dmpi=disabled -Dibverbs=disabled \
        >"${TMPDIR:-/tmp}/ngx-fuzz-setup.log" 2>&1 || { cat "${TMPDIR:-/tmp}/ngx-fuzz-setup.log"; echo "run.sh: meson setup failed" >&2; exit 1; }
fi
ninja_targets=()
for t in $TARGETS; do ninja_targets+=("tests/fuzz/$t"); done
# fuzz_listen parses as a server does: with a module and patterns found, the whole parser runs.
[[ " $TARGETS " == *" fuzz_listen "* ]] &&
    ninja_targets+=(modules/tcp/ngx_tcp.so patterns/ngx_pattern_pingpong.so patterns/ngx_pattern_nodecomm.so)
ninja -C "$BUILD" "${ninja_targets[@]}" || { echo "run.sh: building the fuzz targets failed" >&2; exit 1; }
[[ -z ${FUZZ_BUILD_ONLY:-} ]] || exit 0

# fuzz_listen parses command lines as a --listen server does, with the build's modules and patterns.
export NGX_MODULE_PATH=${NGX_MODULE_PATH:-$PWD/$BUILD/modules} NGX_PATTERN_PATH=${NGX_PATTERN_PATH:-$PWD/$BUILD/patterns}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
artifacts=$BUILD/fuzz-artifacts
mkdir -p "$artifacts"
# One target: its log in BUILD/T.log, its exit status in BUILD/T.rc.
fuzz_one() {
    local t=$1 seeds=tests/fuzz/corpus/${1#fuzz_} work=$BUILD/fuzz-corpus/${1#fuzz_}  # the corpus grows; the seeds stay
    rm -f "$BUILD/$t.rc"
    mkdir -p "$work"
    timeout -k 10 $((SECONDS_EACH + 60)) "$BUILD/tests/fuzz/$t" "$work" "$seeds" \
        -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -artifact_prefix="$artifacts/$t-" -print_final_stats=1 >"$BUILD/$t.log" 2>&1
    echo $? >"$BUILD/$t.rc"
}
# FUZZ_JOBS targets at a time (default: one per CPU): each fuzzer is one
# single-threaded process, so the CPUs share the wall time, not the depth.
jobs_at_once=${FUZZ_JOBS:-$(nproc)}
running=0
for t in $TARGETS; do
    echo "== $t: $SECONDS_EACH s (seeds: tests/fuzz/corpus/${t#fuzz_})"
    fuzz_one "$t" &
    running=$((running + 1))
    if ((running >= jobs_at_once)); then
        wait -n || true
        running=$((running - 1))
    fi
done
wait
failed=()
for t in $TARGETS; do
    rc=$(cat "$BUILD/$t.rc" 2>/dev/null || echo missing)
    echo "-- $t: exit $rc"
    tail -n 12 "$BUILD/$t.log" | grep -E 'stat::number_of_executed_units|stat::peak_rss_mb|Done' || true
    if [[ $rc != 0 ]]; then
        failed+=("$t")
        echo "FAIL: $t exited $rc; the report:" >&2
        grep -E -A25 'ERROR|runtime error|deadly signal|SUMMARY' "$BUILD/$t.log" | head -60 >&2
        ls "$artifacts/$t-"* 2>/dev/null >&2
    fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: all targets clean ($TARGETS)"
