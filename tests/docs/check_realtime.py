#!/usr/bin/env python3
"""check_realtime.py: no test of a real-time suite asserts an accuracy figure
measured in real time (docs/testing.md, "What the real-time suite assert").

The tests of the suites whose name ends in "-realtime" are read from the build
directory (meson-info/intro-tests.json). For each, its script and every
.sh/.py file of the source tree that the script names (sourced libraries,
checkers), transitively, are read. The convention they must follow: a bound
on a real-time figure goes through tests/lib/bounds.py or bounds.sh
(within_factor, error_within_factor with a literal factor of at least 2;
at_least, an ordering); anything else that looks like a tolerance is a
violation:
  - the words tol, rtol, TOL, tolerance, rel_err, margin, fidelity;
  - a percentage test (netns_within, "/ 100", "within N%");
  - a literal factor between 0.5 and 2 in a product (1.1 * x, x * 0.9);
  - a comparison with a fraction of a value (abs(a - b) <= 0.05 * b);
  - a within_factor call whose factor is not a number of at least 2;
  - ngx check --tolerance under 100% (a change of less than a factor of 2).
Comments are not read (shell and Python '#' lines, Python docstrings).

    check_realtime.py BUILD_DIR SOURCE_ROOT   check the suites; exit 1 naming each violation
    check_realtime.py --self-test             the checks against planted files: each planted
                                              violation found, a clean file passed
"""
import json
import os
import re
import sys
import tempfile

WORDS = re.compile(r"\b(r?tol|TOL|tolerance|rel_err|margin|fidelity|FIDELITY(_US)?)\b")
PERCENT = re.compile(r"netns_within|/\s*100\b|within\s+\$?\{?\w*\}?\s*%|within\s+\d+(\.\d+)?\s*%")
NEAR_ONE = r"(?:0\.5\d*[1-9]\d*|0\.[6-9]\d*|1\.\d*[1-9]\d*)"
PRODUCT = re.compile(rf"(?<![\w.]){NEAR_ONE}\s*\*|\*\s*{NEAR_ONE}(?![\w.])")
# a comparison against a fraction of a value: |a - b| <= 0.05 * b, x < max(0.15 * y, 1)
FRACTION_BOUND = re.compile(r"[<>]=?\s*(?:max\(\s*)?(0\.(?!5\b)\d+)\s*\*")
FACTOR_CALL = re.compile(r"\b(?:(?:assert_)?(?:error_)?within_factor|ratio_within)\b(.*)")
REFERENCE = re.compile(r"[\w.$/{}-]*?([\w.-]+(?:/[\w.-]+)*\.(?:sh|py))\b")


def code_lines(path):
    """(number, text) of the lines that are code: '#' comments dropped,
    Python docstrings skipped."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
    except OSError as e:
        return [(0, f"<unreadable: {e}>")]
    out, in_doc = [], False
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if path.endswith(".py"):
            quotes = s.count('"""') + s.count("'''")
            if in_doc:
                in_doc = quotes % 2 == 0
                continue
            if s.startswith(('"""', "'''", 'r"""')):
                in_doc = quotes % 2 == 1
                continue
        if s.startswith("#"):
            continue
        out.append((n, re.sub(r"\s#\s.*$", "", line)))
    return out


def call_arguments(text):
    """The top-level arguments of a call that TEXT opens with '(' (Python),
    or the words before any ||, && or ; (shell)."""
    text = text.strip()
    if not text.startswith("("):
        words = re.split(r"\|\||&&|;", text)[0]
        return re.findall(r"\"[^\"]*\"|'[^']*'|\S+", words)
    depth, args, cur = 0, [], ""
    for ch in text:
        if ch in "([{":
            depth += 1
            if depth == 1:
                continue
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append(cur.strip())
                return args
        if ch == "," and depth == 1:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return args + [cur.strip()]


def factor_ok(args):
    """The factor of a within_factor call: its last argument, which must be
    a literal of at least 2."""
    words = call_arguments(args)
    if not words:
        return False, "none"
    last = words[-1]
    if not re.fullmatch(r"\d+(\.\d+)?", last):
        return False, last
    return float(last) >= 2, last


HELPER = os.path.join("tests", "lib", "bounds.py")


def violations(path):
    if path.endswith(HELPER):
        return []  # the helper itself: the one place a factor is a variable (and refused under 2 when used)
    found = []
    for n, line in code_lines(path):
        where = f"{path}:{n}"
        if re.search(r"\bdef (within_factor|error_within_factor|at_least|ratio_within)\b|^\s*assert_\w+\(\)", line):
            continue  # the helpers' own definitions
        # ngx check's own option: a change counts beyond PERCENT; 100% is a factor of 2
        for m in re.finditer(r"--tolerance[ =](\S+)", line):
            if not (re.fullmatch(r"\d+(\.\d+)?%?", m.group(1)) and float(m.group(1).rstrip("%")) >= 100):
                found.append(f"{where}: ngx check --tolerance {m.group(1)} (at least 100%, a factor of 2):"
                             f" {line.strip()}")
        line = re.sub(r"--tolerance[ =]\S+", "", line)
        m = WORDS.search(line)
        if m:
            found.append(f"{where}: '{m.group(0)}' names a tolerance: {line.strip()}")
        m = PERCENT.search(line)
        if m:
            found.append(f"{where}: a percentage bound ('{m.group(0)}'): {line.strip()}")
        m = PRODUCT.search(line)
        if m:
            found.append(f"{where}: a factor under 2 ('{m.group(0).strip()}'): {line.strip()}")
        m = FRACTION_BOUND.search(line)
        if m:
            found.append(f"{where}: a relative bound of {m.group(1)} (a factor under 2): {line.strip()}")
        m = FACTOR_CALL.search(line)
        if m and "(" not in line[:m.start()].split()[-1:] and not line.strip().startswith("def "):
            good, factor = factor_ok(m.group(1))
            if not good:
                found.append(f"{where}: within_factor with factor {factor} (a literal of at least 2 is required):"
                             f" {line.strip()}")
    return found


def referenced(path, roots):
    """The .sh/.py files of the tree that PATH names, resolved against its
    own folder and the roots; a name behind a variable ($DIR/x.py) is tried
    without its leading components."""
    files = []
    for _, line in code_lines(path):
        for m in REFERENCE.finditer(line):
            parts = m.group(1).split("/")
            cands = [os.path.normpath(os.path.join(base, *parts[i:]))
                     for i in range(len(parts)) for base in [os.path.dirname(path)] + roots]
            hit = next((c for c in cands if os.path.isfile(c)), None)
            if hit:
                files.append(hit)
    return files


def closure(script, roots):
    seen, todo = [], [os.path.normpath(script)]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.append(p)
        todo.extend(f for f in referenced(p, roots) if f not in seen)
    return seen


def realtime_tests(build):
    with open(os.path.join(build, "meson-info", "intro-tests.json")) as f:
        tests = json.load(f)
    for t in tests:
        if any(s.split(":")[-1].endswith("-realtime") for s in t["suite"]):
            script = next((a for a in t["cmd"][1:] if a.endswith((".sh", ".py")) and os.path.isfile(a)), None)
            yield t["name"], script


def check_tree(build, root):
    roots = [root, os.path.join(root, "tests")]
    bad, names = [], []
    for name, script in realtime_tests(build):
        names.append(name)
        if script is None:
            bad.append(f"{name}: no script found in its command (the check cannot read it)")
            continue
        for path in closure(script, roots):
            bad.extend(f"{name}: {v}" for v in violations(path))
    return names, bad


PLANTED = {
    "tol.sh": "x=$(python3 -c 'print(1)')\nTOL=0.10\n",
    "percent.sh": "netns_within \"$got\" \"$rate\" 10 || fail\n",
    "near-one.py": "import sys\nok = a > 1.1 * b\n",
    "near-one-right.sh": "awk -v a=1 'BEGIN { exit !(a <= b * 0.9) }'\n",
    "rel-err.py": "rel_err = abs(a - b) / b\n",
    "factor.sh": "assert_within_factor L \"$L\" 200 1.5 || fail \"L\"\n",
    "factor-variable.py": "bounds.within_factor('G', g, want, factor)\n",
    "ratio.py": "ok = bounds.ratio_within(got, want, 1.2)\n",
    "fraction.py": "assert abs(got - want) <= 0.05 * want + 0.25\n",
    "sourced.sh": "source \"$(dirname \"$0\")/helper.sh\"\n",
    "helper.sh": "margin=3\n",
    "check.sh": "ngx_run 30 check --tolerance 20% a.json b.json\n",
}
CLEAN = ("# a comment may say tolerance 10%: comments are not read\n"
         "source \"$(dirname \"$0\")/bounds.sh\"\n"
         "assert_within_factor L \"$L\" 200 2 || fail \"L\"\n"
         "assert_at_least 'slow link' \"$slow\" \"$fast\" || fail slow\n"
         "x=$((2 * y))\n"
         "ngx_run 30 check --tolerance 100% a.json b.json\n")


def self_test():
    failed = []
    with tempfile.TemporaryDirectory() as d:
        for name, text in PLANTED.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        with open(os.path.join(d, "clean.sh"), "w") as f:
            f.write(CLEAN)
        with open(os.path.join(d, "bounds.sh"), "w") as f:
            f.write("assert_within_factor() { python3 bounds.py within-factor \"$@\"; }\n")
        for name in PLANTED:
            if name == "helper.sh":
                continue
            found = [v for p in closure(os.path.join(d, name), [d]) for v in violations(p)]
            print(f"planted {name}: {found[0] if found else 'NOT FOUND'}")
            if not found:
                failed.append(name)
        clean = [v for p in closure(os.path.join(d, "clean.sh"), [d]) for v in violations(p)]
        print(f"clean file: {clean or 'no violation'}")
        if clean:
            failed.append("clean.sh")
    return failed


def main(argv):
    if argv[1:] == ["--self-test"]:
        failed = self_test()
        if failed:
            print(f"FAIL: the check missed or misread: {', '.join(failed)}")
            return 1
        print("PASS: every planted violation found, the clean file passed")
        return 0
    if len(argv) != 3:
        print("usage: check_realtime.py BUILD_DIR SOURCE_ROOT | --self-test", file=sys.stderr)
        return 2
    names, bad = check_tree(argv[1], argv[2])
    print(f"{len(names)} tests in the real-time suite: {' '.join(names)}")
    if not names:
        print("FAIL: no real-time suite found in the build's test list")
        return 1
    for b in bad:
        print(f"  {b}")
    if bad:
        print(f"FAIL: {len(bad)} real-time bound(s) under a factor of 2 or outside tests/lib/bounds")
        return 1
    print("PASS: every real-time bound of the real-time suite goes through tests/lib/bounds with a factor >= 2")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
