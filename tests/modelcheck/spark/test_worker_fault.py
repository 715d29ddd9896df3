"""A worker killed in the middle of a run: Spark reruns the lost tasks (and
recomputes lost partitions from lineage and checkpoints), and the search
ends with exactly the count it has without the fault."""

import json
import os
import select
import signal
import subprocess
import sys
import time

from spark_support import command_line, descendants, free_port, kill_leftovers
from support import ROOT, model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.spark.cluster import ClusterSettings, start_cluster, stop_processes

CONSTS = {"Replicas": 3, "LogSize": 1, "MaxRecords": 1}
KILL_AT = "level   6 ·"


def read_stderr_until(proc, marker: str, limit: float) -> str:
    """Stderr of ``proc`` up to the line holding ``marker``."""
    seen, deadline = "", time.monotonic() + limit
    while marker not in seen:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"the run ended or stalled before {marker!r}:\n{seen}")
        ready, _, _ = select.select([proc.stderr], [], [], 1.0)
        if ready:
            line = proc.stderr.readline()
            seen += line
    return seen


def test_killing_a_worker_mid_run_changes_nothing(tmp_path):
    m = model("kip320", **CONSTS)
    expected = BfsChecker().check(m, CheckOptions(m.spec.default_invariants))
    state = start_cluster(ClusterSettings(workers=2, cores=1, port=free_port(), webui_port=free_port()),
                          str(tmp_path / "cluster"))
    spawned, run = [], None
    try:
        env = dict(os.environ, PYTHONPATH=ROOT)
        consts = [arg for k, v in CONSTS.items() for arg in ("--const", f"{k}={v}")]
        run = subprocess.Popen([sys.executable, "-c", "from cli import main; main()", "run", "kip320", *consts,
                                "--engine", "spark", "--master", state.master_url, "--lead-in", "0", "--checkpoint-levels", "3",
                                "--json"], cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        before = read_stderr_until(run, KILL_AT, limit=300)
        victim = state.workers()[0]
        spawned = descendants(p.pid for p in state.processes)
        executors = [p for p in descendants([victim.pid]) if "CoarseGrainedExecutorBackend" in command_line(p)]
        assert executors, "the worker runs no executor for the search"
        assert run.poll() is None
        os.kill(victim.pid, signal.SIGKILL)
        out, after = run.communicate(timeout=600)
        assert run.returncode == 0, before + after
        result = json.loads(out)
        assert (result["result"], result["distinct_states"], result["depth"]) == \
               ("ok", expected.distinct_states, expected.depth)
        # the loss was noticed and survived, not dodged, and said in a line, not a cascade of stack traces
        assert "spark: lost executor" in after, after
        assert "\tat " not in after and "MetadataFetchFailedException" not in after, after
    finally:
        if run is not None and run.poll() is None:
            run.kill()
            run.wait()
        spawned += descendants(p.pid for p in state.processes if p.running())
        stop_processes(state.processes)
        kill_leftovers(spawned)
