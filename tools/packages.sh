# Sourced by tools/setup.sh and tools/test-deps.sh: the Debian 12 packages
# ngx needs, in two lists, and their installation with apt-get.
#
#   ngx_build_packages  building and running ngx (tools/setup.sh): compiler,
#                       Meson, the libraries, Open MPI, libibverbs and its
#                       providers, matplotlib for figures. None of them runs
#                       a daemon (rdma-core, which starts iwpmd and rdma-ndd,
#                       is left to the tests; a cluster node has its own).
#   ngx_test_packages   what only the test suites need (tools/test-deps.sh):
#                       GoogleTest, Slurm and munge (the slurm suite runs its
#                       own private daemons), hpcc and gfortran (traced MPI
#                       programs), jsonschema, the network tools of the
#                       emulated clusters, rdma-core (SoftRoCE), man-db and
#                       git (the install test), ccache (the install
#                       test's build reuses what the suite's build
#                       compiled), clang (format check, fuzzing). The SoftRoCE suites install QEMU, perftest
#                       and a guest kernel themselves.
#
#   source tools/packages.sh
#   ngx_install_packages setup "${ngx_build_packages[@]}"
ngx_build_packages=(
    g++ meson ninja-build pkg-config python3
    libboost-program-options-dev nlohmann-json3-dev
    openmpi-bin libopenmpi-dev
    libibverbs-dev ibverbs-providers
    python3-matplotlib
)
ngx_test_packages=(
    libgtest-dev libgmock-dev
    gfortran hpcc
    python3-jsonschema python3-venv
    slurmctld slurmd munge
    rdma-core iproute2 procps
    man-db git passwd util-linux ccache
    clang libclang-rt-14-dev clang-format-14
)

# ngx_missing_packages PACKAGE...: those not installed, one a line.
ngx_missing_packages() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
    done
}

# ngx_install_packages WHO PACKAGE...: installs the missing ones (root only;
# anyone else is told which are missing, exit 1). Service start-up is
# refused for the duration (policy-rc.d exit 101, Debian's own convention,
# honoured by invoke-rc.d and deb-systemd-invoke) so that no package starts
# a daemon on this machine; a policy-rc.d already in place is left alone.
ngx_install_packages() {
    local who=$1 missing policy=/usr/sbin/policy-rc.d placed=
    shift
    if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
        echo "$who: no dpkg/apt-get here: install the packages named in docs/install.md for your system" >&2
        return 0
    fi
    mapfile -t missing < <(ngx_missing_packages "$@")
    [ ${#missing[@]} -gt 0 ] || return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "$who: missing packages ${missing[*]}; run as root or install them (docs/install.md builds without root)" >&2
        return 1
    fi
    echo "$who: installing ${missing[*]}"
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\n# placed by ngx %s while it installs packages: start no service\nexit 101\n' "$who" >"$policy"
        chmod 755 "$policy"
        placed=1
    fi
    local rc=0
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null || rc=$?
    [ -z "$placed" ] || rm -f "$policy"
    return $rc
}

