#!/usr/bin/env python3
"""compare.py EXPECTED ACTUAL: the two texts are the same but for numbers that
differ by at most 1e-9 relative (1e-12 absolute near zero). Prints the first
differing lines and exits 1 otherwise."""
import difflib
import math
import re
import sys

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)")


def close(a, b):
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)


def same_line(expected, actual):
    """The words between the numbers are equal and each number is close."""
    if NUMBER.split(expected) != NUMBER.split(actual):
        return False
    pairs = zip(NUMBER.findall(expected), NUMBER.findall(actual))
    return all(close(a, b) for a, b in pairs)


def main():
    if len(sys.argv) != 3:
        print("usage: compare.py EXPECTED ACTUAL", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        expected = f.read().splitlines()
    with open(sys.argv[2], encoding="utf-8") as f:
        actual = f.read().splitlines()
    if len(expected) == len(actual) and all(same_line(e, a) for e, a in zip(expected, actual)):
        return 0
    diff = difflib.unified_diff(expected, actual, sys.argv[1], sys.argv[2], lineterm="", n=1)
    for line in list(diff)[:40]:
        print(line)
    return 1


if __name__ == "__main__":
    sys.exit(main())
