"""Ctrl-C, as a terminal sends it (SIGINT to the process group), on every
command: the first stops cleanly with a partial report that says it was
interrupted (exit 130), the second aborts at once; never a traceback."""

import json

from support import interrupt

PROGRESS = r"depth \d+ · [\d,]+ states"  # the progress line of a search under way


def no_noise(terminal: str) -> None:
    assert "Traceback" not in terminal and "Exception" not in terminal, terminal


def test_run_json_says_it_was_interrupted(in_tmp):
    r = interrupt("run", "kip320", "--json", cwd=in_tmp, marker=PROGRESS)
    assert r.code == 130, r.terminal
    report = json.loads(r.stdout)
    assert (report["result"], report["stopped"]) == ("bounded-ok", "interrupted")
    assert 0 < report["distinct_states"] < 737794
    no_noise(r.terminal)


def test_sweep_stops_at_the_interrupted_row_and_reports_the_rows_done(in_tmp):
    r = interrupt("sweep", "kip320", "--vary", "LogSize=1,2,3", "--format", "json", cwd=in_tmp,
                  marker=r"sweep: LogSize=2\s[\s\S]*" + PROGRESS)
    assert r.code == 130, r.terminal
    rows = json.loads(r.stdout)
    assert [row["LogSize"] for row in rows] == ["1", "2"]
    assert rows[0]["result"] == "ok"
    assert rows[1]["result"] == "interrupted" and 0 < rows[1]["distinct_states"] < 737794
    assert "sweep: LogSize=3" not in r.terminal
    no_noise(r.terminal)


def test_sweep_text_says_how_many_runs_were_made(in_tmp):
    r = interrupt("sweep", "kip320", "--vary", "LogSize=2,3", cwd=in_tmp, marker=PROGRESS)
    assert r.code == 130
    lines = r.stdout.strip().splitlines()
    assert lines[1].split()[:2] == ["2", "interrupted"] and len(lines) == 4
    assert lines[-1] == "Interrupted after 1 of 2 runs."
