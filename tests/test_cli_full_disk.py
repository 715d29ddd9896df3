"""A full disk, for real (a filled tmpfs, see tests/fulldisk.py): the verdict,
the report and the verdict's exit code always come out; a file is written
whole or not at all, never as a fragment or an empty file; and an existing
file is replaced only by a complete new one."""

import json
import os
import shutil
import tempfile

import pytest

from fulldisk import FILLER, files_in, small_filesystem
from support import checkpoint_contents, invoke, one_error_line, run_subprocess

VIOLATING = ("run", "truncate-to-hw", "--const", "Replicas=2")  # WeakIsr violated in state 9
TRACE = "trace.itf.json"


@pytest.fixture
def disk(tmp_path):
    with small_filesystem(str(tmp_path / "disk")) as directory:
        yield directory


def fallback_dir(written: str) -> str:
    """The new directory a trace went to when its own place was full (removed by the test)."""
    directory = os.path.dirname(written)
    assert os.path.basename(directory).startswith("modelcheck-out-"), written
    return directory


def test_the_verdict_and_exit_code_come_out_and_the_trace_goes_elsewhere(disk):
    r = run_subprocess(*VIOLATING, "--json", cwd=disk)
    assert r.returncode == 12, r.stderr
    report = json.loads(r.stdout)
    assert report["result"] == "violation" and report["violation"]["trace_length"] == 9
    written = report["violation"]["trace_file"]
    try:
        assert "No space left on device" in r.stderr and f"written to {written} instead" in r.stderr
        assert len(json.load(open(written))["states"]) == 9
        assert "Traceback" not in r.stderr
    finally:
        shutil.rmtree(fallback_dir(written), ignore_errors=True)
    assert files_in(disk) == [FILLER]  # no empty trace, no directory made for it


def test_the_text_report_is_whole_on_a_full_disk(disk):
    r = run_subprocess(*VIOLATING, "--trace-out", TRACE, cwd=disk)
    assert r.returncode == 12, r.stderr
    written = r.stdout.split("  trace            ")[1].split()[0]
    shutil.rmtree(fallback_dir(written), ignore_errors=True)
    assert "Invariant WeakIsr is violated in state 9" in r.stdout and "distinct states  1,294" in r.stdout
    assert "State 9: BecomeFollowerTruncateToHighWatermark" in r.stdout
    assert files_in(disk) == [FILLER]


def test_overwrite_keeps_the_old_file_when_the_new_one_cannot_be_written(tmp_path):
    with small_filesystem(str(tmp_path / "disk"), full=False) as disk:
        old = os.path.join(disk, TRACE)
        with open(old, "w") as f:
            f.write('{"the": "old trace"}\n')
        from fulldisk import fill
        fill(disk)
        r = run_subprocess(*VIOLATING, "--trace-out", old, "--overwrite", "--json", cwd=disk)
        assert r.returncode == 12, r.stderr
        shutil.rmtree(fallback_dir(json.loads(r.stdout)["violation"]["trace_file"]), ignore_errors=True)
        assert open(old).read() == '{"the": "old trace"}\n'
        assert files_in(disk) == sorted([FILLER, TRACE])


def test_when_nothing_can_be_written_the_report_says_where_it_tried(disk, monkeypatch):
    monkeypatch.chdir(disk)
    monkeypatch.setattr(tempfile, "tempdir", disk)  # the temporary directory is on the full disk too
    code, out, err = invoke(*VIOLATING, "--trace-out", TRACE)
    assert code == 12
    assert "Invariant WeakIsr is violated in state 9" in out and "State 9:" in out
    tried = out.split("  trace            ")[1].splitlines()[0]
    assert tried.startswith("not written: tried ") and "No space left on device" in tried
    assert TRACE in tried and disk in tried
    assert "could not be written anywhere" in err
    assert files_in(disk) == [FILLER]


def test_json_names_the_places_tried_when_nothing_could_be_written(disk, monkeypatch):
    monkeypatch.chdir(disk)
    monkeypatch.setattr(tempfile, "tempdir", disk)
    code, out, _ = invoke(*VIOLATING, "--json")
    assert code == 12
    violation = json.loads(out)["violation"]
    assert violation["trace_file"] is None and "No space left on device" in violation["trace_problem"]
    assert files_in(disk) == [FILLER]


def test_a_search_whose_levels_fill_the_disk_reports_what_it_found_whole(disk, monkeypatch):
    """The fast engine's levels go to files (here from the first byte), and
    the disk under them fills: the run stops as at a limit, says why and
    where, and leaves nothing there."""
    from modelcheck.engines import fast
    monkeypatch.setattr(fast, "spill_threshold", lambda max_memory: 0)
    monkeypatch.setattr(tempfile, "tempdir", disk)
    code, out, err = invoke("run", "kip320", "--const", "Replicas=2", "--kernels", "compiled")
    assert code == 0, err
    assert "Stopped when the disk was full before the search was complete: no invariant is violated" in out
    assert f"note: the disk holding the search's level files (under {disk}) has no room left" in out
    code, out, err = invoke("run", "kip320", "--const", "Replicas=2", "--kernels", "compiled", "--json")
    report = json.loads(out)
    assert (code, report["result"], report["stopped"]) == (0, "bounded-ok", "disk-full")
    assert files_in(disk) == [FILLER]


def test_a_state_graph_that_fills_the_disk_stops_the_run_as_a_limit_does(disk, monkeypatch):
    """The fast engine's graph for a temporal property goes to files (here
    all of it) on a full disk: the run stops with a report, never a crash."""
    from modelcheck.capabilities.liveness.store import Store
    monkeypatch.setattr(Store, "_over", lambda self, nbytes: True)  # every array and log to disk
    monkeypatch.setattr(Store, "need", lambda self, nbytes: None)  # while every temporary fits
    monkeypatch.setattr(tempfile, "tempdir", disk)
    code, out, err = invoke("run", "kip320", "--const", "Replicas=2", "--prop", "LeaderAdoptsItsRequest",
                            "--engine", "fast")
    assert code == 0, err
    assert "Stopped when the disk was full before the search was complete" in out
    assert files_in(disk) == [FILLER]


def test_simulate_and_sweep_leave_no_partial_trace(disk):
    r = run_subprocess("simulate", "truncate-to-hw", "--const", "Replicas=2", "--num", "200",
                       "--trace-out", TRACE, "--json", cwd=disk)
    assert r.returncode == 12, r.stderr
    shutil.rmtree(fallback_dir(json.loads(r.stdout)["violation"]["trace_file"]), ignore_errors=True)
    r = run_subprocess("sweep", "truncate-to-hw", "--vary", "Replicas=1,2", "--trace-dir", "traces", "-q", cwd=disk)
    assert r.returncode == 12, r.stderr  # a row breaks an invariant (the sweep exits as run does for its worst row)
    written = r.stdout.split("traces written (1):\n  ")[1].split()[0]
    shutil.rmtree(fallback_dir(written), ignore_errors=True)
    assert files_in(disk) == [FILLER, "traces"]  # the --trace-dir asked for, and nothing in it


def test_show_html_on_a_full_disk_fails_in_one_line_and_keeps_the_old_page(tmp_path):
    trace = tmp_path / "t.itf.json"
    assert invoke(*VIOLATING, "--trace-out", str(trace))[0] == 12
    with small_filesystem(str(tmp_path / "disk"), full=False) as disk:
        page = os.path.join(disk, "t.html")
        with open(page, "w") as f:
            f.write("the old page")
        from fulldisk import fill
        fill(disk)
        code, _, err = invoke("show", str(trace), "--html", page, "--overwrite")
        assert code == 2 and "No space left on device" in one_error_line(err)
        assert open(page).read() == "the old page"
        code, _, err = invoke("show", str(trace), "--html", os.path.join(disk, "new.html"))
        assert code == 2 and "No space left on device" in one_error_line(err)
        assert files_in(disk) == sorted([FILLER, "t.html"])


def test_graph_out_on_a_full_disk_fails_in_one_line_and_leaves_nothing(disk):
    for out in ("g.dot", "g.graphml"):
        code, _, err = invoke("graph", "truncate-to-hw", "--const", "Replicas=2", "--max-depth", "4", "--out",
                              os.path.join(disk, out), "-q")
        assert code == 2 and "No space left on device" in one_error_line(err)
    assert files_in(disk) == [FILLER]


SMALL = ("run", "kip320", "--const", "Replicas=2")  # 5,973 states, depth 18, no violation


def test_a_checkpoint_save_on_a_full_disk_keeps_the_last_one_and_the_report_says_both(tmp_path):
    whole = json.loads(invoke(*SMALL, "--json", "-q")[1])
    with small_filesystem(str(tmp_path / "disk"), size="1m", full=False) as disk:
        ck = os.path.join(disk, "ck")
        first = run_subprocess(*SMALL, "--checkpoint", ck, "--max-states", "1000", "--json", "-q")
        assert first.returncode == 0, first.stderr
        saved_at = json.loads(first.stdout)["depth"]
        kept = checkpoint_contents(ck)
        from fulldisk import fill
        fill(disk)
        r = run_subprocess(*SMALL, "--resume", ck, "--max-states", "3000", "-q")
        assert r.returncode == 0, r.stderr
        assert "Stopped at --max-states 3,000 before the search was complete" in r.stdout
        assert (f"could not be saved (No space left on device); {ck} keeps the checkpoint saved at depth "
                f"{saved_at}, which --resume {ck} continues") in r.stdout
        assert "Traceback" not in r.stderr
        assert checkpoint_contents(ck) == kept  # the same files, and no temporary one
        assert files_in(ck) == sorted(set(kept) | {os.path.dirname(p) for p in kept if os.path.dirname(p)})
        os.unlink(os.path.join(disk, FILLER))
        done = json.loads(run_subprocess(*SMALL, "--resume", ck, "--json", "-q").stdout)
    assert (done["result"], done["distinct_states"], done["depth"]) == ("ok", whole["distinct_states"], whole["depth"])


def test_a_first_checkpoint_that_cannot_be_saved_says_none_was(disk):
    ck = os.path.join(disk, "ck")
    r = run_subprocess(*SMALL, "--checkpoint", ck, "--max-states", "1000", "--json", "-q")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["stopped"] == "max-states"
    assert any(f"could not be saved (No space left on device); no checkpoint was saved in {ck}" in n
               for n in report["notes"])
    assert files_in(ck) == []
