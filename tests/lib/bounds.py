#!/usr/bin/env python3
"""bounds.py: the bounds a test of a real-time suite puts on a figure measured
in real time.

A figure measured in real time moves with the machine (its load, a relay's
timer slack, where the host puts the vCPUs), so a test asserts only what
holds on any machine: the figure within a factor of at least 2 of what the
setup implies, a model's predictions within such a factor, or a physical
ordering (a slower link never measures faster). How close the figure comes
is an accuracy figure, kept in bench/ with its results in bench/results/.
Exact comparisons belong to the sim in virtual time (suite 'virtual').

Python:  import bounds (tests/lib on sys.path)
    bounds.within_factor(NAME, MEASURED, EXPECTED, FACTOR)
        EXPECTED / FACTOR <= MEASURED <= EXPECTED * FACTOR (both positive)
    bounds.error_within_factor(NAME, MEAN_RELATIVE_ERROR, FACTOR)
        a model's predictions within FACTOR of the measured times: a mean
        relative error of at most FACTOR - 1
    bounds.at_least(NAME, VALUE, FLOOR)
        VALUE >= FLOOR, an ordering without a tolerance
    bounds.ratio_within(MEASURED, EXPECTED, FACTOR)
        within_factor's test alone, nothing printed (tables of many cells)
Each prints one line (ok/FAIL, the values and the ratio) and returns True
when it holds; FACTOR under 2 is a mistake of the test: ValueError.

Command line (tests/lib/bounds.sh wraps it for shell scripts):
    bounds.py within-factor NAME MEASURED EXPECTED FACTOR
    bounds.py error-within-factor NAME ERROR FACTOR
    bounds.py at-least NAME VALUE FLOOR
exits 0 when the bound holds, 1 when it does not, 2 on bad use (a factor
under 2, a value that is not a number).
"""
import math
import sys

MIN_FACTOR = 2.0


def _factor(factor):
    f = float(factor)
    if not f >= MIN_FACTOR:
        raise ValueError(f"a real-time bound needs a factor of at least {MIN_FACTOR:g}, got {factor!r}"
                         " (accuracy figures go to bench/)")
    return f


def _report(good, name, detail):
    print(f"  {'ok  ' if good else 'FAIL'} {name}: {detail}")
    return good


def ratio_within(measured, expected, factor):
    """The test of within_factor without the printed line (for tables of
    many cells that print only their misses)."""
    f = _factor(factor)
    if measured is None:
        return False
    m, e = float(measured), float(expected)
    if not (e > 0 and math.isfinite(e)):
        raise ValueError(f"the expected value must be positive and finite, got {expected!r}")
    return math.isfinite(m) and e / f <= m <= e * f


def within_factor(name, measured, expected, factor):
    f = _factor(factor)
    m, e = float(measured), float(expected)
    if not (e > 0 and math.isfinite(e)):
        raise ValueError(f"{name}: the expected value must be positive and finite, got {expected!r}")
    good = ratio_within(m, e, f)
    ratio = m / e if math.isfinite(m) else m
    return _report(good, name, f"{m:.6g}, expected {e:.6g} within a factor {f:g} (ratio {ratio:.3g})")


def error_within_factor(name, error, factor):
    f = _factor(factor)
    err = float(error)
    good = math.isfinite(err) and 0 <= err <= f - 1
    return _report(good, name, f"mean relative error {err:.4g}, predictions within a factor {f:g}"
                               f" allow at most {f - 1:g}")


def at_least(name, value, floor):
    v, lo = float(value), float(floor)
    good = math.isfinite(v) and v >= lo
    return _report(good, name, f"{v:.6g}, at least {lo:.6g}")


def main(argv):
    commands = {"within-factor": (within_factor, 4), "error-within-factor": (error_within_factor, 3),
                "at-least": (at_least, 3)}
    if len(argv) < 2 or argv[1] not in commands or len(argv) - 2 != commands[argv[1]][1]:
        print("usage: bounds.py within-factor NAME MEASURED EXPECTED FACTOR | error-within-factor NAME ERROR FACTOR"
              " | at-least NAME VALUE FLOOR", file=sys.stderr)
        return 2
    fn = commands[argv[1]][0]
    try:
        return 0 if fn(*argv[2:]) else 1
    except ValueError as e:
        print(f"bounds.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
