#!/usr/bin/env bash
# Suite 'completion': the bash completion that `ngx --completion
# bash` prints offers the subcommands, the module names after -m, the pattern
# names after -x, a pattern's own options once -x names it (--loggp-n after
# -x loggp) and a module's after -m; and `ngx --help` fits 80 columns, with or
# without the modules' and patterns' option groups.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
NGX=${NGX:?NGX must name the ngx binary}
script=$(mktemp)
trap 'rm -f "$script"' EXIT
"$NGX" --completion bash >"$script" || fail "ngx --completion bash failed"
"$NGX" --completion zsh >/dev/null 2>&1
[ $? -eq 2 ] || fail "--completion zsh should be a usage error (exit 2)"
# shellcheck disable=SC1090
source "$script" || fail "the completion script does not load in bash"
complete -p ngx | grep -q _ngx || fail "the script does not register a completion for ngx"

# offers WORD... -- EXPECTED...: completing the last word of "ngx WORD..." offers every EXPECTED.
offers() {
    local words=() expected=() seen=0 want
    for want in "$@"; do
        if [ "$want" = -- ]; then seen=1; elif [ $seen = 0 ]; then words+=("$want"); else expected+=("$want"); fi
    done
    COMP_WORDS=(ngx "${words[@]}")
    COMP_CWORD=${#words[@]}
    COMPREPLY=()
    _ngx
    for want in "${expected[@]}"; do
        printf '%s\n' "${COMPREPLY[@]}" | grep -qx -- "$want" ||
            fail "'ngx ${words[*]}<TAB>' does not offer $want (offers: ${COMPREPLY[*]})"
    done
}
# lacks WORD... -- UNWANTED: completing does not offer UNWANTED.
lacks() {
    COMP_WORDS=(ngx "${@:1:$#-2}")
    COMP_CWORD=$(($# - 2))
    COMPREPLY=()
    _ngx
    ! printf '%s\n' "${COMPREPLY[@]}" | grep -qx -- "${!#}" || fail "'ngx ${*:1:$#-2}<TAB>' offers ${!#}"
}

modules=$("$NGX" --list-modules | sed -n 's/^  \([a-z0-9_-]*\)  .*/\1/p')
patterns=$("$NGX" --list-patterns | sed -n 's/^  \([a-z0-9_-]*\)  .*/\1/p')
[ -n "$modules" ] && [ -n "$patterns" ] || fail "no modules or patterns listed"
# shellcheck disable=SC2086
offers -m '' -- $modules
offers -m sim,s -- sim,sim sim,shm
# shellcheck disable=SC2086
offers -x '' -- $patterns
offers -x loggp --loggp -- --loggp-n --loggp-detector
lacks -x pingpong --loggp --loggp-n
offers -m sim -x pingpong --sim- -- --sim-L --sim-S
offers --ti -- --timer --timeout
offers --timer '' -- auto tsc clock
offers pl -- plot
offers '' -- compare check fit predict plot export
offers --loggp -- --loggp-n # loggp is the default pattern

# --help fits 80 columns: alone, and with every module's and pattern's options.
all_modules=$(tr '\n' , <<<"$modules")
for arguments in "" "-m ${all_modules%,}" $(printf -- '-x:%s ' $patterns); do
    # shellcheck disable=SC2086
    help=$("$NGX" ${arguments//:/ } --help) || fail "ngx $arguments --help failed"
    wide=$(awk 'length($0) > 80' <<<"$help")
    [ -z "$wide" ] || fail "ngx ${arguments//:/ } --help has lines over 80 columns:
$wide"
done
echo "completion: modules, patterns, options and subcommands offered; --help within 80 columns"
