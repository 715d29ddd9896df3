"""`modelcheck run --engine spark` and `modelcheck cluster` as users meet
them: JSON and exit codes as with the breadth-first engine, per-level
progress, and bad input as one line with exit code 2, in bounded time."""

import json
import os
import time

import pytest

from spark_support import assert_trace_replays, free_port
from support import invoke, model, one_error_line, run_subprocess


def test_local_run_gives_the_bfs_json(tmp_path):
    done = run_subprocess("run", "kip320", "--const", "Replicas=2", "--engine", "spark", "--master", "local[2]",
                          "--json", cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    spark = json.loads(done.stdout)  # stdout holds the JSON object and nothing else
    bfs = json.loads(run_subprocess("run", "kip320", "--const", "Replicas=2", "--engine", "bfs", "--json",
                                    cwd=str(tmp_path)).stdout)
    assert spark.pop("engine") == "spark" and bfs.pop("engine") == "bfs"
    for timing in ("seconds", "timings", "kernel_build"):
        spark.pop(timing), bfs.pop(timing)
    # Spark's figures per level (the bfs engine gives none): each level's new states, adding up
    assert sum(level["new"] for level in spark.pop("levels")) == spark["distinct_states"]
    # the Spark report adds that the driver ran the whole search (the lead-in)
    driver = [n for n in spark["notes"] if n.startswith("the search finished in the driver")]
    assert len(driver) == 1
    spark["notes"].remove(driver[0])
    assert spark == bfs
    lines = done.stderr.splitlines()
    # Spark is said to be up only if it was before the driver finished: it is not waited for
    started = any(line.startswith("spark: local[2] · 2 partitions") for line in lines)
    assert started == ("which was not waited for" not in driver[0]), done.stderr
    levels = [line for line in lines if line.startswith("level ")]
    assert len(levels) == 19 and levels[17].startswith("level  18 ·") and "5,973 total" in levels[17]
    assert all(line.startswith(("spark", "level ", "lead-in: ")) for line in lines), done.stderr  # no JVM chatter


def test_a_search_the_driver_finished_alone_says_so(tmp_path):
    """With the lead-in, a small search ends in the driver while Spark
    starts: the report says that no level ran on the executors, and how to
    make them run."""
    done = run_subprocess("run", "kip320", "--const", "Replicas=2", "--engine", "spark", "--master", "local[2]",
                          "-q", cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert ("note: the search finished in the driver before executors were needed: levels 1 to 19 ran there while "
            "Spark local[2] started (the lead-in, ") in done.stdout
    assert "and no level ran on Spark" in done.stdout  # (", which was not waited for" if it was still starting)
    assert "; use --lead-in 0 to run every level on the executors" in done.stdout
    assert "spark: WARN" not in done.stderr  # Spark's warnings only with --verbose
    assert "Setting default log level" not in done.stderr and "sc.setLogLevel" not in done.stderr
    assert "note: ran on Spark" not in done.stdout


def test_violation_report_trace_and_exit_12(tmp_path):
    done = run_subprocess("run", "truncate-to-hw", "--const", "Replicas=2", "--engine", "spark",
                          "--master", "local[2]", "--partitions", "3", "--lead-in", "0", "--quiet", "--verbose",
                          cwd=str(tmp_path))
    assert done.returncode == 12, done.stderr
    assert "Invariant WeakIsr is violated in state 9, at the end of this shortest counterexample" in done.stdout
    assert "engine spark" in done.stdout
    assert not any(line.startswith("level ") for line in done.stderr.splitlines())  # --quiet
    assert "spark: INFO DAGScheduler" in done.stderr  # --verbose: Spark's own log
    assert "note: ran on Spark local[2] with 3 partitions" in done.stdout and "in the driver" not in done.stdout
    path = tmp_path / "modelcheck-out" / "truncate-to-hw" / "truncate-to-hw-WeakIsr.itf.json"
    assert json.load(open(path))["#meta"]["modelcheck"]["engine"] == "spark"
    assert_trace_replays(model("truncate-to-hw", Replicas=2), str(path), 9)


def test_symmetry_on_spark_counts_orbits_and_traces_genuine_behaviours(tmp_path):
    done = run_subprocess("run", "kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr", "--symmetry",
                          "--engine", "spark", "--master", "local[2]", "--json", "--trace-out", "t.itf.json",
                          cwd=str(tmp_path))
    assert done.returncode == 12, done.stderr
    out = json.loads(done.stdout)
    assert out["symmetry"] is True and out["violation"]["trace_length"] == 13
    assert out["engine"] == "spark"
    assert_trace_replays(model("kip320-first-try", Replicas=3), str(tmp_path / "t.itf.json"), 13)


def test_unreachable_master_fails_fast_with_one_line(tmp_path):
    port = free_port()  # nothing listens there
    started = time.monotonic()
    done = run_subprocess("run", "kip320", "--engine", "spark", "--master", f"spark://127.0.0.1:{port}",
                          cwd=str(tmp_path), timeout=120)
    assert done.returncode == 2
    line = one_error_line(done.stderr)
    assert f"cannot reach the Spark master spark://127.0.0.1:{port}" in line and "refused" in line
    assert time.monotonic() - started < 30


def test_missing_java_is_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(tmp_path)  # no java there
    for args in (["run", "kip320", "--engine", "spark"], ["cluster", "start", "--state-dir", str(tmp_path / "c")]):
        done = run_subprocess(*args, cwd=str(tmp_path), env=env, timeout=60)
        assert done.returncode == 2
        assert "needs Java 17 or newer" in one_error_line(done.stderr)


@pytest.mark.parametrize("args, fragment", [
    (["run", "kip320", "--master", "local[2]"], "--master applies only to --engine spark"),
    (["run", "kip320", "--engine", "spark", "--partitions", "0"], "--partitions must be between 1"),
    (["run", "kip320", "--engine", "spark", "--master", "yarn"], "spark-submit"),
    (["run", "kip320", "--engine", "spark", "--spark-conf", "nokey"], "KEY=VALUE"),
    (["run", "kip320", "--engine", "spark", "--executor-wait", "0"], "--executor-wait must be positive"),
    (["run", "kip320", "--engine", "spark", "--lead-in", "-1"], "--lead-in must be 0 (off) or more"),
    (["run", "kip320", "--engine", "fast", "--lead-in", "0"], "--lead-in applies only to --engine spark"),
    (["cluster", "start", "--memory", "lots"], "--memory lots"),
    (["cluster", "start", "--workers", "0"], "--workers must be between 1"),
])
def test_bad_spark_input_is_one_line_and_exit_2(args, fragment):
    code, _, err = invoke(*args)
    assert code == 2
    assert fragment in one_error_line(err)


def test_stop_without_a_cluster_says_so(tmp_path):
    code, out, err = invoke("cluster", "stop", "--state-dir", str(tmp_path))
    assert code == 0 and "nothing to stop" in err
    code, out, _ = invoke("cluster", "status", "--state-dir", str(tmp_path))
    assert code == 0 and "no cluster is recorded" in out


def test_without_pyspark_the_engine_is_one_line(tmp_path):
    shadow = tmp_path / "shadow" / "pyspark"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('pyspark is not installed here')\n")
    done = run_subprocess("run", "kip320", "--engine", "spark", cwd=str(tmp_path),
                          env={"PYTHONPATH": str(shadow.parent)})
    assert done.returncode == 2
    assert "needs pyspark: pip install '.[spark]' in the modelcheck clone" in one_error_line(done.stderr)


def test_ctrl_c_stops_a_local_run_at_the_end_of_the_level(tmp_path, monkeypatch):
    from spark_support import assert_stopped_at_a_level_end
    from support import interrupt
    monkeypatch.chdir(tmp_path)
    r = interrupt("run", "kip320", "--const", "Replicas=2", "--engine", "spark", "--master", "local[2]", "--json",
                  cwd=str(tmp_path), marker=r"level +3 ·")
    assert_stopped_at_a_level_end(r)


def test_ctrl_c_while_executors_run_a_level_prints_no_spark_errors(tmp_path, monkeypatch):
    """SIGINT to the whole process group, as a terminal sends it, while the
    executors (not the driver: no lead-in) run a level: the level ends, the
    report comes, and Spark's log says nothing (no ERROR Executor lines)."""
    from spark_support import assert_stopped_at_a_level_end
    from support import interrupt
    monkeypatch.chdir(tmp_path)
    r = interrupt("run", "kip320", "--const", "Replicas=2", "--engine", "spark", "--master", "local[2]",
                  "--lead-in", "0", "--json", cwd=str(tmp_path), marker=r"level +4 ·")
    assert_stopped_at_a_level_end(r)
    from support import terminal_lines
    said = [line for line in terminal_lines(r.terminal) if line.strip()
            and not line.startswith(("level ", "spark: local"))]
    assert said == [], r.terminal


def test_a_second_ctrl_c_aborts_a_spark_run_at_once_and_quietly(tmp_path, monkeypatch):
    from support import interrupt
    monkeypatch.chdir(tmp_path)
    # level 15 of this model takes more than a second, so both signals land inside it
    # (no lead-in: the abort to test is of a level the executors run)
    r = interrupt("run", "kip320", "--const", "MaxLeaderEpoch=3", "--engine", "spark", "--master", "local[2]",
                  "--lead-in", "0", "--json", cwd=str(tmp_path), marker=r"level +14 ·", signals=2, gap=0.2)
    assert r.code == 130 and r.stdout == ""
    assert r.terminal.rstrip().endswith("modelcheck: interrupted"), r.terminal
    after = r.terminal.split("level  14 ·", 1)[1].splitlines()[1:]
    assert [line for line in after if line.strip()] == ["modelcheck: interrupted"], r.terminal


def test_a_spec_file_runs_on_the_executors(tmp_path):
    """The executors load the spec from the reference the model's key
    carries (the file's path and SHA-256), and find TLC's 288 states."""
    from support import EXAMPLES
    done = run_subprocess("run", EXAMPLES["two-phase"], "--engine", "spark", "--master", "local[2]", "--lead-in", "0",
                          "--json", cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["spec"], out["distinct_states"], out["depth"]) == ("two-phase", 288, 11)
    assert not any(n.startswith("the search finished in the driver") for n in out["notes"])
