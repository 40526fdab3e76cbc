#!/usr/bin/env python3
"""Runs every recipe of docs/recipes.md as written, so that a recipe cannot rot.

A recipe's commands are the fenced blocks tagged with its name:

    ```sh recipe=slow-node
    mpirun -np 8 --map-by node ngx -m tcp -x allpairs -s 8,64Ki -c 20 -o map.json
    ```

(`exit=0,1` after the name: exit codes the block may end with besides 0,
for `ngx check`, whose exit 1 is a regression, the answer a CI gate acts
on). The blocks of one recipe run in order, each with `bash -e`, in one
scratch directory of the recipe. Only the parts of a command that name the
cluster are replaced, by the table SUBSTITUTIONS below, so that a recipe
meant for two nodes with an HCA runs on this one host: the launchers
(mpirun across nodes, srun, sbatch) become a local mpirun of at most four
ranks, the verbs
module the simulated network, the HCA's UCX transports shared memory, the
application the tracer's test program. Every block must apply at least the
substitutions its text needs; anything else runs verbatim, `ngx` being the
built one (first on PATH).

    run_recipes.py SOURCE_ROOT BUILD_ROOT [RECIPE...]

NGX_RECIPES_KEEP=DIR keeps each block's stdout as DIR/RECIPE-N.txt.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# mpirun on one host as root, loopback only, more ranks than cores allowed.
LOCAL_MPIRUN = ("mpirun --allow-run-as-root --bind-to none --oversubscribe --mca oob_tcp_if_include lo "
                "--mca btl_tcp_if_include lo -x NGX_MODULE_PATH -x NGX_PATTERN_PATH -x PATH")

# The ranks of a recipe's launch on this host: at most four (two cores).
MAX_LOCAL_RANKS = 4


def local_launch(ranks):
    return f"{LOCAL_MPIRUN} -np {min(int(ranks), MAX_LOCAL_RANKS)}"


# (pattern, replacement, why): regular expressions over each block's text, in order.
SUBSTITUTIONS = [
    (r"sbatch --wait (\S+)", r"bash \1", "the batch job runs here, as a script"),
    (r"srun --mpi=pmix -N \d+ -n (\d+)", lambda m: local_launch(m[1]), "srun over N nodes: local ranks"),
    (r"mpirun -np (\d+)(?: --map-by node)?", lambda m: local_launch(m[1]), "mpirun over nodes: local ranks"),
    (r"-m ibv,mpi", "-m sim,mpi", "no HCA here: the simulated network in place of raw verbs"),
    (r"UCX_NET_DEVICES=mlx5_0:1", "UCX_NET_DEVICES=all", "no HCA here: UCX's devices of this host"),
    (r"UCX_TLS=rc,ud,self", "UCX_TLS=self,sm", "no HCA here: UCX over shared memory"),
    (r"\./app\b", "{phases}", "the application: the tracer's test program (tests/trace/phases.c)"),
    (r"-x allpairs", "-x allpairs --host-of node0,node1,node2,node3", "one host: each local rank its own node"),
]


def recipes(path):
    """{name: [(block text, allowed exit codes)]} in the page's order."""
    found, current, lines = {}, None, []
    for line in open(path, encoding="utf-8"):
        opening = re.match(r"```\w*\s+recipe=([\w-]+)(?:\s+exit=([\d,]+))?\s*$", line)
        if current is None and opening:
            current = (opening.group(1), {0} | {int(c) for c in (opening.group(2) or "").split(",") if c})
            lines = []
        elif current is not None and line.startswith("```"):
            found.setdefault(current[0], []).append(("".join(lines), current[1]))
            current = None
        elif current is not None:
            lines.append(line)
    return found


def substituted(text, values):
    for pattern, replacement, _ in SUBSTITUTIONS:
        text = re.sub(pattern, replacement, text)
    return text.replace("{phases}", values["phases"])


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    source, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    wanted = sys.argv[3:]
    if shutil.which("mpirun") is None:
        print("SKIP: the recipes run under mpirun (install openmpi-bin)")
        return 77
    phases = os.path.join(build, "tests", "trace", "phases")
    if not os.access(phases, os.X_OK) or not glob.glob(os.path.join(build, "modules", "**", "ngx_mpi.so"), recursive=True):
        print("SKIP: the build has no mpi module or tests/trace/phases (configure with -Dmpi=enabled)")
        return 77
    found = recipes(os.path.join(source, "docs", "recipes.md"))
    if not found:
        print("FAIL: docs/recipes.md has no block tagged recipe=NAME")
        return 1
    env = dict(os.environ, PATH=build + os.pathsep + os.environ.get("PATH", ""),
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1",
               # no HCA here: Open MPI's UCX PML may run over UCX's shared memory
               OMPI_MCA_pml_ucx_tls="any", OMPI_MCA_pml_ucx_devices="any",
               NGX_MODULE_PATH=os.path.join(build, "modules"), NGX_PATTERN_PATH=os.path.join(build, "patterns"))
    failures, start = [], time.monotonic()
    for name, blocks in found.items():
        if wanted and name not in wanted:
            continue
        with tempfile.TemporaryDirectory(prefix=f"recipe-{name}-") as scratch:
            began = time.monotonic()
            for number, (text, allowed) in enumerate(blocks, start=1):
                script = substituted(text, {"phases": phases})
                run = subprocess.run(["bash", "-e", "-c", script], cwd=scratch, env=env, capture_output=True,
                                     text=True, timeout=120)
                if os.environ.get("NGX_RECIPES_KEEP"):  # each block's output, for the page's examples
                    with open(os.path.join(os.environ["NGX_RECIPES_KEEP"], f"{name}-{number}.txt"), "w") as kept:
                        kept.write(run.stdout)
                if run.returncode not in allowed:
                    failures.append(name)
                    print(f"FAIL: recipe {name}, block {number}: exit {run.returncode} (allowed: "
                          f"{sorted(allowed)})\n--- as run:\n{script}--- stdout:\n{run.stdout[-3000:]}"
                          f"--- stderr:\n{run.stderr[-3000:]}")
                    break
            else:
                print(f"ok   recipe {name}: {len(blocks)} block(s), {time.monotonic() - began:.1f} s")
    print(f"recipes: {len(found)} run, {len(failures)} failed, {time.monotonic() - start:.1f} s in all")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
