# bounds.sh: the bounds a shell test of a real-time suite puts on a figure
# measured in real time (sourced); see bounds.py next to it for the rule.
# Each prints one line and returns 0 when the bound holds, 1 when it does
# not; a factor under 2 is refused (status 2):
#     assert_within_factor NAME MEASURED EXPECTED FACTOR
#     assert_error_within_factor NAME MEAN_RELATIVE_ERROR FACTOR
#     assert_at_least NAME VALUE FLOOR
BOUNDS_PY=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bounds.py

assert_within_factor() { python3 "$BOUNDS_PY" within-factor "$@"; }
assert_error_within_factor() { python3 "$BOUNDS_PY" error-within-factor "$@"; }
assert_at_least() { python3 "$BOUNDS_PY" at-least "$@"; }
