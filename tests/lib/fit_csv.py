#!/usr/bin/env python3
"""fit_csv.py FILE 'TITLE=COLUMN,COLUMN,...' ...

Checks what `ngx fit --format csv` printed (FILE): tables separated by one
blank line, each a "# title" line, "# ..." note lines, then a header and its
rows, which Python's csv module must read with one field per column. Each
argument names a table by the start of its title and the header it must
have; a column whose name carries a numeric unit (bytes, _us, _MBps,
_relative, points, value, ci95_*) must hold numbers or empty cells. Prints
each table's title and row count; exits 1 on any failure."""
import csv
import io
import re
import sys

NUMERIC = re.compile(r"(^bytes$|_bytes$|_us$|_MBps$|_relative$|_per_byte$|^points$|^value$|^ci95_|^k=\d+_)")

path, expected = sys.argv[1], sys.argv[2:]
text = open(path).read()
tables = {}
bad = []
for block in text.split("\n\n"):
    lines = block.strip("\n").split("\n")
    if not lines or not lines[0].startswith("# "):
        bad.append(f"a table does not start with '# title': {lines[:1]}")
        continue
    title = lines[0][2:]
    body = [line for line in lines[1:] if not line.startswith("# ")]
    rows = list(csv.reader(io.StringIO("\n".join(body) + "\n")))
    if not rows:
        bad.append(f"{title}: no header")
        continue
    header, rows = rows[0], rows[1:]
    for i, row in enumerate(rows):
        if len(row) != len(header):
            bad.append(f"{title}: row {i + 1} has {len(row)} fields, the header {len(header)}")
        for name, cell in zip(header, row):
            if cell and NUMERIC.search(name):
                try:
                    float(cell)
                except ValueError:
                    bad.append(f"{title}: row {i + 1}: {name} = {cell!r} is not a number")
    tables[title] = (header, rows)
    print(f"csv table '{title}': {len(rows)} rows, columns {','.join(header)}")
for spec in expected:
    start, columns = spec.split("=", 1)
    found = [t for t in tables if t.startswith(start)]
    if not found:
        bad.append(f"no table titled '{start}...'")
    elif tables[found[0]][0] != columns.split(","):
        bad.append(f"'{found[0]}': header {tables[found[0]][0]}, expected {columns.split(',')}")
    elif not tables[found[0]][1]:
        bad.append(f"'{found[0]}': no rows")
for problem in bad:
    print("FAIL:", problem)
sys.exit(1 if bad else 0)
