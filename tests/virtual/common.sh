# common.sh: sourced by the seeded-noise scripts of suite 'virtual': fail,
# the skips for a missing $NGX or python3, and a scratch dir removed on exit.
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
need_ngx
need_tool python3
make_scratch
