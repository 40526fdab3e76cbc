# shared-tools.sh: sourced by tests that use ../shared/tools (LogGOPSim, Netgauge):
#     source "$NGX_SOURCE_ROOT/tests/lib/shared-tools.sh"; tools=$(ngx_shared_tools)
# The folder is NGX_SHARED_TOOLS when set, else shared/tools beside the
# checkout (a worktree, CI's clone), else beside the repository this clone
# was made from (a clone in /tmp); the first guess is printed when none
# exists, so that the caller's skip names where it looked.
ngx_shared_tools() {
    local root=${NGX_SOURCE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)} origin
    [[ -n ${NGX_SHARED_TOOLS:-} ]] && { echo "$NGX_SHARED_TOOLS"; return; }
    [[ -d $root/../shared/tools ]] && { echo "$root/../shared/tools"; return; }
    origin=$(git -C "$root" config --get remote.origin.url 2>/dev/null)
    [[ -n $origin && -d $origin/../shared/tools ]] && { echo "$origin/../shared/tools"; return; }
    echo "$root/../shared/tools"
}
