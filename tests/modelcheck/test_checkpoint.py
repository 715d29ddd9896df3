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
    assert "Stopped at --max-memory 64.0 MiB before the search was complete" in out


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
