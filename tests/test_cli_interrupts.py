"""Ctrl-C, as a terminal sends it (SIGINT to the process group), on every
command: the first stops cleanly with a partial report that says it was
interrupted (exit 130), the second aborts at once; never a traceback."""

import json
import re
import shlex

from support import interrupt, invoke_json, run_subprocess

# the progress line of a search under way (the reference engine's: it takes
# seconds on kip320, time enough to be interrupted)
PROGRESS = r"depth \d+ · [\d,]+ states"


def no_noise(terminal: str) -> None:
    assert "Traceback" not in terminal and "Exception" not in terminal, terminal


def test_run_json_says_it_was_interrupted(in_tmp):
    r = interrupt("run", "kip320", "--engine", "bfs", "--json", cwd=in_tmp, marker=PROGRESS)
    assert r.code == 130, r.terminal
    report = json.loads(r.stdout)
    assert (report["result"], report["stopped"]) == ("bounded-ok", "interrupted")
    assert 0 < report["distinct_states"] < 737794
    no_noise(r.terminal)


def test_an_interrupted_bfs_run_names_the_last_depth_it_found_whole(in_tmp):
    """The reference engine stops part way through a level: the report names
    the last level found whole, and the count lies between the counts
    through that depth and through the next (from --max-depth runs)."""
    r = interrupt("run", "kip320", "--engine", "bfs", cwd=in_tmp, marker=PROGRESS, delay=1.5)  # levels are large
    assert r.code == 130, r.terminal
    said = re.search(r"no invariant is violated in the ([\d,]+) states explored \((every state through depth (\d+), "
                     r"and part of depth (\d+)|through depth (\d+))\)\.", r.stdout)
    assert said, r.stdout
    found = int(said.group(1).replace(",", ""))
    depth = int(said.group(3) or said.group(5))

    def through(d: int) -> int:
        return invoke_json("run", "kip320", "--max-depth", str(d))[1]["distinct_states"]
    if said.group(3):
        assert int(said.group(4)) == depth + 1
        assert through(depth) <= found < through(depth + 1)
        assert re.search(rf"^  depth +{depth} complete, {depth + 1} begun$", r.stdout, re.M), r.stdout
    else:
        assert found == through(depth)
    no_noise(r.terminal)


def test_ctrl_c_on_a_checkpointed_run_prints_the_command_that_continues_it(in_tmp):
    r = interrupt("run", "kip320", "--const", "LogSize=1", "--checkpoint", "ck", cwd=in_tmp,
                  marker=r"depth 3 · [\d,]+ states")
    assert r.code == 130, r.terminal
    lines = r.stdout.strip().splitlines()
    assert lines[-2:] == ["The search is saved in ck; continue it with:",
                          "  modelcheck run kip320 --const LogSize=1 --resume ck"], r.stdout
    no_noise(r.terminal)
    resumed = run_subprocess(*shlex.split(lines[-1])[1:], "--json", cwd=in_tmp)  # after "modelcheck"
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert (report["result"], report["distinct_states"], report["depth"]) == ("ok", 173779, 23)


def test_sweep_stops_at_the_interrupted_row_and_reports_the_rows_done(in_tmp):
    r = interrupt("sweep", "kip320", "--engine", "bfs", "--vary", "LogSize=1,2,3", "--format", "json", cwd=in_tmp,
                  marker=r"sweep: LogSize=2\s[\s\S]*" + PROGRESS)
    assert r.code == 130, r.terminal
    rows = json.loads(r.stdout)
    assert [row["LogSize"] for row in rows] == ["1", "2"]
    assert rows[0]["result"] == "ok"
    assert rows[1]["result"] == "interrupted" and 0 < rows[1]["distinct_states"] < 737794
    assert "sweep: LogSize=3" not in r.terminal
    no_noise(r.terminal)


def test_sweep_text_says_which_run_was_interrupted(in_tmp):
    r = interrupt("sweep", "kip320", "--engine", "bfs", "--vary", "LogSize=1,2", cwd=in_tmp,
                  marker=r"sweep: LogSize=2\s[\s\S]*" + PROGRESS)
    assert r.code == 130
    lines = r.stdout.strip().splitlines()
    assert lines[1].split()[:2] == ["1", "ok"] and lines[2].split()[:2] == ["2", "interrupted"] and len(lines) == 5
    assert lines[-1] == "Interrupted during run 2 of 2 (1 complete)."


LONG_PROOF = ("prove", "kip320", "--inv", "TypeOk", "--inv", "StrongIsr", "--lemmas", "--k", "20")  # ~10 min


def test_an_interrupted_proof_is_never_proved_whenever_the_interrupt_comes(in_tmp):
    """Ctrl-C at random moments (seeded, so a failure can be replayed) while
    the solver works or while Python builds its formulas: always exit 130
    with a report that says how far the proof got, never a verdict, an
    error or a lost interrupt."""
    import random
    rng = random.Random(17)
    for attempt in range(4):
        delay = rng.uniform(0.0, 2.5)
        as_json = attempt % 2 == 0
        r = interrupt(*LONG_PROOF, *(("--json",) if as_json else ()), cwd=in_tmp, marker=r"k +1 ", delay=delay)
        where = f"attempt {attempt}, {delay:.2f} s after k = 1:\n{r.stdout}\n{r.terminal}"
        assert r.code == 130, where
        assert "Error" not in r.terminal and "Exception" not in r.terminal and "Traceback" not in r.terminal, where
        if as_json:
            report = json.loads(r.stdout)
            assert (report["result"], report["stopped"], report["proved_at_k"]) == ("interrupted", "interrupted",
                                                                                     None), where
            assert report["depth"] >= 1, where
        else:
            assert "Interrupted before a verdict" in r.stdout and "Proved" not in r.stdout, where
            assert "  base case  no behaviour of up to" in r.stdout, where


def test_an_interrupted_bounded_search_with_z3_reports_the_depth_reached(in_tmp):
    r = interrupt("run", "kip320", "--engine", "z3", "--max-depth", "40", "--json", cwd=in_tmp,
                  marker=r"depth +3 ", delay=0.2)
    assert r.code == 130, r.terminal
    report = json.loads(r.stdout)
    assert (report["result"], report["stopped"]) == ("bounded-ok", "interrupted")
    assert 3 <= report["depth"] < 40
    assert "Traceback" not in r.terminal and "Error" not in r.terminal
