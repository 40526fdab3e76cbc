# common.sh: shared helpers of the loggp suite (sourced after setting
# IT_NO_TRAP/NETNS_NO_TRAP as needed). Builds on tests/lib/ngx-run.sh:
# scratch dir $IT_DIR, fail/ok, ngx_run (bounded ngx, sets RC). The checks
# against the sim's ground truth are in truth.sh.
LG_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$LG_DIR/../lib/ngx-run.sh"

# lg_need_module NAME: exit 77 unless ngx finds module NAME.
lg_need_module() {
    local list
    list=$("$NGX" --list-modules 2>&1) || fail "ngx --list-modules failed: $(tail -3 <<<"$list")"
    grep -Eq "^  $1 " <<<"$list" || skip "module '$1' not built"
}

# lg_need_cpus: --cpus 0,1 needs two online CPUs.
lg_need_cpus() {
    [[ $(nproc 2>/dev/null || echo 1) -ge 2 ]] || skip "pinning to CPUs 0,1 needs two CPUs"
    need_tool python3
}
