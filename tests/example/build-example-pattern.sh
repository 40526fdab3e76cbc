#!/usr/bin/env bash
# Builds the out-of-tree example patterns (patterns/example) against ngx's
# installed headers, plugin library (libngxplugin, pkg-config ngx-pattern) and
# measuring library (libngxmeasure, pkg-config ngx-measure), and runs them
# through NGX_PATTERN_PATH: the path a third-party pattern takes. No line of the tree names it. The second example, echo,
# brings a model kind of its own (echo-postal, T = s + r n), which
# `ngx predict` finds in its run and predicts with through the common options.
source "$(dirname "$0")/stage.sh"
test -f "$pc/ngx-pattern.pc" || { echo "FAIL: ngx-pattern.pc not installed in $pc"; exit 1; }
test -f "$pc/ngx-measure.pc" || { echo "FAIL: ngx-measure.pc not installed in $pc"; exit 1; }
for h in pattern.hpp pattern_plugin.hpp options.hpp model_kind.hpp json_input.hpp saved_run.hpp \
    measure/passes.hpp measure/prtt.hpp measure/sweep.hpp; do
    test -f "$work/root$prefix/include/ngx/$h" || { echo "FAIL: $h not installed"; exit 1; }
done
ls "$work/root$prefix/$libdir/ngx/patterns/ngx_pattern_loggp.so" >/dev/null || { echo "FAIL: patterns not installed"; exit 1; }

build_example "$NGX_SOURCE_ROOT/patterns/example"

# pkg-config linked it against the plugin and measuring libraries, not the engine.
if command -v readelf >/dev/null; then
    needs=$(readelf -d "$work/build/ngx_pattern_window.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    grep -q '^libngxmeasure\.so' <<<"$needs" && ! grep -q '^libngxapp' <<<"$needs" ||
        { echo "$needs"; echo "FAIL: the example pattern should need libngxmeasure and not libngxapp"; exit 1; }
fi

# Listed next to the in-tree patterns, with its own options in --help.
export NGX_PATTERN_PATH="$work/build:$NGX_PATTERN_PATH"
"$NGX" --list-patterns | grep -E "^  window  " || { echo "FAIL: window pattern not listed"; exit 1; }
"$NGX" --list-patterns | grep -E "^  loggp  " >/dev/null || { echo "FAIL: in-tree patterns lost"; exit 1; }
"$NGX" -m tcp -x window --help | grep -q -- "--window-messages" || { echo "FAIL: its option is not in --help"; exit 1; }

# It measures, and its output goes through the core's reporters.
"$NGX" -m tcp -x window --window-messages 8 -s 1-4Ki -c 20 --warmup 2 -o "$work/window.json" >/dev/null
python3 - "$work/window.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["pattern"] == "window" and doc["status"] == "complete", doc.get("status")
assert doc["options"]["pattern_options"] == {"messages": 8}, doc["options"]["pattern_options"]
sizes = [r["size_bytes"] for r in doc["results"]]
assert sizes == [2**i for i in range(13)], sizes
assert all(r["median_us"] > 0 and r["bandwidth_MBps"] > 0 for r in doc["results"])
PY

# The measuring library holds for them as for the in-tree patterns. Over the
# sim in virtual time (exact, milliseconds): --passes 3 interleaves the sizes
# round-robin and pools -c samples per size; --adaptive stops each size once
# its interval is narrow, after one pass where time is exact and after several
# under seeded jitter; echo's postal line is the sim's half round trip
# o_s + L + o_r + (n - 1) G. Over udp (a lossy module) echo's records carry
# the PRTT loop's loss columns, its retries.
sim=(-m sim --sim-clock virtual --sim-L 5 --sim-os 3 --sim-or 2 --sim-g 6 --sim-G 0.002)
sizes=(-s 1,1Ki,16Ki --warmup 2)
for x in echo window; do
    "$NGX" "${sim[@]}" -x "$x" "${sizes[@]}" -c 30 --passes 3 -o "$work/$x-passes.json" >/dev/null
    "$NGX" "${sim[@]}" -x "$x" "${sizes[@]}" -c 30 --adaptive -o "$work/$x-adaptive.json" >/dev/null
done
"$NGX" "${sim[@]}" --sim-noise jitter:0.05 --sim-seed 7 -x echo "${sizes[@]}" -c 200 --adaptive --max-rel-ci 1 \
    -o "$work/echo-jitter.json" >/dev/null
"$NGX" -m udp -x echo -s 1,1Ki -c 20 --warmup 2 --retries 20 -o "$work/echo-udp.json" >/dev/null
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
sizes = [1, 1024, 16384]
def load(name):
    doc = json.load(open(f"{work}/{name}.json"))
    assert doc["status"] == "complete" and [r["size_bytes"] for r in doc["results"]] == sizes[:len(doc["results"])], name
    return doc, doc["measurement"]
for x in ["echo", "window"]:
    doc, m = load(f"{x}-passes")
    assert m["passes"] == 3 and m["schedule"] == [sizes] * 3, (x, m)
    assert all(r["count"] == 30 and r["passes"] == 3 for r in doc["results"]), (x, doc["results"])
    doc, m = load(f"{x}-adaptive")
    assert m["schedule"] == [sizes] and m["adaptive"]["stopped_bytes"]["interval"] == sizes, (x, m)
    assert all(r["count"] == m["adaptive"]["step"] and r["passes"] == 1 for r in doc["results"]), (x, doc["results"])
doc, _ = load("echo-passes")
assert abs(doc["model"]["s_us"] - 9.998) < 1e-9 and abs(doc["model"]["r_us_per_byte"] - 0.002) < 1e-12, doc["model"]
assert abs(doc["results"][1]["median_us"] - (3 + 5 + 2 + 1023 * 0.002)) < 1e-9, doc["results"][1]
doc, m = load("echo-jitter")
step, order = m["adaptive"]["step"], m["schedule"]
assert order[0] == sizes and all(set(b) <= set(a) for a, b in zip(order, order[1:])), order
assert sorted(sum(m["adaptive"]["stopped_bytes"].values(), [])) == sizes, m["adaptive"]
for r in doc["results"]:
    passes = sum(r["size_bytes"] in p for p in order)
    assert r["passes"] == passes and r["count"] == min(200, step * passes), (r, passes, step)
assert len(order) > 1, "seeded jitter should keep a size measuring past its first pass"
doc = json.load(open(f"{work}/echo-udp.json"))
assert doc["status"] == "complete" and all("lost" in r and "loss_rate" in r for r in doc["results"]), doc["results"]
print(f"--passes 3 and --adaptive hold for echo and window (under jitter {len(order)} passes); udp records losses")
PY

# An out-of-tree model kind: echo's run saves an echo-postal line, listed with the
# pattern, and `ngx predict` uses it with the options every model shares.
"$NGX" --list-patterns | grep -E "^  echo  .*\[models: echo-postal\]" ||
    { echo "FAIL: echo's model kind is not listed"; exit 1; }
"$NGX" -m tcp -x echo -s 1,1Ki,16Ki -c 20 --warmup 2 -o "$work/echo.json" >/dev/null
"$NGX" predict --params "$work/echo.json" --op pingpong -s 1Ki --format csv >"$work/predict.txt"
"$NGX" predict --params "$work/echo.json" --op pingpong -s 1Ki --format json >"$work/predict.json"
python3 - "$work/echo.json" "$work/predict.txt" "$work/predict.json" <<'PY'
import csv, json, sys
model = json.load(open(sys.argv[1]))["model"]
assert model["kind"] == "echo-postal", model
want = model["s_us"] + model["r_us_per_byte"] * 1024
(csv_row,) = csv.DictReader(open(sys.argv[2]))
got = float(csv_row["time_us"])
assert abs(got - want) <= 1e-4 * abs(want) + 1e-9, (got, want)
row = json.load(open(sys.argv[3]))["predictions"][0]
assert row["model"] == "echo-postal" and row["op"] == "pingpong" and row["bytes"] == 1024, row
assert abs(row["time_us"] - want) <= 1e-9 * abs(want) + 1e-12, (row, want)
print("echo-postal predicts", got, "us for 1 KiB = s + r n of the saved line")
PY
"$NGX" predict --params "$work/echo.json" --help | grep -q "r_us_per_byte" ||
    { echo "FAIL: predict --help does not list the model's parameters"; exit 1; }
code=0
"$NGX" predict --params "$work/echo.json" --op allreduce -s 1Ki 2>"$work/err" || code=$?
test "$code" = 2 && grep -q "expected pingpong (model echo-postal)" "$work/err" ||
    { cat "$work/err"; echo "FAIL: an op the model does not predict gave exit $code"; exit 1; }
code=0
"$NGX" predict --params "$work/echo.json" --op pingpong -s 1Ki -P 4 2>"$work/err" || code=$?
test "$code" = 2 && grep -q -- "--processes: not used by --op pingpong of model echo-postal" "$work/err" ||
    { cat "$work/err"; echo "FAIL: an option the op does not read gave exit $code"; exit 1; }

# Its bad option value is a usage error in the one message format.
code=0
"$NGX" -m tcp -x window --window-messages 0 -s 1 -c 1 2>"$work/err" || code=$?
test "$code" = 2 && grep -q -- "--window-messages '0': must be in 1..4096" "$work/err" ||
    { cat "$work/err"; echo "FAIL: bad option gave exit $code"; exit 1; }

# A plugin built for another pattern ABI is rejected with the reason, not loaded.
mkdir "$work/bad"
sed 's/NGX_PATTERN_EXPORT(window_pattern)/extern "C" __attribute__((visibility("default"))) const ngx_pattern_plugin* ngx_pattern_entry(void) { static const ngx_pattern_plugin p = {NGX_PATTERN_ABI_VERSION + 1, __GXX_ABI_VERSION, NGX_PATTERN_CXX11_ABI, sizeof(ngx::PatternInfo), __VERSION__, nullptr}; return \&p; }/' \
    "$NGX_SOURCE_ROOT/patterns/example/window.cpp" >"$work/bad/window.cpp"
measure_pc() { PKG_CONFIG_SYSROOT_DIR="$work/root" PKG_CONFIG_PATH="$pc" pkg-config "$@" ngx-measure; }
c++ -std=c++20 -shared -fPIC $(measure_pc --cflags) -o "$work/bad/ngx_pattern_window.so" "$work/bad/window.cpp" \
    $(measure_pc --libs)
NGX_PATTERN_PATH="$work/bad:$NGX_PATTERN_PATH" "$NGX" --list-patterns >"$work/list"
abi=$(sed -n 's/^#define NGX_PATTERN_ABI_VERSION \([0-9]*\)$/\1/p' "$NGX_SOURCE_ROOT/core/include/ngx/pattern_plugin.hpp")
grep -q "ngx_pattern_window.so: built for pattern ABI $((abi + 1)), this ngx speaks $abi" "$work/list" ||
    { cat "$work/list"; echo "FAIL: a plugin of another ABI was not rejected with its reason"; exit 1; }
echo "PASS: example patterns built out of tree, listed, measured (passes, adaptive, retries), option validated, the out-of-tree model predicts; a wrong ABI is rejected"
