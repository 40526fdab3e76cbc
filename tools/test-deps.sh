#!/usr/bin/env bash
# Installs what only the test suites need (tools/packages.sh,
# ngx_test_packages: GoogleTest, Slurm and munge, hpcc, gfortran, jsonschema,
# man-db, clang, ...) on Debian 12, as root, when something is missing.
# Services are kept from starting while the packages install (policy-rc.d):
# the slurm suite runs private daemons of its own. tools/test-all.sh runs
# this before it configures; tools/setup.sh installs none of it. As root on a
# machine whose apt package lists are empty (apt-get update never ran, or
# they were cleaned), it fetches them even when nothing is missing: the
# install suite simulates the set-up list's installation from them.
#
#   bash tools/test-deps.sh
#   bash tools/test-deps.sh --print-packages   # the packages it installs, one a line
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/packages.sh
case ${1:-} in
    --print-packages) printf '%s\n' "${ngx_test_packages[@]}"; exit 0 ;;
    '') ;;
    *) echo "test-deps: unknown argument '$1' (expected --print-packages)" >&2; exit 2 ;;
esac
ngx_install_packages test-deps "${ngx_test_packages[@]}"
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null && ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
    echo "test-deps: apt has no package lists; apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
fi
