"""Resuming a Spark search from its last checkpointed level: the same count,
depth and verdict as a run without a break, in-process (a search stopped by
a limit) and as users meet it (a driver killed mid-run, then ``--resume``);
a checkpoint for another run is refused with one line and exit code 2."""

import json
import os
import select
import signal
import subprocess
import sys
import time

import pytest

from support import ROOT, invoke, model, one_error_line
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.engines.spark import SparkChecker
from modelcheck.errors import InputError
from modelcheck.runtime.limits import MAX_STATES, Limits
from modelcheck.spark import resume
from modelcheck.spark.session import start_context
from modelcheck.spark.settings import SparkSettings


@pytest.fixture(scope="module")
def context(tmp_path_factory):
    sc = start_context(SparkSettings(master="local[2]"), "modelcheck resume tests",
                       str(tmp_path_factory.mktemp("spark")))
    try:
        yield sc
    finally:
        sc.stop()


def spark_check(context, m, engine_options, **options):
    return SparkChecker(context).check(m, CheckOptions(m.spec.default_invariants, engine_options=engine_options,
                                                        **options))


def test_a_stopped_search_resumes_to_the_same_count(context, tmp_path):
    m = model("kip320", Replicas=2)
    directory = str(tmp_path / "ckpt")
    stopped = spark_check(context, m, {"checkpoint_dir": directory, "checkpoint_levels": 4, "partitions": 3},
                          limits=Limits(max_states=1000))
    assert (stopped.result, stopped.stopped) == ("bounded-ok", MAX_STATES)
    saved = json.load(open(os.path.join(directory, resume.MANIFEST)))["level"]
    assert (saved["depth"], saved["total"], saved["partitions"]) == (stopped.depth, stopped.distinct_states, 3)
    rdd_dirs = [d for _, dirs, _ in os.walk(directory) for d in dirs if d.startswith("rdd-")]
    assert len(rdd_dirs) == 1  # the checkpoints before the last one were deleted
    resumed = spark_check(context, m, {"resume": directory})  # and goes on checkpointing there
    assert (resumed.result, resumed.distinct_states, resumed.depth) == ("ok", 5973, 18)
    # what it resumed with, as the fast engine says it: the report's rate counts only the states found since
    assert resumed.resumed_with == stopped.distinct_states and resumed.resume_seconds > 0
    assert f"resumed at depth {stopped.depth} with {stopped.distinct_states:,} states" in resumed.notes
    saved = json.load(open(os.path.join(directory, resume.MANIFEST)))["level"]
    assert saved["depth"] > stopped.depth and os.path.isdir(saved["rdd"].removeprefix("file:"))
    bfs = BfsChecker().check(m, CheckOptions(m.spec.default_invariants))
    assert (resumed.states_generated, resumed.sometimes) == (bfs.states_generated, bfs.sometimes)


def test_a_resumed_search_finds_the_same_shortest_violation(context, tmp_path):
    m = model("kip279", Replicas=3)
    directory = str(tmp_path / "ckpt")
    whole = spark_check(context, m, {})
    stopped = spark_check(context, m, {"checkpoint_dir": directory, "checkpoint_levels": 2},
                          limits=Limits(max_states=50))
    assert stopped.result == "bounded-ok" and stopped.depth < whole.depth
    resumed = spark_check(context, m, {"checkpoint_dir": directory, "resume": directory})
    assert (resumed.result, resumed.distinct_states, resumed.depth) == \
           (whole.result, whole.distinct_states, whole.depth) == ("violation", whole.distinct_states, whole.depth)
    assert (resumed.violation.states, resumed.violation.actions) == (whole.violation.states, whole.violation.actions)


def test_a_checkpoint_for_another_run_is_refused(context, tmp_path):
    directory = str(tmp_path / "ckpt")
    spark_check(context, model("kip320", Replicas=2), {"checkpoint_dir": directory, "checkpoint_levels": 2},
                limits=Limits(max_states=100))
    with pytest.raises(InputError, match="the checkpoint is for kip320 .*MaxLeaderEpoch=2.* but this run is "
                                         "kip320 .*MaxLeaderEpoch=1"):
        spark_check(context, model("kip320", Replicas=2, MaxLeaderEpoch=1), {"resume": directory})
    with pytest.raises(InputError, match="has 2 partitions"):
        spark_check(context, model("kip320", Replicas=2), {"resume": directory, "partitions": 3})


def test_128_bit_fingerprints_resume_only_as_128(context, tmp_path):
    """Runs of both words are saved and resumed; a resume that names another
    width is refused, and one that names none keeps the saved width."""
    m = model("kip320", Replicas=2)
    directory = str(tmp_path / "ckpt")
    stopped = spark_check(context, m, {"checkpoint_dir": directory, "checkpoint_levels": 3, "fingerprint_bits": 128},
                          limits=Limits(max_states=500))
    assert stopped.stopped == MAX_STATES
    with pytest.raises(InputError, match="128-bit fingerprints"):
        spark_check(context, m, {"resume": directory, "fingerprint_bits": 64})
    resumed = spark_check(context, m, {"resume": directory})
    assert (resumed.result, resumed.distinct_states, resumed.depth, resumed.fingerprint_bits) == ("ok", 5973, 18, 128)


def test_a_checkpoint_of_other_code_is_refused(context, tmp_path):
    """The spec's code changed between the checkpoint and the resume (an
    action dropped): its states are not the new code's, and would count wrong."""
    import dataclasses
    directory = str(tmp_path / "ckpt")
    m = model("kip320", Replicas=2)
    spark_check(context, m, {"checkpoint_dir": directory, "checkpoint_levels": 2}, limits=Limits(max_states=100))
    spec = dataclasses.replace(m.spec, next=tuple(a for a in m.spec.next if a.name != "FencedLeaderShrinkIsr"))
    edited = spec.instantiate(m.constants)
    with pytest.raises(InputError, match="saved by another definition of kip320"):
        spark_check(context, edited, {"resume": directory})


def test_resume_options_are_checked_before_spark_starts(tmp_path):
    directory = str(tmp_path / "ckpt")
    os.makedirs(directory)
    base = ["run", "kip320", "--const", "Replicas=2", "--engine", "spark"]
    code, _, err = invoke(*base, "--resume", directory)
    assert code == 2 and "no Spark search checkpointed there" in one_error_line(err)
    with open(os.path.join(directory, resume.MANIFEST), "w") as f:
        f.write("{}")
    code, _, err = invoke(*base, "--checkpoint-dir", directory)
    assert code == 2 and f"--checkpoint-dir {directory} already holds a search's checkpoint" in one_error_line(err)
    code, _, err = invoke(*base, "--resume", directory, "--checkpoint-dir", str(tmp_path))
    assert code == 2 and "give the same directory" in one_error_line(err)
    code, _, err = invoke(*base, "--checkpoint", directory)
    assert code == 2 and "use --checkpoint-dir" in one_error_line(err)


def test_a_killed_driver_is_resumed_from_the_last_checkpoint(tmp_path):
    consts = ["--const", "Replicas=3", "--const", "LogSize=1", "--const", "MaxRecords=1"]
    directory = str(tmp_path / "ckpt")
    command = [sys.executable, "-c", "from cli import main; main()", "run", "kip320", *consts, "--engine", "spark",
               "--master", "local[2]", "--lead-in", "0", "--checkpoint-dir", directory, "--checkpoint-levels", "3",
               "--json"]
    env = dict(os.environ, PYTHONPATH=ROOT)
    first = subprocess.Popen(command, cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    try:
        seen, deadline = "", time.monotonic() + 300
        while "level   8 ·" not in seen:
            assert first.poll() is None and time.monotonic() < deadline, seen
            if select.select([first.stderr], [], [], 1.0)[0]:
                seen += first.stderr.readline()
        os.killpg(first.pid, signal.SIGKILL)  # the driver and its JVM, at once (no lead-in: levels run on Spark)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    saved = json.load(open(os.path.join(directory, resume.MANIFEST)))["level"]["depth"]
    assert saved >= 6 and saved % 3 == 0  # level 6, or 9 if it was done before the kill landed
    done = subprocess.run(command[:-5] + ["--resume", directory, "--json"], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"resumed at level {saved} " in done.stderr
    m = model("kip320", Replicas=3, LogSize=1, MaxRecords=1)
    expected = BfsChecker().check(m, CheckOptions(m.spec.default_invariants))
    result = json.loads(done.stdout)
    assert (result["result"], result["distinct_states"], result["depth"]) == \
           ("ok", expected.distinct_states, expected.depth)
