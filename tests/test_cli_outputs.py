"""Run outputs: modelcheck-out/SPEC/ by default, never overwritten, and a
trace that cannot be written where intended never costs a finished verdict."""

import json
import os
import shutil

import pytest

from support import invoke, one_error_line

VIOLATING = ("run", "truncate-to-hw", "--const", "Replicas=2", "--engine", "bfs")  # WeakIsr violated, 9 states
DEFAULT = os.path.join("modelcheck-out", "truncate-to-hw", "truncate-to-hw-WeakIsr.itf.json")


def test_traces_go_to_the_specs_output_directory_and_the_path_is_printed(in_tmp):
    code, out, _ = invoke(*VIOLATING)
    assert code == 12
    assert f"trace            {DEFAULT}  (modelcheck show {DEFAULT})" in out
    assert len(json.load(open(in_tmp / DEFAULT))["states"]) == 9
    assert not (in_tmp / "traces").exists()


def test_a_rerun_never_overwrites(in_tmp):
    first = json.loads(invoke(*VIOLATING, "--json")[1])["violation"]["trace_file"]
    second = json.loads(invoke(*VIOLATING, "--json")[1])["violation"]["trace_file"]
    assert (first, second) == (DEFAULT, DEFAULT.replace(".itf.json", "-2.itf.json"))


def test_the_report_says_which_trace_is_the_new_one(in_tmp):
    reports = [invoke(*VIOLATING)[1] for _ in range(3)]
    lines = [next(line for line in text.splitlines() if line.startswith("  trace ")) for text in reports]
    stem = os.path.basename(DEFAULT).removesuffix(".itf.json")
    assert lines[0].endswith(f"{DEFAULT}  (modelcheck show {DEFAULT})")
    second, third = (DEFAULT.replace(".itf.json", f"-{k}.itf.json") for k in (2, 3))
    assert lines[1].endswith(f"{second}  (new; {stem}.itf.json is an earlier run's; modelcheck show {second})")
    assert lines[2].endswith(f"{third}  (new; {stem}.itf.json and {stem}-2.itf.json are earlier runs'; "
                             f"modelcheck show {third})")
    # a file the user named is theirs: nothing is said of others
    (in_tmp / "mine.itf.json").write_text("{}")
    text = invoke(*VIOLATING, "--trace-out", "mine-2.itf.json")[1]
    assert "  (modelcheck show mine-2.itf.json)" in text


def test_an_output_directory_that_is_a_file_is_refused_before_the_search(in_tmp):
    (in_tmp / "modelcheck-out").write_text("mine")
    code, out, err = invoke(*VIOLATING)
    assert code == 2 and out == ""
    assert "modelcheck-out is a file" in one_error_line(err)
    assert (in_tmp / "modelcheck-out").read_text() == "mine"


@pytest.fixture
def during_the_search(monkeypatch):
    """Run ``action`` after the search, before the trace is written (what a
    long run sees when the disk changes under it)."""
    from modelcheck.engines.bfs import BfsChecker
    actions = []
    search = BfsChecker.check

    def check(self, model, options):
        result = search(self, model, options)
        for action in actions:
            action()
        return result

    monkeypatch.setattr(BfsChecker, "check", check)
    return actions.append


def test_a_trace_out_that_appears_during_the_run_is_kept_and_the_trace_goes_beside_it(in_tmp, during_the_search):
    during_the_search(lambda: (in_tmp / "cex.itf.json").write_text("someone else's"))
    code, out, err = invoke(*VIOLATING, "--trace-out", "cex.itf.json")
    assert code == 12
    assert "Invariant WeakIsr is violated" in out and "distinct states" in out
    assert "cex.itf.json already exists" in err and "written to cex-2.itf.json instead" in err
    assert (in_tmp / "cex.itf.json").read_text() == "someone else's"
    assert len(json.load(open(in_tmp / "cex-2.itf.json"))["states"]) == 9
    assert "cex-2.itf.json" in out


def test_an_output_directory_that_becomes_a_file_sends_the_trace_to_a_new_directory(in_tmp, during_the_search):
    during_the_search(lambda: (in_tmp / "modelcheck-out").write_text("mine"))
    code, out, err = invoke(*VIOLATING, "--json")
    assert code == 12
    written = json.loads(out)["violation"]["trace_file"]
    try:
        assert f"written to {written} instead" in err
        assert written.startswith("/") and len(json.load(open(written))["states"]) == 9
        assert (in_tmp / "modelcheck-out").read_text() == "mine"
    finally:
        shutil.rmtree(os.path.dirname(written), ignore_errors=True)


def test_sweep_lists_the_traces_it_wrote_in_the_output_directory(in_tmp):
    code, out, _ = invoke("sweep", "truncate-to-hw", "--vary", "Replicas=1,2", "-q")
    assert code == 12  # the row with two replicas breaks WeakIsr
    assert out.rstrip().endswith(f"traces written (1):\n  {DEFAULT.replace('WeakIsr', 'Replicas=2')}")
    assert (in_tmp / DEFAULT.replace("WeakIsr", "Replicas=2")).exists()
