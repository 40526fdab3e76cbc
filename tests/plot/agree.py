#!/usr/bin/env python3
"""agree.py SCRIPT FILE.json...: the figure `ngx plot` draws of each saved run
shows exactly the predictions the run's JSON holds (the model is computed once,
in C++, and the plot only draws it).

For every model line the plot script draws (found by its gid), its points are
compared with the saved predictions of the same sizes: loggp's PRTT(1,0,s),
y(s), o_s(s), o_r(s) and the error panel (model.per_size), loggps' RTT at w = 0
and w = W (model.per_point), nodecomm's max-rate T(k, n)
(model.nodecomm.predicted_T_us) and strided's log3P T_0,1 (results[].log3p_us).
Exit 1 naming the first line that disagrees, or a figure with no model line.
"""
import importlib.util
import json
import math
import sys


def load_plot_script(path):
    spec = importlib.util.spec_from_file_location("ngx_plot", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def model_lines(figure):
    """{gid: (xs, ys)} of every drawn line with a gid."""
    lines = {}
    for axis in figure.axes:
        for line in axis.get_lines():
            if line.get_gid():
                lines[line.get_gid()] = ([float(x) for x in line.get_xdata()], [float(y) for y in line.get_ydata()])
    return lines


def same(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def compare(name, drawn, expected):
    """drawn (xs, ys) against expected {x: y}: every drawn point is a saved prediction."""
    xs, ys = drawn
    if not xs:
        return f"{name}: drawn with no points"
    for x, y in zip(xs, ys):
        if x not in expected:
            return f"{name}: a point at {x:g} B that the JSON does not predict"
        if not same(y, expected[x]):
            return f"{name}: {y!r} drawn at {x:g} B, the JSON says {expected[x]!r}"
    return None


def by_size(rows, key, keep=lambda row: True):
    return {float(r["size_bytes"]): float(r[key]) for r in rows if keep(r) and isinstance(r.get(key), (int, float))}


def expectations(run, label):
    """(gid prefix, {size: value}) pairs every model line of this run must match."""
    model = run.get("model") or {}
    pattern = run["pattern"]
    if pattern == "loggp":
        rows = model.get("per_size") or []
        measured = by_size(run["results"], "median_us")
        prtt = by_size(rows, "predicted_prtt_us")
        error = {s: 100 * (p - measured[s]) / measured[s] for s, p in prtt.items() if measured.get(s)}
        return [(f"model:{label}:", prtt), (f"fit:{label}:", by_size(rows, "predicted_gap_us")),
                (f"o_s_fit:{label}:", by_size(rows, "predicted_o_s_us")),
                (f"o_r_fit:{label}:", by_size(rows, "predicted_o_r_us")), (f"error:{label}", error)]
    if pattern == "loggps":
        rows = model.get("per_point") or []
        return [(f"fit:{label}", by_size(rows, "predicted_rtt_us", lambda r: not r.get("w_us"))),
                (f"fitw:{label}", by_size(rows, "predicted_rtt_us", lambda r: (r.get("w_us") or 0) > 0))]
    if pattern == "nodecomm":
        table = model["nodecomm"]
        T = table["predicted_T_us"]["maxrate3"]
        return [(f"T-model:{label}:{n:g}", {float(k): float(T[i][j]) for i, k in enumerate(table["pairs"])})
                for j, n in enumerate(table["sizes"])]
    if pattern == "strided":
        return [(f"log3p:{label}:{d:g}", by_size(run["results"], "log3p_us", lambda r, d=d: r.get("stride") == d))
                for d in sorted({r["stride"] for r in run["results"] if "stride" in r})]
    return []


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    plot = load_plot_script(sys.argv[1])
    plt = plot.import_pyplot()
    failures = 0
    for path in sys.argv[2:]:
        runs = plot.unique_labels(plot.runs_of(path), [path])
        figure, _ = plot.FAMILIES[runs[0][1]["pattern"]](plt, runs)
        lines = model_lines(figure)
        checked = 0
        for label, run, _ in runs:
            for prefix, expected in expectations(run, label):
                for gid, drawn in lines.items():
                    if gid == prefix or (prefix.endswith(":") and gid.startswith(prefix)):
                        problem = compare(gid, drawn, expected)
                        checked += problem is None
                        if problem:
                            print(f"FAIL {path}: {problem}")
                            failures += 1
        if checked == 0:
            print(f"FAIL {path}: the figure draws no model line to compare")
            failures += 1
        else:
            print(f"ok   {path}: {checked} model line(s) drawn exactly as the JSON predicts")
        plt.close(figure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
