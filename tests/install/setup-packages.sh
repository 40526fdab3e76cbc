#!/usr/bin/env bash
# The set-up command installs only what building and running ngx needs:
# tools/setup.sh --print-packages names no package that only the tests need
# (Slurm, munge, hpcc, GoogleTest, jsonschema, QEMU, perftest, NetPIPE) and
# no package that starts a daemon (rdma-core, munge, Slurm's); what apt
# installs for its list on a bare machine (simulated) holds none of them
# either. tools/test-deps.sh names what the tests need.
set -euo pipefail
: "${NGX_SOURCE_ROOT:?}"
fail() { echo "FAIL: $*"; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

mapfile -t setup < <(bash "$NGX_SOURCE_ROOT/tools/setup.sh" --print-packages)
mapfile -t tests < <(bash "$NGX_SOURCE_ROOT/tools/test-deps.sh" --print-packages)
[ ${#setup[@]} -gt 0 ] && [ ${#tests[@]} -gt 0 ] || fail "a --print-packages list is empty"

test_only='^(slurmctld|slurmd|slurm-client|slurm-wlm.*|munge|hpcc|libgtest-dev|libgmock-dev|googletest|python3-jsonschema|qemu-.*|perftest|netpipe-.*|rdma-core|clang.*|man-db|ccache)$'
for p in "${setup[@]}"; do
    [[ ! $p =~ $test_only ]] || fail "tools/setup.sh installs $p, which only the tests need (or which starts a daemon)"
done
for p in g++ meson ninja-build pkg-config libboost-program-options-dev nlohmann-json3-dev libopenmpi-dev openmpi-bin \
    libibverbs-dev python3-matplotlib; do
    printf '%s\n' "${setup[@]}" | grep -qx "$p" || fail "tools/setup.sh does not install $p, which building or running needs"
done
for p in libgtest-dev libgmock-dev slurmctld slurmd munge hpcc python3-jsonschema man-db; do
    printf '%s\n' "${tests[@]}" | grep -qx "$p" || fail "tools/test-deps.sh does not install $p, which the tests need"
done

# What apt would install with the set-up list on a machine that has nothing
# (an empty dpkg status: a simulation, no root needed), as setup installs it
# (no recommends). gfortran-12 comes in as a dependency of libopenmpi-dev.
# It needs apt's package lists (tools/test-deps.sh fetches them as root).
if ! command -v apt-get >/dev/null || ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
    echo "note: apt has no package lists here (apt-get update never ran): the simulation from nothing is left out"
else
    : >"$scratch/status"
    apt-get install -s -q --no-install-recommends -o Dir::State::status="$scratch/status" "${setup[@]}" \
        >"$scratch/simulated" 2>&1 || fail "apt-get -s of the set-up list: $(tail -3 "$scratch/simulated")"
    installs=$(awk '$1 == "Inst" { print $2 }' "$scratch/simulated")
    [ "$(wc -l <<<"$installs")" -gt ${#setup[@]} ] || fail "apt-get -s installed nothing: $(tail -3 "$scratch/simulated")"
    pulled=$(grep -E "$test_only" <<<"$installs" || true)
    [ -z "$pulled" ] || fail "tools/setup.sh's packages pull in $(tr '\n' ' ' <<<"$pulled")"
    echo "apt-get -s from nothing: $(wc -l <<<"$installs") packages, none of them test-only or a daemon"
fi
echo "PASS: setup installs ${#setup[@]} packages, none only for tests; test-deps installs ${#tests[@]}"
