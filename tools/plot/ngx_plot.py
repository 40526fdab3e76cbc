#!/usr/bin/env python3
"""ngx plot: draws saved ngx runs (JSON) with matplotlib, one figure per call.

    ngx plot tcp.json mpi.json -o pingpong.png      # per-size medians, ratio panel
    ngx plot loggp.json -o loggp.svg                # Hoefler et al. 2007 Figure 4 and the model
    ngx plot run.json                               # writes run.png beside run.json
    ngx plot nightly/ -o trend.png                  # a directory: the history of its results

The family is the runs' pattern: pingpong/pingping (and any pattern without its
own figure) give the per-size curves with a ratio panel against the first run;
loggp, loggps and overhead have their own figures. A directory (as for
`ngx check DIR`) draws its history: per size each file's median relative to the
oldest file's, files ordered by their recorded time. Every drawn series carries
a gid ("median:LABEL", "fit:RANGE", ...), which SVG output keeps as element
ids, so tests can count the series. Exit codes: 0 drawn, 1 matplotlib or
python missing, 2 bad input."""
import argparse
import json
import os
import sys

WIDTH_IN, HEIGHT_IN = 10.0, 7.5  # the figure's size in inches; pixels = inches x --dpi


def fail(message, code=2):
    print(f"ngx plot: {message}", file=sys.stderr)
    sys.exit(code)


def import_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        fail(f"matplotlib is missing for {sys.executable} ({error}): Debian/Ubuntu: apt-get install "
             "python3-matplotlib; RHEL/Rocky: dnf install python3-matplotlib; without root: "
             f"{sys.executable} -m pip install --user matplotlib (or NGX_PYTHON names a python3 that has it)", 1)
    return plt


# ---------------------------------------------------------------- input


def read_document(path):
    try:
        with open(path) as f:
            document = json.load(f)
    except OSError as error:
        fail(f"{path}: cannot open the file ({error.strerror})")
    except ValueError as error:
        fail(f"{path}: not a JSON file ({error})")
    if not isinstance(document, dict):
        fail(f"{path}: not an ngx result (expected a JSON object)")
    return document


def check_run(run, where):
    for key in ("module", "pattern", "results"):
        if key not in run:
            fail(f'{where}: missing field "{key}" (not an ngx result file?)')
    if not isinstance(run["results"], list):
        fail(f'{where}: "results" is not an array')
    for result in run["results"]:
        if not isinstance(result, dict) or not isinstance(result.get("size_bytes"), (int, float)):
            fail(f'{where}: a result without a valid "size_bytes"')


def runs_of(path):
    """The runs of one file, each with its document's context (host, date)."""
    document = read_document(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    if "runs" not in document:
        check_run(document, path)
        return [(stem if "module" not in document else document["module"], document, document)]
    if not isinstance(document["runs"], list) or not document["runs"]:
        fail(f'{path}: "runs" is not a non-empty array')
    runs = []
    for i, run in enumerate(document["runs"]):
        check_run(run, f"{path}: runs[{i}]")
        label = run["module"] + (f" [{run['variant']}]" if run.get("variant") else "")
        runs.append((label, run, document))
    return runs


def unique_labels(runs, paths):
    """Labels are module names; when two runs share one, the file name is added."""
    labels = [label for label, _, _ in runs]
    if len(set(labels)) == len(labels):
        return runs
    return [(f"{os.path.splitext(os.path.basename(p))[0]}:{label}", run, doc)
            for (label, run, doc), p in zip(runs, paths)]


def series(run, key):
    """(sizes, values) of a per-size field, skipping sizes without a number."""
    xs, ys = [], []
    for result in run["results"]:
        value = result.get(key)
        if isinstance(value, (int, float)) and value == value:
            xs.append(result["size_bytes"])
            ys.append(value)
    return xs, ys


def value_of(field):
    """A model parameter: a number, or {"value": x, "ci95": [...]}."""
    if isinstance(field, dict):
        field = field.get("value")
    return field if isinstance(field, (int, float)) else None


# ---------------------------------------------------------------- figure frame


def title_of(runs, kind):
    modules = ", ".join(dict.fromkeys(run["module"] for _, run, _ in runs))
    pattern = runs[0][1]["pattern"]
    document = runs[0][2]
    host = document.get("host", "unknown host")
    date = str(document.get("started_at", "")).replace("T", " ").rstrip("Z")
    return f"{modules}: {pattern} ({kind}) on {host}, {date}".rstrip(", ")


def log_size_axis(axis, label="message size (bytes)"):
    axis.set_xscale("log", base=2)
    axis.set_xlabel(label)
    axis.grid(True, which="major", alpha=0.3)


def size_ticks(axis):
    from matplotlib.ticker import FuncFormatter
    axis.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_bytes(v) if v >= 1 else ""))


def format_bytes(v):
    for unit, factor in (("Mi", 1 << 20), ("Ki", 1 << 10)):
        if v >= factor:
            return f"{v / factor:g}{unit}"
    return f"{v:g}"


# ---------------------------------------------------------------- families


def band_of(run):
    """The interval band per size: p25-p75 when reported, else min-p99."""
    lo_key, hi_key, name = ("p25_us", "p75_us", "p25-p75") if all(
        "p25_us" in r and "p75_us" in r for r in run["results"]) else ("min_us", "p99_us", "min-p99")
    xs, lo, hi = [], [], []
    for r in run["results"]:
        if isinstance(r.get(lo_key), (int, float)) and isinstance(r.get(hi_key), (int, float)):
            xs.append(r["size_bytes"])
            lo.append(r[lo_key])
            hi.append(r[hi_key])
    return xs, lo, hi, name


def plot_latency(plt, runs):
    """Per-size medians (log-log) with a band, and the ratio to the first run."""
    two = len(runs) > 1
    figure, axes = plt.subplots(2 if two else 1, 1, sharex=True, squeeze=False,
                                gridspec_kw={"height_ratios": [3, 1.3] if two else [1]})
    top = axes[0][0]
    metric = runs[0][1].get("metric", "time")
    colors = {}
    for label, run, _ in runs:
        xs, ys = series(run, "median_us")
        line, = top.plot(xs, ys, marker="o", markersize=3, label=f"{label} median", gid=f"median:{label}")
        colors[label] = line.get_color()
        bx, lo, hi, name = band_of(run)
        if bx:
            top.fill_between(bx, lo, hi, alpha=0.2, color=line.get_color(), label=f"{label} {name}",
                             gid=f"band:{label}")
    top.set_yscale("log")
    top.set_ylabel(f"{metric} (µs)")
    log_size_axis(top)
    top.legend(fontsize="small")
    if two:
        bottom = axes[1][0]
        base_label, base, _ = runs[0]
        base_x, base_y = series(base, "median_us")
        baseline = dict(zip(base_x, base_y))
        for label, run, _ in runs[1:]:
            xs, ys = series(run, "median_us")
            pairs = [(x, y / baseline[x]) for x, y in zip(xs, ys) if baseline.get(x)]
            bottom.plot([p[0] for p in pairs], [p[1] for p in pairs], marker="o", markersize=3,
                        color=colors[label], label=f"{label} / {base_label}", gid=f"ratio:{label}")
        bottom.axhline(1.0, color="gray", linewidth=0.8)
        bottom.set_yscale("log")
        bottom.set_ylabel(f"ratio to {base_label}")
        log_size_axis(bottom)
        bottom.legend(fontsize="small")
    size_ticks(axes[-1][0])
    return figure, "per-size medians"


def ranges_of(model):
    ranges = model.get("ranges") if isinstance(model, dict) else None
    return [r for r in ranges or [] if isinstance(r, dict)]


def saved_predictions(model, table):
    """{size: row} of the model's saved per-size predictions (model.per_size or model.per_point), written by
    the pattern and by `ngx fit`: the figure draws the model as the C++ code computed it, never a formula of
    its own."""
    rows = model.get(table) if isinstance(model, dict) else None
    return [r for r in rows or [] if isinstance(r, dict) and isinstance(r.get("size_bytes"), (int, float))]


def prediction_series(rows, key, sizes=None):
    """(sizes, values) of one saved prediction, restricted to `sizes` when given; nulls left out."""
    points = [(r["size_bytes"], r.get(key)) for r in rows if sizes is None or r["size_bytes"] in sizes]
    points = [(x, float(y)) for x, y in points if isinstance(y, (int, float))]
    return [x for x, _ in points], [y for _, y in points]


def note_missing_predictions(label):
    print(f"ngx plot: {label}: the file holds no saved predictions (written before they were saved): "
          "only the measurements are drawn; `ngx fit FILE -o NEW.json` writes a model with them", file=sys.stderr)


def shade_ranges(axis, ranges, change_points):
    for i, r in enumerate(ranges):
        lo, hi = value_of(r.get("from_bytes")), value_of(r.get("to_bytes"))
        if lo is not None and hi is not None:
            axis.axvspan(lo, hi, alpha=0.06 if i % 2 == 0 else 0.12, color="tab:gray", gid=f"range:{i + 1}")
    for c in change_points:
        axis.axvline(c, color="tab:red", linestyle=":", linewidth=1, gid=f"change:{c:g}")


def range_sizes(xs, r):
    lo, hi = value_of(r.get("from_bytes")), value_of(r.get("to_bytes"))
    return [x for x in xs if lo is not None and hi is not None and lo <= x <= hi]


def plot_loggp(plt, runs):
    """Hoefler et al. 2007 Figure 4: y(s) measured and predicted (eq. (5) with d = 0, per message), o_s(s) and
    o_r(s) with the fitted overhead lines, PRTT(1,0,s) with eq. (1), and the model's error: every model value is
    the one the fit saved in model.per_size."""
    figure, axes = plt.subplots(2, 2)
    (gap_ax, o_ax), (prtt_ax, err_ax) = axes
    for label, run, _ in runs:
        model = run.get("model") if isinstance(run.get("model"), dict) else {}
        ranges = ranges_of(model)
        predictions = saved_predictions(model, "per_size")
        if not predictions:
            note_missing_predictions(label)
        changes = [c for c in model.get("change_points_bytes") or [] if isinstance(c, (int, float))]
        xs, gap = series(run, "gap_us")
        gap_line, = gap_ax.plot(xs, gap, "o", markersize=3, label=f"{label} y(s) measured", gid=f"gap:{label}")
        xs_o, o_s = series(run, "o_s_us")
        os_line, = o_ax.plot(xs_o, o_s, "o", markersize=3, label=f"{label} o_s(s)", gid=f"o_s:{label}")
        xs_r, o_r = series(run, "o_r_us")
        or_line = None
        if xs_r:
            or_line, = o_ax.plot(xs_r, o_r, "s", markersize=3, label=f"{label} o_r(s)", gid=f"o_r:{label}")
        xs_p, prtt = series(run, "median_us")
        p_line, = prtt_ax.plot(xs_p, prtt, "o", markersize=3, label=f"{label} PRTT(1,0,s) measured",
                               gid=f"prtt:{label}")
        for i, r in enumerate(ranges):  # the model's lines, one segment per protocol range
            sizes = set(range_sizes([p["size_bytes"] for p in predictions], r))
            first = i == 0
            for axis, key, style, line, gid, name in (
                    (gap_ax, "predicted_gap_us", "-", gap_line, "fit", "y(s), eq. (5)"),
                    (o_ax, "predicted_o_s_us", "-", os_line, "o_s_fit", None),
                    (o_ax, "predicted_o_r_us", "--", or_line, "o_r_fit", None),
                    (prtt_ax, "predicted_prtt_us", "-", p_line, "model", "LogGP model")):
                px, py = prediction_series(predictions, key, sizes)
                if px and line is not None:
                    axis.plot(px, py, style, color=line.get_color(), gid=f"{gid}:{label}:{i + 1}",
                              label=f"{label} {name}" if first and name else None)
        measured = dict(zip(xs_p, prtt))
        px, py = prediction_series(predictions, "predicted_prtt_us")
        err = [(s, 100 * (p - measured[s]) / measured[s]) for s, p in zip(px, py) if measured.get(s)]
        if err:
            err_ax.plot([e[0] for e in err], [e[1] for e in err], "o-", markersize=3, color=p_line.get_color(),
                        label=label, gid=f"error:{label}")
        for axis in (gap_ax, o_ax, prtt_ax, err_ax):
            shade_ranges(axis, ranges, changes)
    gap_ax.set_ylabel("y(s) per message (µs)")
    gap_ax.set_yscale("log")
    o_ax.set_ylabel("overhead (µs)")
    o_ax.set_yscale("log")
    prtt_ax.set_ylabel("PRTT(1,0,s) (µs)")
    prtt_ax.set_yscale("log")
    err_ax.set_ylabel("model error (%)")
    err_ax.axhline(0, color="gray", linewidth=0.8)
    for axis in (gap_ax, o_ax, prtt_ax, err_ax):
        log_size_axis(axis)
        size_ticks(axis)
        axis.legend(fontsize="x-small")
    return figure, "LogGP, Hoefler et al. 2007 Fig. 4"


def plot_loggps(plt, runs):
    """Ino et al. 2001: RTT at w = 0 and w = W with the fitted Table 6 curves, s and S marked."""
    figure, axis = plt.subplots()
    for label, run, _ in runs:
        model = run.get("model") if isinstance(run.get("model"), dict) else {}
        xs, rtt0 = series(run, "median_us")
        line0, = axis.plot(xs, rtt0, "o", markersize=3, label=f"{label} RTT, w = 0", gid=f"rtt0:{label}")
        xw, rttw = series(run, "rtt_w_us")
        linew, = axis.plot(xw, rttw, "s", markersize=3, label=f"{label} RTT, w = W", gid=f"rttw:{label}")
        predictions = saved_predictions(model, "per_point")
        if not predictions:
            note_missing_predictions(label)
        for imbalanced, line, gid, name in ((False, line0, "fit", "w = 0"), (True, linew, "fitw", "w = W")):
            rows = [r for r in predictions if (value_of(r.get("w_us")) or 0) > 0] if imbalanced else \
                [r for r in predictions if not value_of(r.get("w_us"))]
            px, py = prediction_series(rows, "predicted_rtt_us")
            if px:
                axis.plot(px, py, "-", color=line.get_color(), label=f"{label} Table 6 fit, {name}",
                          gid=f"{gid}:{label}")
        for key, name, style in (("s_bytes", "s", "--"), ("S_bytes", "S", ":")):
            v = value_of(model.get(key))
            if v:
                axis.axvline(v, color="tab:red", linestyle=style, label=f"{label} {name} = {format_bytes(v)}",
                             gid=f"{name}:{label}")
    axis.set_xscale("log", base=2)
    axis.set_yscale("log")
    log_size_axis(axis)
    size_ticks(axis)
    axis.set_ylabel("round-trip time (µs)")
    axis.legend(fontsize="small")
    return figure, "LogGPS, Ino et al. 2001"


def plot_overhead(plt, runs):
    """Al-Tawil and Moritz 1998: o_s and o_r per size, one pair of curves per run (send mode)."""
    figure, axis = plt.subplots()
    for label, run, _ in runs:
        xs, o_s = series(run, "o_s_us")
        line, = axis.plot(xs, o_s, "o-", markersize=3, label=f"{label} o_s", gid=f"o_s:{label}")
        xr, o_r = series(run, "o_r_us")
        axis.plot(xr, o_r, "s--", markersize=3, color=line.get_color(), label=f"{label} o_r", gid=f"o_r:{label}")
    log_size_axis(axis)
    size_ticks(axis)
    axis.set_yscale("log")
    axis.set_ylabel("overhead (µs)")
    axis.legend(fontsize="small")
    return figure, "overheads, Al-Tawil and Moritz 1998"


def nodecomm_table(run, where):
    """(pairs, sizes, T[k][n]) of a nodecomm run: model.nodecomm: {pairs, sizes, T_us[k][n]}."""
    table = (run.get("model") or {}).get("nodecomm")
    if not isinstance(table, dict):
        fail(f'{where}: a nodecomm run without its "model.nodecomm" object')
    pairs, sizes, T = table.get("pairs"), table.get("sizes"), table.get("T_us")
    if not (isinstance(pairs, list) and isinstance(sizes, list) and isinstance(T, list) and len(T) == len(pairs)
            and all(isinstance(row, list) and len(row) == len(sizes) for row in T)):
        fail(f'{where}: "model.nodecomm" needs pairs, sizes and T_us[k][n] of matching lengths')
    return pairs, sizes, T


def value_of(parameter):
    """The value of a {value, ci95} parameter (or a plain number); None when missing or null."""
    if isinstance(parameter, dict):
        parameter = parameter.get("value")
    return float(parameter) if isinstance(parameter, (int, float)) else None


def maxrate_regimes(run):
    """Per regime (from, to, alpha_us, R_C, R_N in bytes/us or None, k*) of the three-parameter max-rate
    model, Gropp et al. 2016: T = alpha + k n / min(R_N, k R_C)."""
    regimes = []
    for regime in (run.get("model") or {}).get("ranges") or []:
        m = (regime.get("models") or {}).get("maxrate3") or {}
        alpha, r_c = value_of(m.get("alpha_us")), value_of(m.get("R_C_Bps"))
        if alpha is None or not r_c:
            continue
        r_n = value_of(m.get("R_N_Bps"))
        regimes.append((regime.get("from_bytes") or 0, regime.get("to_bytes"), alpha, r_c / 1e6,
                        r_n / 1e6 if r_n else None, value_of(regime.get("k_star"))))
    return regimes


def heat_map(figure, axis, values, rows, sizes, title, colour_label, gid, cmap="viridis", row_label="pairs k",
             **scale):
    """values[row][size] as coloured cells: rows up (k or the stride), sizes across."""
    image = axis.imshow(values, origin="lower", aspect="auto", cmap=cmap, gid=gid, **scale)
    axis.set_xticks(range(len(sizes)), [format_bytes(n) for n in sizes], rotation=45, fontsize="x-small")
    axis.set_yticks(range(len(rows)), [str(k) for k in rows], fontsize="small")
    axis.set_xlabel("message size n (bytes)")
    axis.set_ylabel(row_label)
    axis.set_title(title, fontsize="medium")
    figure.colorbar(image, ax=axis, label=colour_label)


def plot_nodecomm(plt, runs):
    """Gropp et al. 2016, Figures 1-2: the aggregate bandwidth k n / T(k, n) as heat maps (k x n), measured and
    under the max-rate model, the model's relative error, and T against k per size with the model's
    lines and k* = R_N / R_C marked."""
    import numpy
    label, run, _ = runs[0]
    pairs, sizes, T = nodecomm_table(run, label)
    regimes = maxrate_regimes(run)
    figure, axes = plt.subplots(2, 2)
    (measured_ax, model_ax), (error_ax, t_ax) = axes
    T = numpy.array([[v if isinstance(v, (int, float)) and v > 0 else numpy.nan for v in row] for row in T])
    volume = numpy.array(pairs, dtype=float)[:, None] * numpy.array(sizes, dtype=float)[None, :]
    saved = ((run.get("model") or {}).get("nodecomm") or {}).get("predicted_T_us") or {}
    table = saved.get("maxrate3")
    if regimes and not (isinstance(table, list) and len(table) == len(pairs)):
        note_missing_predictions(label)
        regimes = []
    model = numpy.array([[v if isinstance(v, (int, float)) else numpy.nan for v in row] for row in table]) \
        if regimes else numpy.full(T.shape, numpy.nan)
    both = numpy.concatenate([(volume / T).ravel(), (volume / model).ravel()])
    scale = {"vmin": 0, "vmax": float(numpy.nanmax(both))} if numpy.isfinite(both).any() else {}
    heat_map(figure, measured_ax, volume / T, pairs, sizes, f"{label}: measured k n / T", "MB/s",
             f"heat:{label}", **scale)
    if regimes:  # one colour scale for measured and model, so the two maps compare at a glance
        heat_map(figure, model_ax, volume / model, pairs, sizes, "max-rate model (3 parameters)", "MB/s",
                 f"heat-model:{label}", **scale)
        error = 100 * (model - T) / T
        bound = max(1.0, float(numpy.nanmax(numpy.abs(error)))) if numpy.isfinite(error).any() else 1.0
        heat_map(figure, error_ax, error, pairs, sizes, "model error (model - measured) / measured", "%",
                 f"heat-error:{label}", cmap="coolwarm", vmin=-bound, vmax=bound)
    else:
        for axis in (model_ax, error_ax):
            axis.text(0.5, 0.5, "no max-rate model in the file", ha="center", va="center", transform=axis.transAxes)
            axis.set_axis_off()
    for j, n in enumerate(sizes):
        line, = t_ax.plot(pairs, T[:, j], "o", markersize=3, label=f"n = {format_bytes(n)}",
                          gid=f"T:{label}:{n:g}")
        if regimes:
            t_ax.plot(pairs, model[:, j], "-", color=line.get_color(), linewidth=1, gid=f"T-model:{label}:{n:g}")
    for lo, hi, _, _, _, k_star in regimes:
        if k_star and min(pairs) <= k_star <= max(pairs) * 4:
            where = f"{format_bytes(lo)}.." + (format_bytes(hi) if hi else "")
            t_ax.axvline(k_star, linestyle=":", color="grey", gid=f"k-star:{where}")
            t_ax.annotate(f"k* {k_star:.2g} ({where})", (k_star, 0.02), xycoords=("data", "axes fraction"),
                          rotation=90, fontsize="x-small", color="grey")
    t_ax.set_xticks(pairs)
    t_ax.set_xlabel("pairs k (points measured, lines the max-rate model)")
    t_ax.set_ylabel("T(k, n) (µs)")
    t_ax.set_yscale("log")
    t_ax.grid(True, alpha=0.3)
    t_ax.legend(fontsize="x-small", ncol=2)
    return figure, "node communication, Gropp et al. 2016"


def strided_grid(run, where):
    """(sizes, strides, measured T_0,1[d][s], log3P T_0,1[d][s] or None) of a strided run:
    model.strided.points [{size, stride, t01_us}], log3P's from the rows (results[]: size_bytes, stride,
    log3p_us) or the points."""
    import numpy
    points = ((run.get("model") or {}).get("strided") or {}).get("points")
    if not isinstance(points, list) or not points or not all(isinstance(p, dict) for p in points):
        fail(f'{where}: a strided run without its "model.strided.points"')
    try:
        sizes = sorted({int(p["size"]) for p in points})
        strides = sorted({int(p["stride"]) for p in points})
    except (KeyError, TypeError, ValueError):
        fail(f'{where}: "model.strided.points" needs size and stride in every point')
    measured = numpy.full((len(strides), len(sizes)), numpy.nan)
    predicted = numpy.full((len(strides), len(sizes)), numpy.nan)
    for p in points:
        i, j = strides.index(int(p["stride"])), sizes.index(int(p["size"]))
        for table, key in ((measured, "t01_us"), (predicted, "log3p_us")):
            if isinstance(p.get(key), (int, float)):
                table[i, j] = p[key]
    for row in run.get("results") or []:  # the pattern's rows carry log3P's T_0,1 per size and stride
        size, stride, value = row.get("size_bytes"), row.get("stride"), row.get("log3p_us")
        if isinstance(value, (int, float)) and size in sizes and stride in strides:
            predicted[strides.index(int(stride)), sizes.index(int(size))] = value
    return sizes, strides, measured, predicted if numpy.isfinite(predicted).any() else None


def plot_strided(plt, runs):
    """Cameron et al. 2007: the remote half round trip T_0,1(s, d) over sizes x strides as a heat map, the log3P
    model's relative error on the same grid, and T_0,1 against s per stride, measured (points) and
    predicted by log3P (lines)."""
    import numpy
    from matplotlib.colors import LogNorm
    label, run, _ = runs[0]
    sizes, strides, measured, predicted = strided_grid(run, label)
    figure, axes = plt.subplots(2, 2)
    (time_ax, error_ax), (curve_ax, stride_ax) = axes
    positive = measured[numpy.isfinite(measured) & (measured > 0)]
    norm = LogNorm(vmin=positive.min(), vmax=positive.max()) if positive.size else None
    rows = "stride d (elements)"
    heat_map(figure, time_ax, measured, strides, sizes, f"{label}: measured T_0,1(s, d)", "µs",
             f"heat:{label}", row_label=rows, norm=norm)
    if predicted is not None:
        error = 100 * (predicted - measured) / measured
        bound = max(1.0, float(numpy.nanmax(numpy.abs(error)))) if numpy.isfinite(error).any() else 1.0
        heat_map(figure, error_ax, error, strides, sizes, "log3P error (predicted - measured) / measured", "%",
                 f"heat-error:{label}", cmap="coolwarm", row_label=rows, vmin=-bound, vmax=bound)
    else:
        error_ax.text(0.5, 0.5, "no log3P prediction in the file", ha="center", va="center",
                      transform=error_ax.transAxes)
        error_ax.set_axis_off()
    for i, d in enumerate(strides):
        line, = curve_ax.plot(sizes, measured[i], "o", markersize=3, label=f"d = {d}", gid=f"t01:{label}:{d}")
        if predicted is not None:
            curve_ax.plot(sizes, predicted[i], "-", color=line.get_color(), linewidth=1,
                          gid=f"log3p:{label}:{d}")
    log_size_axis(curve_ax)
    size_ticks(curve_ax)
    curve_ax.set_yscale("log")
    curve_ax.set_ylabel("T_0,1 (µs): points measured, lines log3P")
    curve_ax.legend(fontsize="x-small", ncol=2)
    for j, n in enumerate(sizes):  # the cost of the stride itself, per size (1 = contiguous)
        stride_ax.plot(strides, measured[:, j] / measured[0, j], "o-", markersize=3, label=f"s = {format_bytes(n)}",
                       gid=f"by-stride:{label}:{n}")
    stride_ax.set_xscale("log", base=2)
    stride_ax.set_xticks(strides, [str(d) for d in strides])
    stride_ax.set_xlabel("stride d (elements)")
    stride_ax.set_ylabel(f"T_0,1(s, d) / T_0,1(s, {strides[0]})")
    stride_ax.grid(True, alpha=0.3)
    stride_ax.legend(fontsize="x-small", ncol=2)
    return figure, "strided messages, Cameron et al. 2007"


# ---------------------------------------------------------------- trace analyses


TRACE_PARTS = [("computation_s", "computation"), ("overhead_s", "overhead"), ("sender_sync_s", "sender sync"),
               ("receiver_sync_s", "receiver sync"), ("collective_s", "collectives"),
               ("collective_sync_s", "collective sync"), ("unmodelled_s", "unmodelled (measured)")]


def is_trace_analysis(path):
    document = read_document(path)
    return document.get("kind") == "trace_analysis", document


def trace_bars(documents, paths):
    """(label, {part: seconds}) per bar: one file -> one bar per rank (and the what-if's
    ranks beside them); several files -> one bar per file (its total over the ranks)."""
    bars = []
    for document, path in zip(documents, paths):
        stem = os.path.splitext(os.path.basename(path))[0]
        scenarios = [("", document)]
        if "what_if" in document:
            changed = ", ".join(f"{k}={'inf' if v is None else format(v, 'g')}"
                                for k, v in document["what_if"]["set"].items())
            scenarios.append((f" ({changed})", document["what_if"]))
        for suffix, part in scenarios:
            if len(documents) == 1:
                for rank in part["ranks"]:
                    bars.append((f"rank {rank['rank']}{suffix}", rank))
            else:
                bars.append((stem + suffix, part["total"]))
    return bars


def plot_trace_analysis(plt, documents, paths):
    """Ino et al. 2001, Figure 6: predicted time split into computation, overhead, sender
    and receiver synchronization (and collectives), stacked per rank or per run."""
    bars = trace_bars(documents, paths)
    figure, axis = plt.subplots()
    bottoms = [0.0] * len(bars)
    for key, label in TRACE_PARTS:
        values = [bar.get(key, 0.0) or 0.0 for _, bar in bars]
        if not any(values):
            continue
        axis.bar(range(len(bars)), values, bottom=bottoms, label=label, gid=key)
        bottoms = [b + v for b, v in zip(bottoms, values)]
    measured = [bar.get("measured_s") for _, bar in bars]
    axis.plot(range(len(bars)), measured, "k_", markersize=30, label="measured (T_m)")
    axis.set_xticks(range(len(bars)), [label for label, _ in bars], rotation=20)
    axis.set_ylabel("seconds")
    axis.legend(fontsize="small")
    return figure


def plot_trace_files(paths, documents, a):
    output = a.output or default_output(paths[0])
    plt = import_pyplot()
    figure = plot_trace_analysis(plt, documents, paths)
    first = documents[0]
    figure.suptitle(f"ngx trace analyze: {first.get('ranks_count')} ranks, LogGPS replay "
                    f"(T_p {first['total']['predicted_s']:.4g} s, T_m {first['total']['measured_s']:.4g} s)",
                    fontsize="medium")
    draw(figure, a, output)


def plot_allpairs(plt, runs):
    """The all-pairs map: latency and bandwidth per ordered pair as heat maps (row = sender), the outlier
    nodes starred on both axes; cells not measured stay blank."""
    import numpy
    _, run, _ = runs[0]
    a = (run.get("model") or {}).get("allpairs")
    if not isinstance(a, dict) or not isinstance(a.get("latency_us"), list):
        fail(f"{runs[0][0]}: no allpairs map in the run (model.allpairs)")
    outliers = set((a.get("outliers") or {}).get("nodes") or [])
    hosts = a.get("hosts") or []
    names = [h + (" *" if h in outliers else "") + f" ({i})" for i, h in enumerate(hosts)]
    figure, axes = plt.subplots(1, 2)
    for axis, key, label, cmap in ((axes[0], "latency_us", "latency (us)", "viridis_r"),
                                   (axes[1], "bandwidth_MBps", "bandwidth (MB/s)", "viridis")):
        cells = numpy.array([[numpy.nan if v is None else v for v in row] for row in a[key]], dtype=float)
        image = axis.imshow(numpy.ma.masked_invalid(cells), cmap=cmap, gid=f"allpairs:{key}")
        axis.set_xticks(range(len(names)), names, rotation=45, fontsize="x-small")
        axis.set_yticks(range(len(names)), names, fontsize="x-small")
        axis.set_xlabel("receiver")
        axis.set_ylabel("sender")
        axis.set_title(label + (f", rounds {a.get('rounds_done')} of {a.get('rounds')}"
                                if a.get("rounds_done") != a.get("rounds") else ""), fontsize="medium")
        figure.colorbar(image, ax=axis, label=label)
    return figure, "all pairs, * outlier nodes"


def plot_coll(plt, runs):
    """The coll pattern: per algorithm the measured collective (median of the slowest rank, the band from the
    fastest to the slowest rank's mean) against message size, and the model's prediction as a dashed line of
    the same colour when the run had one (--coll-params)."""
    figure, axis = plt.subplots()
    drawn = 0
    for label, run, _ in runs:
        rows = (run.get("model") or {}).get("rows")
        if not isinstance(rows, list):
            fail(f"{label}: no coll rows in the run (model.rows)")
        for algorithm in dict.fromkeys(r["algorithm"] for r in rows):
            mine = sorted((r for r in rows if r["algorithm"] == algorithm), key=lambda r: r["bytes"])
            xs = [r["bytes"] for r in mine]
            name = f"{label} {mine[0]['op']} {algorithm} P={mine[0]['P']}" if len(runs) > 1 else \
                f"{mine[0]['op']} {algorithm} P={mine[0]['P']}"
            line, = axis.plot(xs, [r["median_us"] for r in mine], "o-", markersize=3, label=name + " measured",
                              gid=f"coll:measured:{label}:{algorithm}")
            axis.fill_between(xs, [r["min_us"] for r in mine], [r["max_us"] for r in mine], alpha=0.15,
                              color=line.get_color())
            predicted = [(r["bytes"], r["predicted_us"]) for r in mine if r.get("predicted_us") is not None]
            if predicted:
                axis.plot([x for x, _ in predicted], [y for _, y in predicted], "--", color=line.get_color(),
                          label=name + " predicted", gid=f"coll:predicted:{label}:{algorithm}")
            drawn += 1
    if drawn == 0:
        fail(f"{runs[0][0]}: the coll run has no rows")
    log_size_axis(axis)
    size_ticks(axis)
    axis.set_yscale("log")
    axis.set_ylabel("collective time, slowest rank (µs)")
    axis.legend(fontsize="x-small")
    return figure, "collectives: measured (band: ranks' min..max) and predicted (dashed)"


FAMILIES = {
    "allpairs": plot_allpairs,
    "coll": plot_coll,
    "loggp": plot_loggp,
    "loggps": plot_loggps,
    "overhead": plot_overhead,
    "nodecomm": plot_nodecomm,
    "strided": plot_strided,
}


# ---------------------------------------------------------------- main


# ---------------------------------------------------------------- history


def history_of(directory):
    """The single-run results of a directory, oldest first (started_at, then name), as ngx check DIR orders them."""
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))
    except OSError as error:
        fail(f"{directory}: cannot read the directory ({error.strerror})")
    entries = []
    for name in names:
        path = os.path.join(directory, name)
        document = read_document(path)
        if not isinstance(document.get("started_at"), str):
            fail(f'{path}: no recorded time ("started_at"): not the result of a measurement')
        runs = runs_of(path)
        entries.append((document["started_at"], path, runs[0][1]))
    if len(entries) < 2:
        fail(f"{directory}: a history needs at least two result files (*.json), found {len(entries)}")
    kinds = {(run["module"], run["pattern"]) for _, _, run in entries}
    if len(kinds) > 1:
        fail(f"{directory}: the files measured different things: " + ", ".join(" ".join(k) for k in sorted(kinds)))
    return sorted(entries, key=lambda e: (e[0], e[1]))


def plot_history(plt, directory):
    """Per size, each file's median relative to the oldest file's (%), with the 95% interval of the median."""
    entries = history_of(directory)
    figure, axis = plt.subplots(1, 1)
    first = {r["size_bytes"]: r.get("median_us") for r in entries[0][2]["results"]}
    for size, base in first.items():
        if not isinstance(base, (int, float)) or base <= 0:
            continue
        xs, ys, low, high = [], [], [], []
        for i, (_, _, run) in enumerate(entries):
            result = next((r for r in run["results"] if r["size_bytes"] == size), {})
            median = result.get("median_us")
            if not isinstance(median, (int, float)):
                continue
            xs.append(i)
            ys.append(100 * (median / base - 1))
            lo, hi = result.get("median_ci95_lo_us"), result.get("median_ci95_hi_us")
            have = isinstance(lo, (int, float)) and isinstance(hi, (int, float))
            low.append(100 * (median - lo) / base if have else 0)
            high.append(100 * (hi - median) / base if have else 0)
        bars = axis.errorbar(xs, ys, yerr=[low, high], marker="o", capsize=3, label=format_bytes(size) + "B")
        bars.lines[0].set_gid(f"trend:{size}B")
    axis.axhline(0, color="grey", linewidth=0.8)
    axis.set_xticks(range(len(entries)))
    axis.set_xticklabels([f"#{i + 1}\n{t.replace('T', ' ').rstrip('Z')}" for i, (t, _, _) in enumerate(entries)],
                         fontsize="small")
    axis.set_xlabel("result, oldest first (recorded time, UTC)")
    axis.set_ylabel("median vs #1 (%)")
    axis.grid(True, alpha=0.3)
    axis.legend(fontsize="small", ncol=2)
    runs = [(entries[0][2]["module"], entries[0][2], read_document(entries[0][1]))]
    return figure, runs


def default_output(first_file):
    return os.path.splitext(first_file)[0] + ".png"


def main():
    parser = argparse.ArgumentParser(
        prog="ngx plot", description="Draws saved ngx runs: the figure of their pattern (pingpong, loggp, "
        "loggps, overhead; others as per-size medians).")
    parser.add_argument("files", nargs="+", metavar="FILE.json", help="saved runs (ngx ... -o FILE.json), or one "
                        "directory of them: their history")
    parser.add_argument("-o", "--output", help="the figure: .png, .svg or .pdf (default: FILE.png beside the first)")
    parser.add_argument("--dpi", type=int, default=100, help="pixels per inch (the figure is 10 x 7.5 in)")
    a = parser.parse_args()
    output = a.output or default_output(a.files[0])
    if os.path.splitext(output)[1].lower() not in (".png", ".svg", ".pdf"):
        fail(f"-o {output}: unknown figure type; use .png, .svg or .pdf")
    if not 10 <= a.dpi <= 600:
        fail(f"--dpi '{a.dpi}': expected a whole number in 10..600")
    if len(a.files) == 1 and os.path.isdir(a.files[0]):
        draw(figure_of_history(a.files[0]), a, output if a.output else a.files[0].rstrip("/") + ".png")
        return
    analyses = [is_trace_analysis(path) for path in a.files]
    if any(is_trace for is_trace, _ in analyses):
        if not all(is_trace for is_trace, _ in analyses):
            fail("cannot draw trace analyses and saved runs in one figure")
        plot_trace_files(a.files, [document for _, document in analyses], a)
        return
    runs, paths = [], []
    for path in a.files:
        found = runs_of(path)
        runs += found
        paths += [path] * len(found)
    runs = unique_labels(runs, paths)
    patterns = sorted({run["pattern"] for _, run, _ in runs})
    if len(patterns) > 1:
        fail(f"cannot draw different patterns in one figure: {', '.join(patterns)}")
    plt = import_pyplot()
    figure, kind = FAMILIES.get(patterns[0], plot_latency)(plt, runs)
    figure.suptitle(title_of(runs, kind), fontsize="medium")
    draw(figure, a, output)


def figure_of_history(directory):
    figure, runs = plot_history(import_pyplot(), directory)
    figure.suptitle(title_of(runs, "history"), fontsize="medium")
    return figure


def draw(figure, a, output):
    figure.set_size_inches(WIDTH_IN, HEIGHT_IN)
    figure.tight_layout()
    try:
        figure.savefig(output, dpi=a.dpi)
    except OSError as error:
        fail(f"-o {output}: cannot write the figure ({error.strerror})", 1)
    print(f"ngx plot: wrote {output}")


if __name__ == "__main__":
    main()
