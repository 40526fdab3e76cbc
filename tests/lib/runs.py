"""Reading ngx's JSON documents in the script tests' Python checks.

    sys.path.insert(0, os.path.join(os.environ["NGX_SOURCE_ROOT"], "tests", "lib"))
    import runs
    run = runs.complete(path)          # the document's first run; exits FAIL unless complete
    print(runs.cpu_use_line(run))       # its cpu_use record, one line
"""
import json
import sys


def complete(path):
    """The first run of the document at path (the document itself when it
    has no "runs"); sys.exit with FAIL when its status is not complete."""
    d = json.load(open(path))
    run = d.get("runs", [d])[0]
    if run["status"] != "complete":
        sys.exit("FAIL: %s: status %s: %s" % (path, run["status"], run.get("error")))
    return run


def cpu_use_line(run):
    """cpu_bound, the largest waiting share and each rank's CPU and wall seconds."""
    c = run["cpu_use"]
    return "cpu_bound %s, max waiting share %.2f; ranks' cpu_s/wall_s %s" % (
        c["cpu_bound"], c["max_waiting_share"], " ".join("%.2f/%.2f" % (x["cpu_s"], x["wall_s"]) for x in c["ranks"]))
