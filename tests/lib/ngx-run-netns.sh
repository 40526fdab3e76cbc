# ngx-run-netns.sh: tests/lib/ngx-run.sh and tests/net/netns.sh together
# (sourced), for the scripts that run ngx across network namespaces: one
# cleanup at exit for both (the background ngx runs, then the namespaces,
# relays and jobs).
IT_NO_TRAP=1
source "$(dirname "${BASH_SOURCE[0]}")/ngx-run.sh"
NETNS_NO_TRAP=1
source "$(dirname "${BASH_SOURCE[0]}")/../net/netns.sh"
trap 'netns_cleanup; it_cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
