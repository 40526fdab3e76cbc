# Shared by the ReFrame library's tests (suite 'reframe'): ReFrame from PyPI
# in a virtual environment under the build directory (installed once, then
# reused by every test and run: $NGX_BUILD_ROOT/reframe-venv), a scratch
# directory, and rfm, which runs the library (reframe/ngx_checks.py) with the
# suite's site configuration (reframe/config/local.py) on the sim in virtual
# time, so every number is exact and every verdict deterministic.
#
#     source "$(dirname "$0")/common.sh"
#     rfm ngx-local:local -S record_baseline=yes     # rc in RC, output in $SCRATCH/rfm.out
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
NGX=${NGX:?NGX must name the ngx binary}
LIBRARY=$NGX_SOURCE_ROOT/reframe

# A version of the ReFrame 4 API the library is written against.
REFRAME_REQUIREMENT='reframe-hpc>=4.5,<5'

reframe_venv() {
    local venv=$NGX_BUILD_ROOT/reframe-venv
    RFM=$venv/bin/reframe
    exec 9>"$NGX_BUILD_ROOT/reframe-venv.lock"
    flock -w 300 9 || fail "another test held $NGX_BUILD_ROOT/reframe-venv.lock for 300 s"
    if ! "$RFM" --version >/dev/null 2>&1; then
        rm -rf "$venv"
        python3 -m venv "$venv" >"$SCRATCH/venv.log" 2>&1 ||
            fail "python3 -m venv (tools/setup.sh installs python3-venv): $(tail -3 "$SCRATCH/venv.log")"
        if ! timeout 300 "$venv/bin/pip" install -q --disable-pip-version-check "$REFRAME_REQUIREMENT" \
            >"$SCRATCH/pip.log" 2>&1; then
            python3 -c 'import urllib.request; urllib.request.urlopen("https://pypi.org/simple/reframe-hpc/", timeout=15)' \
                2>/dev/null || { rm -rf "$venv"; skip "PyPI is unreachable: reframe-hpc cannot be installed"; }
            rm -rf "$venv"
            fail "pip install $REFRAME_REQUIREMENT: $(tail -5 "$SCRATCH/pip.log")"
        fi
    fi
    flock -u 9
    echo "$("$RFM" --version) from $venv"
}

SCRATCH=$(mktemp -d /tmp/ngx-reframe.XXXXXX)
chmod 755 "$SCRATCH"
cleanup_scratch() { if [ "${KEEP:-0}" = 1 ]; then echo "kept $SCRATCH"; else rm -rf "$SCRATCH"; fi; }
trap cleanup_scratch EXIT
cd "$SCRATCH" || fail "cd $SCRATCH"
reframe_venv

# The simulated network of every check: L 10 us, o_s = o_r = 1 us, g 2 us,
# G 0.001 us/B, in virtual time. A planted regression raises L.
SIM_NETWORK="--sim-clock virtual --sim-L 10"

# rfm SYSTEM:PARTITION [REFRAME OPTION...]: one run of the library, exit
# status in RC, output in $SCRATCH/rfm.out, its report in $SCRATCH/report.json.
rfm() {
    local system=$1
    shift
    timeout 300 "$RFM" -C "$LIBRARY/config/local.py" -c "$LIBRARY/ngx_checks.py" --system "$system" \
        --prefix "$SCRATCH/rfm" --report-file "$SCRATCH/report.json" -r \
        -S ngx_module=sim -S "module_opts=$SIM_NETWORK" -S "baseline_dir=$SCRATCH/baselines" "$@" \
        >"$SCRATCH/rfm.out" 2>&1
    RC=$?
    if grep -q "Traceback" "$SCRATCH/rfm.out"; then
        cat "$SCRATCH/rfm.out"
        fail "a Python traceback in ReFrame's output"
    fi
}

# outcome: "NAME result" per test case of the last run's report, sorted.
outcome() {
    python3 - "$SCRATCH/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
cases = [c for run in report["runs"][-1:] for c in run["testcases"]]
for c in sorted(cases, key=lambda c: c["display_name"]):
    print(c["display_name"].split(" /")[0], c["result"])
PY
}

# reason NAME: the failure reason of a test case of the last run.
reason() {
    python3 - "$SCRATCH/report.json" "$1" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for c in report["runs"][-1]["testcases"]:
    if c["display_name"].startswith(sys.argv[2]):
        print(c.get("fail_reason") or "")
PY
}

# record_baselines SYSTEM:PARTITION [OPTION...]: the LogGP model first (the
# collectives predict from it), then every other check's baseline.
record_baselines() {
    local system=$1
    shift
    rfm "$system" -S record_baseline=yes -n NgxLogGP "$@"
    [[ $RC == 0 ]] || { cat "$SCRATCH/rfm.out"; fail "recording the LogGP baseline on $system: exit $RC"; }
    rfm "$system" -S record_baseline=yes -x NgxLogGP "$@"
    [[ $RC == 0 ]] || { cat "$SCRATCH/rfm.out"; fail "recording the baselines on $system: exit $RC"; }
}
