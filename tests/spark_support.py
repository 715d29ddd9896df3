"""Helpers for the tests that start real Spark processes: free ports, and
stopping by PID whatever a test started, even when it fails."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import tempfile

import psutil


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pids) -> list[psutil.Process]:
    """The processes Spark started under ours (executors, Python workers)."""
    out = []
    for pid in pids:
        try:
            out.extend(psutil.Process(pid).children(recursive=True))
        except psutil.Error:
            pass
    return out


def command_line(p: psutil.Process) -> str:
    try:
        return " ".join(p.cmdline())
    except psutil.Error:  # gone, or a zombie
        return ""


def kill_leftovers(processes: list[psutil.Process]) -> None:
    """SIGKILL, by PID, those of ``processes`` still running (matched on
    their start time, so a reused PID is not touched)."""
    for p in processes:
        try:
            if p.is_running():
                os.kill(p.pid, signal.SIGKILL)
        except (psutil.Error, ProcessLookupError):
            pass


def assert_trace_replays(m, path: str, length: int) -> None:
    """The ITF file's states start in an initial state and each is a
    successor of the one before."""
    with open(path) as f:
        data = json.load(f)
    states = [m.codec.decode({k: s[k] for k in m.codec.names}) for s in data["states"]]
    assert len(states) == length
    assert states[0] in m.init_states
    for before, after in zip(states, states[1:]):
        assert after in [t for _, t in m.successors(before)]


@contextlib.contextmanager
def local_context(app_name: str, master: str = "local[2]"):
    """A SparkContext in local mode for a test module, stopped afterwards."""
    from modelcheck.spark.session import start_context
    from modelcheck.spark.settings import SparkSettings
    scratch = tempfile.mkdtemp(prefix="modelcheck-test-spark-")
    sc = start_context(SparkSettings(master=master), app_name, scratch)
    try:
        yield sc
    finally:
        sc.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def assert_stopped_at_a_level_end(r) -> None:
    """A first Ctrl-C on a Spark run: the level under way is finished, the
    report is printed (exit 130, JSON saying why), and the count is that of
    the levels done; no py4j or Spark tracebacks."""
    from support import invoke_json
    assert r.code == 130, r.terminal
    report = json.loads(r.stdout)
    assert (report["result"], report["stopped"]) == ("bounded-ok", "interrupted")
    assert 3 <= report["depth"] < 18
    with_bfs = invoke_json("run", "kip320", "--const", "Replicas=2", "--max-depth", str(report["depth"]))[1]
    assert report["distinct_states"] == with_bfs["distinct_states"]
    assert "Traceback" not in r.terminal and "py4j" not in r.terminal and "Exception" not in r.terminal, r.terminal
