"""The run report's parts that need no search: the command that continues a saved run."""

from modelcheck.engines.base import CheckResult
from modelcheck.runtime.limits import INTERRUPTED, MAX_STATES
from modelcheck.runs.report import resume_command
from modelcheck.runs.run import RunRequest, prepare


def stopped(reason: str, saved: str) -> CheckResult:
    return CheckResult("any", "bounded-ok", 100, 3, 0.1, stopped=reason, saved=saved)


def test_the_resume_command_keeps_the_runs_options_and_the_engines_own(tmp_path):
    """Spark's --checkpoint-dir gives way to --resume; its other options stay,
    as do the constants (quoted for a shell) and the invariants."""
    ck = str(tmp_path / "ck")
    request = RunRequest(spec="kip320", engine="spark", consts=("Replicas={a,b}",), invariants=("StrongIsr",),
                         max_memory="2G", engine_options={"checkpoint_dir": ck, "master": "local[2]",
                                                          "conf": ("spark.executor.memory=2g",)})
    assert resume_command(prepare(request), stopped(INTERRUPTED, ck)) == (
        f"modelcheck run kip320 --engine spark --const 'Replicas={{a,b}}' --inv StrongIsr --max-memory 2G "
        f"--master 'local[2]' --spark-conf spark.executor.memory=2g --resume {ck}")


def test_the_limit_that_stopped_the_run_is_left_out(tmp_path):
    ck = str(tmp_path / "ck")
    request = RunRequest(spec="kip320", max_states=1000, check_deadlock=True,
                         engine_options={"checkpoint": ck, "checkpoint_every": 5.0})
    assert resume_command(prepare(request), stopped(MAX_STATES, ck)) == \
        f"modelcheck run kip320 --check-deadlock --checkpoint-every 5.0 --resume {ck}"
    assert resume_command(prepare(request), stopped(INTERRUPTED, ck)) == \
        f"modelcheck run kip320 --max-states 1000 --check-deadlock --checkpoint-every 5.0 --resume {ck}"


def test_a_search_stopped_after_one_state_says_state():
    from modelcheck.runs.report import stopped_lines
    from modelcheck.runs.run import RunOutcome
    prepared = prepare(RunRequest(spec="kip320", max_states=1))
    one = CheckResult("fast", "bounded-ok", 1, 1, 0.1, stopped=MAX_STATES)
    many = CheckResult("fast", "bounded-ok", 2, 1, 0.1, stopped=MAX_STATES)
    assert "in the 1 state explored (" in stopped_lines(RunOutcome(prepared, one, None, None))[0]
    assert "in the 2 states explored (" in stopped_lines(RunOutcome(prepared, many, None, None))[0]
    none = CheckResult("fast", "bounded-ok", 0, 0, 0.1, stopped=INTERRUPTED)
    assert stopped_lines(RunOutcome(prepared, none, None, None)) == [
        "Interrupted before the search began: no state was explored."]
