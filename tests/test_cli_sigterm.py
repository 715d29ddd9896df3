"""SIGTERM (``kill``, a scheduler or a service manager stopping a run) is
handled as Ctrl-C is: the first stops the search with its partial report and
its checkpoint saved, exit 143 (128 + 15); a second aborts at once; and no
temporary file or directory is left behind. Real processes, real signals."""

import json
import os
import signal

from support import CHECKPOINT_LAYOUT, checkpoint_layout, interrupt, invoke_json

PROGRESS = r"depth +\d+ · [\d,]+ states"


def no_noise(terminal: str) -> None:
    assert "Traceback" not in terminal and "Exception" not in terminal, terminal


def test_sigterm_stops_a_run_with_its_partial_report_and_exit_143(in_tmp):
    r = interrupt("run", "kip320", "--engine", "bfs", "--json", cwd=in_tmp, marker=PROGRESS, sig=signal.SIGTERM)
    assert r.code == 143, r.terminal
    report = json.loads(r.stdout)
    assert (report["result"], report["stopped"]) == ("bounded-ok", "interrupted")
    assert 0 < report["distinct_states"] < 737794
    no_noise(r.terminal)


def test_sigterm_outside_a_search_unwinds_and_leaves_no_file(in_tmp):
    """``graph`` builds its graph without a stop request: SIGTERM ends it at
    once, as Ctrl-C does, and the file it was to write is not there."""
    r = interrupt("graph", "kip320", "--out", "g.dot", "--max-states", "1000000", cwd=in_tmp, marker=PROGRESS,
                  sig=signal.SIGTERM, env={"TMPDIR": str(in_tmp)})
    assert r.code == 143 and r.stdout == "", r.terminal
    assert r.terminal.rstrip().endswith("modelcheck: terminated"), r.terminal
    assert os.listdir(in_tmp) == []
    no_noise(r.terminal)


def test_sigterm_saves_the_checkpoint_and_the_resumed_count_is_exact(in_tmp):
    ck = in_tmp / "ck"
    r = interrupt("run", "kip320", "--checkpoint", str(ck), "--json", cwd=in_tmp, marker=r"depth +1[0-9] ·",
                  sig=signal.SIGTERM, env={"TMPDIR": str(in_tmp)})
    assert r.code == 143, r.terminal
    stopped = json.loads(r.stdout)
    assert stopped["stopped"] == "interrupted" and 10 <= stopped["depth"] < 26
    assert checkpoint_layout(ck) == CHECKPOINT_LAYOUT  # no temporary file beside it
    code, done, _ = invoke_json("run", "kip320", "--resume", str(ck))
    assert (code, done["result"], done["distinct_states"], done["depth"]) == (0, "ok", 737794, 26)
    assert sorted(os.listdir(in_tmp)) == ["ck"]


def test_sigterm_stops_a_proof_with_exit_143(in_tmp):
    r = interrupt("prove", "kip320", "--inv", "TypeOk", "--inv", "StrongIsr", "--lemmas", "--k", "20", "--json",
                  cwd=in_tmp, marker=r"k +1 ", sig=signal.SIGTERM)
    assert r.code == 143, r.terminal
    assert json.loads(r.stdout)["stopped"] == "interrupted"
    no_noise(r.terminal)


def test_sigterm_stops_a_sweep_at_the_run_under_way(in_tmp):
    r = interrupt("sweep", "kip320", "--engine", "bfs", "--vary", "LogSize=2,3", cwd=in_tmp, marker=PROGRESS,
                  sig=signal.SIGTERM)
    assert r.code == 143, r.terminal
    assert r.stdout.strip().splitlines()[-1] == "Interrupted during run 1 of 2."
    no_noise(r.terminal)
