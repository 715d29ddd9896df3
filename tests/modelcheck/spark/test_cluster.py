"""A real standalone cluster on 127.0.0.1, started and stopped through the
CLI as users do: a master and 2 workers, the engine run against it."""

import json
import re
import subprocess
import sys
import time

import pytest

from spark_support import assert_trace_replays, descendants, free_port, kill_leftovers
from support import model, run_subprocess
from modelcheck.spark.cluster import ClusterState, ProcessRecord, stop_processes


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp("cluster"))
    started = run_subprocess("cluster", "start", "--workers", "2", "--cores", "1", "--memory", "1g",
                             "--port", str(free_port()), "--webui-port", str(free_port()),
                             "--state-dir", state_dir, timeout=240)
    state = ClusterState.load(state_dir)
    try:
        assert started.returncode == 0, started.stderr
        yield started.stdout.strip(), state_dir, state
    finally:
        if state is not None:
            spawned = descendants(p.pid for p in state.processes if p.running())
            stop_processes(state.processes)
            kill_leftovers(spawned)


def test_start_prints_the_url_and_records_a_master_and_two_workers(cluster):
    url, state_dir, state = cluster
    assert url == state.master_url and url.startswith("spark://127.0.0.1:")
    assert [p.role for p in state.processes] == ["master", "worker-1", "worker-2"]
    assert all(p.running() for p in state.processes)
    for worker in state.workers():
        assert "Successfully registered with master" in open(worker.log).read()


def test_kip320_two_replicas_on_the_cluster(cluster, tmp_path):
    url, _, _ = cluster
    done = run_subprocess("run", "kip320", "--const", "Replicas=2", "--engine", "spark", "--master", url, "--json",
                          "--lead-in", "0", cwd=str(tmp_path), timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["engine"], out["result"], out["distinct_states"], out["depth"]) == ("spark", "ok", 5973, 18)
    assert f"spark: {url} · 2 partitions" in done.stderr
    assert "level  18 ·" in done.stderr


def test_first_try_three_replicas_on_the_cluster(cluster, tmp_path):
    """The driver runs the levels of up to 200 successors in one partition
    (a spark:// master's cores are not known before its executors register),
    then hands over to the executors' two: the violation is found there, and
    its trace runs through runs the driver wrote and re-partitioned."""
    url, _, _ = cluster
    done = run_subprocess("run", "kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr",
                          "--engine", "spark", "--master", url, "--json", "--lead-in", "200", cwd=str(tmp_path),
                          timeout=600)
    assert done.returncode == 12, done.stderr
    handed = re.search(r"lead-in: levels 1 to (\d+) ran in the driver", done.stderr)
    assert handed and 1 < int(handed.group(1)) < 13, done.stderr
    out = json.loads(done.stdout)
    assert out["result"] == "violation" and out["depth"] == 13
    assert out["violation"]["invariant"] == "StrongIsr" and out["violation"]["trace_length"] == 13
    assert_trace_replays(model("kip320-first-try", Replicas=3), str(tmp_path / out["violation"]["trace_file"]), 13)


def test_a_second_start_is_refused_while_one_runs(cluster):
    _, state_dir, _ = cluster
    done = run_subprocess("cluster", "start", "--state-dir", state_dir, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().startswith("modelcheck: error:") and "still running" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_ctrl_c_on_the_cluster_stops_at_the_end_of_the_level(cluster, tmp_path, monkeypatch):
    from support import interrupt
    from spark_support import assert_stopped_at_a_level_end
    url, _, _ = cluster
    monkeypatch.chdir(tmp_path)
    r = interrupt("run", "kip320", "--const", "Replicas=2", "--engine", "spark", "--master", url, "--json",
                  cwd=str(tmp_path), marker=r"level +3 ·")
    assert_stopped_at_a_level_end(r)


def test_stop_ends_exactly_the_recorded_processes(cluster):
    _, state_dir, state = cluster
    done = run_subprocess("cluster", "stop", "--state-dir", state_dir, timeout=120)
    assert done.returncode == 0, done.stderr
    for p in state.processes:
        assert f"pid {p.pid}: stopped" in done.stdout or f"pid {p.pid}: killed" in done.stdout
        assert not p.running()
    assert ClusterState.load(state_dir) is None


def test_a_reused_pid_is_left_alone():
    """A recorded PID whose start time differs is another program now."""
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stale = ProcessRecord("worker-1", other.pid, time.time() - 3600, "/dev/null")
        assert not stale.running()
        assert stop_processes([stale]) == [(stale, "not running")]
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_executors_without_a_compiler_expand_with_numpy_and_the_driver_says_so(tmp_path):
    """A cluster whose workers find no C compiler (and have a kernel cache
    of their own, empty): the driver builds the C kernel, the executors
    cannot, and expand with numpy: the same count, and one line saying why."""
    state_dir = str(tmp_path / "state")
    no_compiler = {"CC": str(tmp_path / "no-such-cc"), "MODELCHECK_KERNEL_CACHE": str(tmp_path / "workers-cache")}
    started = run_subprocess("cluster", "start", "--workers", "1", "--cores", "2", "--memory", "1g",
                             "--port", str(free_port()), "--webui-port", str(free_port()),
                             "--state-dir", state_dir, env=no_compiler, timeout=240)
    state = ClusterState.load(state_dir)
    try:
        assert started.returncode == 0, started.stderr
        done = run_subprocess("run", "kip320", "--const", "Replicas=2", "--engine", "spark", "--master",
                              state.master_url, "--json", "--lead-in", "0", "--kernels", "compiled",
                              cwd=str(tmp_path), env={"MODELCHECK_KERNEL_CACHE": str(tmp_path / "driver-cache")},
                              timeout=600)
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        assert (out["result"], out["distinct_states"], out["depth"]) == ("ok", 5973, 18)
        said = [line for line in done.stderr.splitlines() if "expands with numpy" in line]
        assert said == [f"modelcheck: spark: an executor expands with numpy, not the C kernel "
                        f"(the C compiler '{no_compiler['CC']}' was not found)"], done.stderr
    finally:
        if state is not None:
            spawned = descendants(p.pid for p in state.processes if p.running())
            stop_processes(state.processes)
            kill_leftovers(spawned)
