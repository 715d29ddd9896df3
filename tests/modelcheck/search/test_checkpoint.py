"""Long runs: limits, Ctrl-C, checkpoint and resume (fast engine)."""

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from support import ROOT, invoke, invoke_json

FULL = ("run", "kip320", "--engine", "fast")  # 737,794 states when complete


@pytest.mark.parametrize("bound", [1, 100, 50000])
def test_max_states_means_the_same_on_every_engine(in_tmp, bound):
    """The search stops at the end of the level that reaches the bound: the
    same count and depth whichever engine ran, every counted state checked,
    and the count is that of a run cut at that depth."""
    reports = [invoke_json("run", "kip320", "--engine", engine, "--max-states", str(bound))
               for engine in ("bfs", "fast")]
    (code, bfs, _), (_, fast, _) = reports
    assert code == 0 and bfs["result"] == "bounded-ok" and bfs["stopped"] == "max-states"
    assert [(r["distinct_states"], r["depth"], r["stopped"]) for r in (bfs, fast)] == \
           [(bfs["distinct_states"], bfs["depth"], "max-states")] * 2
    assert bfs["distinct_states"] >= bound
    _, cut, _ = invoke_json("run", "kip320", "--max-depth", str(bfs["depth"]))
    assert cut["distinct_states"] == bfs["distinct_states"]


def test_max_memory_stops_before_the_limit_is_passed_by_much(in_tmp):
    code, out, err = invoke("run", "kip320", "--engine", "fast", "--max-memory", "64M")
    assert code == 0
    # before the search is complete, or (the tables made for the workers counted too) before it began
    assert "Stopped at --max-memory 64.0 MiB before the search" in out


def test_resume_after_a_limit_gives_the_identical_result(in_tmp):
    code, partial, _ = invoke_json(*FULL, "--max-states", "200000", "--checkpoint", "ck")
    assert code == 0 and partial["result"] == "bounded-ok"
    assert os.path.exists(in_tmp / "ck" / "checkpoint.json")
    code, resumed, _ = invoke_json(*FULL, "--resume", "ck")
    assert code == 0
    assert (resumed["result"], resumed["distinct_states"], resumed["depth"]) == ("ok", 737794, 26)
    assert partial["resumed_with"] == 0 and resumed["resumed_with"] == partial["distinct_states"]


def test_a_resumed_search_gives_the_rate_of_the_states_it_found_itself(in_tmp):
    invoke_json(*FULL, "--max-states", "200000", "--checkpoint", "ck")
    code, out, _ = invoke(*FULL, "--resume", "ck")
    assert code == 0
    seconds, rate, reading = re.search(
        r"time +([0-9.]+) s \(([0-9,]+) states/s; ([0-9.]+) s of it reading the checkpoint\)", out).groups()
    found = 737794 - int(re.search(r"resumed at depth \d+ with ([0-9,]+) states", out).group(1).replace(",", ""))
    # in the time it searched, after reading the checkpoint; the report rounds both times to 1/100, so the
    # rate lies between the rates of their ends
    searched = float(seconds) - float(reading)
    low, high = found / (searched + 0.01), found / (searched - 0.01)
    assert low - 1 <= int(rate.replace(",", "")) <= high + 1
    assert float(reading) > 0


def test_resume_seconds_are_those_spent_reading_the_checkpoint(in_tmp):
    _, partial, _ = invoke_json(*FULL, "--max-states", "200000", "--checkpoint", "ck")
    _, resumed, _ = invoke_json(*FULL, "--resume", "ck")
    assert partial["resume_seconds"] == 0
    assert 0 < resumed["resume_seconds"] < resumed["seconds"]


def test_resumed_violation_has_the_same_shortest_trace(in_tmp):
    args = ("run", "kip320-first-try", "--engine", "fast", "--const", "Replicas=3", "--inv", "StrongIsr")
    code, partial, _ = invoke_json(*args, "--max-states", "20000", "--checkpoint", "ck")
    assert partial["result"] == "bounded-ok"
    code, resumed, _ = invoke_json(*args, "--resume", "ck")
    assert code == 12 and resumed["violation"]["trace_length"] == 13


@pytest.mark.parametrize("change", [("--const", "Replicas=2"), ("--inv", "StrongIsr"), ("--check-deadlock",),
                                    ("--symmetry",), ("--fingerprint-bits", "128")])
def test_checkpoint_of_another_run_is_refused(in_tmp, change):
    invoke_json(*FULL, "--max-states", "20000", "--checkpoint", "ck")
    code, _, err = invoke(*FULL, "--resume", "ck", *change)
    assert code == 2 and "the checkpoint is for kip320" in err and len(err.strip().splitlines()) == 1


def test_resume_under_symmetry_gives_the_identical_result(in_tmp):
    code, partial, _ = invoke_json(*FULL, "--symmetry", "--max-states", "30000", "--checkpoint", "ck")
    assert code == 0 and partial["result"] == "bounded-ok"
    code, resumed, _ = invoke_json(*FULL, "--symmetry", "--resume", "ck")
    assert (code, resumed["distinct_states"], resumed["depth"]) == (0, 123_311, 26)


def test_checkpoint_of_another_spec_is_refused(in_tmp):
    invoke_json(*FULL, "--max-states", "20000", "--checkpoint", "ck")
    code, _, err = invoke("run", "kip279", "--engine", "fast", "--resume", "ck")
    assert code == 2 and "checkpoint is for kip320" in err


@pytest.mark.parametrize("args, fragment", [
    (("--checkpoint", "ck"), "already holds a checkpoint"),
    (("--resume", "nowhere"), "no such directory"),
    (("--max-states", "0"), "at least 1"),
    (("--max-memory", "lots"), "size such as"),
    (("--max-memory", "1K"), "below the 16 MiB"),
])
def test_bad_long_run_options(in_tmp, args, fragment):
    invoke_json(*FULL, "--max-states", "20000", "--checkpoint", "ck")
    code, _, err = invoke(*FULL, *args)
    assert code == 2 and fragment in err


def test_checkpoints_need_the_fast_engine(in_tmp):
    code, _, err = invoke("run", "kip320", "--engine", "bfs", "--checkpoint", "ck")
    assert code == 2 and "--engine fast" in err


def test_ctrl_c_prints_partial_statistics_and_resume_completes(in_tmp):
    """A real SIGINT to a running checker: it stops at once with what it
    explored (exit 130, no traceback) and leaves a checkpoint to resume."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.Popen([sys.executable, "-c", "from cli import main; main()", *FULL,
                             "--const", "MaxLeaderEpoch=3", "--checkpoint", "ck", "--checkpoint-every", "0.5",
                             "--json"], cwd=in_tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 120
    while not os.path.exists(in_tmp / "ck" / "checkpoint.json") and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    partial = json.loads(out)
    assert partial["result"] == "bounded-ok" and 0 < partial["distinct_states"] < 9985570
    code, resumed, _ = invoke_json(*FULL, "--const", "MaxLeaderEpoch=3", "--resume", "ck", "--max-depth", "20")
    assert code == 0 and resumed["depth"] == 20 and resumed["distinct_states"] > partial["distinct_states"]
    code, straight, _ = invoke_json(*FULL, "--const", "MaxLeaderEpoch=3", "--max-depth", "20")
    assert (straight["result"], straight["distinct_states"]) == (resumed["result"], resumed["distinct_states"])


@pytest.mark.parametrize("kernels", ["compiled", "numpy"])
def test_a_search_with_128_bit_fingerprints_resumes_to_the_same_count(in_tmp, kernels):
    wide = ("--fingerprint-bits", "128", "--kernels", kernels)
    _, partial, _ = invoke_json(*FULL, *wide, "--max-states", "200000", "--checkpoint", "ck")
    assert partial["stopped"] == "max-states" and partial["fingerprint_bits"] == 128
    header = json.load(open("ck/checkpoint.json"))
    assert header["identity"]["fingerprint_bits"] == 128
    assert header["arrays"]["visited"]["shape"] == [partial["distinct_states"]]
    assert os.path.getsize(os.path.join("ck", header["data"], "visited")) == 16 * partial["distinct_states"]
    code, resumed, err = invoke_json(*FULL, *wide, "--resume", "ck")
    assert code == 0, err
    assert (resumed["result"], resumed["distinct_states"], resumed["depth"]) == ("ok", 737_794, 26)
    code, _, err = invoke(*FULL, "--resume", "ck")  # 64 bits cannot carry on a 128-bit search
    assert code == 2 and "128-bit fingerprints" in err
