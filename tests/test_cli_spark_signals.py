"""Signals on Spark runs, with a real local[2] Spark: SIGTERM ends a search
as Ctrl-C does (the level finished, the report printed, exit 143) and its
scratch directory (``modelcheck-spark-*``) is removed; ``simulate --engine
spark`` stops on Ctrl-C as every other command does."""

import json
import os
import signal

from support import interrupt


def test_sigterm_stops_a_spark_run_like_ctrl_c_and_removes_its_scratch(tmp_path):
    from spark_support import assert_stopped_at_a_level_end
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    r = interrupt("run", "kip320", "--const", "Replicas=2", "--engine", "spark", "--master", "local[2]", "--json",
                  cwd=str(tmp_path), marker=r"level +3 ·", sig=signal.SIGTERM, env={"TMPDIR": str(scratch)})
    r.code = 130 if r.code == 143 else r.code  # the same partial report as Ctrl-C's, but for the exit code
    assert_stopped_at_a_level_end(r)
    assert os.listdir(scratch) == []


def test_ctrl_c_stops_a_spark_simulation(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    r = interrupt("simulate", "kip320", "--engine", "spark", "--master", "local[2]", "--time", "30", "--json",
                  cwd=str(tmp_path), marker=r"tasks of random walks", delay=2.0, env={"TMPDIR": str(scratch)})
    assert r.code == 130, r.terminal
    # not the 28 s of walking left: a task stops at its next step, or as soon as its kernels are built
    assert r.seconds_after < 20, r.seconds_after
    report = json.loads(r.stdout)
    assert (report["stopped"], report["result"]) == ("interrupted", "bounded-ok")
    assert report["behaviours"] > 0  # the walks begun before the stop are counted
    assert "Traceback" not in r.terminal and "Exception" not in r.terminal, r.terminal
    assert os.listdir(scratch) == []
