# common.sh: sourced by the tests of suite 'overhead' (Al-Tawil and Moritz 1998: the
# overhead pattern, the protocol decomposition, LoGH{sS}P).
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
need_ngx
make_scratch

# Runs CHECK (a function) up to twice: timing on 2 shared cores is noisy, a
# physical fact must hold once more before the test fails.
twice() {
    "$@" && return 0
    echo "--- measuring once more"
    "$@"
}

# Runs CHECK up to three times: for the mpirun checks, whose minima on 2
# shared cores are spoiled in about one run of three (seen: vader T at every
# size once; tcp RTA at 16 KiB once, in runs of an otherwise clean table).
thrice() {
    twice "$@" && return 0
    echo "--- measuring a third time"
    "$@"
}

# mpirun as root on loopback with one BTL (the flags of tests/mpi/common.sh),
# holding /tmp/ngx-net.lock:  ngx_mpirun vader|tcp PROGRAM [ARG...]
ngx_mpirun() {
    local btl=$1
    shift
    flock -w 300 /tmp/ngx-net.lock timeout -k 5 "${MPI_TIMEOUT:-240}" "${MPIRUN_LOCAL[@]}" --mca btl_tcp_if_include lo --mca btl "self,$btl" \
        -x NGX_MODULE_PATH -x NGX_PATTERN_PATH -np 2 "$@"
}
have_mpi() {
    command -v mpirun >/dev/null && command -v ompi_info >/dev/null &&
        [[ -e $NGX_MODULE_PATH/mpi/ngx_mpi.so || -e $NGX_MODULE_PATH/ngx_mpi.so ]]
}
