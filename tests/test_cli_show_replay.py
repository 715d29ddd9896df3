"""modelcheck show and modelcheck replay as users meet them: output, exit codes, bad input."""

import json
import os

import pytest

from support import ROOT, invoke, one_error_line, run_on_terminal, run_subprocess

FIRST_TRY = os.path.join(ROOT, "traces", "kip320-first-try-StrongIsr.itf.json")
TLC_FIRST_TRY = os.path.join(ROOT, "tests", "fixtures", "tlc", "kip320-first-try-StrongIsr.json")


def test_show_prints_every_state_and_the_explanation():
    code, out, err = invoke("show", FIRST_TRY)
    assert code == 0 and err == ""
    assert "State 13: FollowerTruncate(leader=r2, follower=r3)" in out
    assert "!! StrongIsr is violated in state 13" in out and "\nStrongIsr broken: r1 presumes leadership" in out
    assert "\x1b[" not in out  # not a terminal: plain text


def test_show_diff_and_colour_flags():
    code, out, _ = invoke("show", FIRST_TRY, "--diff", "--color")
    assert code == 0 and "\x1b[1;33m" in out and "replicaState" not in out
    assert "r3  log | id0@2 _ -> | _ _" in out.replace("\x1b[1;33m", "").replace("\x1b[0m", "")


def test_show_a_tlc_trace_needs_the_spec_named():
    code, _, err = invoke("show", TLC_FIRST_TRY)
    assert code == 2 and "does not say which spec it is a trace of; name it with --spec" in one_error_line(err)
    code, out, _ = invoke("show", TLC_FIRST_TRY, "--spec", "kip320-first-try", "--const", "Replicas=3")
    assert code == 0 and "State 13: FollowerTruncate(leader=r2, follower=r3)" in out


def test_show_html_writes_once_and_never_overwrites_unasked(in_tmp):
    code, out, _ = invoke("show", FIRST_TRY, "--html", "v.html")
    assert code == 0 and out.startswith("wrote v.html (13 states)")
    assert (in_tmp / "v.html").read_text().startswith("<!DOCTYPE html>")
    (in_tmp / "v.html").write_text("mine")
    code, _, err = invoke("show", FIRST_TRY, "--html", "v.html")
    assert code == 2 and "already exists (pass --overwrite" in one_error_line(err)
    assert (in_tmp / "v.html").read_text() == "mine"
    code, _, _ = invoke("show", FIRST_TRY, "--html", "v.html", "--overwrite")
    assert code == 0 and (in_tmp / "v.html").read_text().startswith("<!DOCTYPE html>")


def test_replay_of_a_counterexample_exits_12_and_names_every_action():
    code, out, _ = invoke("replay", "kip320-first-try", FIRST_TRY)
    assert code == 12
    assert "State  9: BecomeFollower(leader=r1, replica=r3, leaderAndIsrRequest=0)" in out
    assert "The trace is a behaviour of kip320-first-try" in out
    assert "state 13: StrongIsr broken: r1 presumes leadership with hw=1" in out


def test_replay_json():
    code, out, _ = invoke("replay", "kip320-first-try", TLC_FIRST_TRY, "--const", "Replicas=3", "--json")
    report = json.loads(out)
    assert code == 12 and report["result"] == "violation" and report["format"] == "tlc"
    assert report["steps"][0] == {"state": 2, "actions": ["ControllerElectLeader(newLeader=r1)"], "stutter": False,
                                  "note": None}
    assert [v["invariant"] for v in report["violations"]] == ["WeakIsr", "StrongIsr"]


def test_replay_exit_0_when_the_invariants_hold():
    code, out, _ = invoke("replay", "kip320-first-try", FIRST_TRY, "--inv", "TypeOk")
    assert code == 0 and "Holding in every state: TypeOk" in out


def test_replay_of_an_illegal_step_exits_3_with_the_step_and_a_diff(in_tmp):
    itf = json.load(open(FIRST_TRY))
    itf["states"][9]["replicaLog"]["#map"][2][1]["records"]["#map"][0][1]["epoch"] = {"#bigint": "1"}
    (in_tmp / "bad.itf.json").write_text(json.dumps(itf))
    code, out, _ = invoke("replay", "kip320-first-try", "bad.itf.json")
    assert code == 3
    assert "Not a behaviour of kip320-first-try: state 10 is not reachable from state 9 by any action." in out
    assert "closest legal successor: FollowerFetch(follower=r3, leader=r1), which differs in 1 value:" in out
    assert "replicaLog[r3].records[0].epoch: 2 there, 1 in the trace" in out


@pytest.mark.parametrize("content, args, fragment", [
    ("{oops", ["kip320-first-try"], "is not valid JSON (line 1, column 2"),
    ("", ["kip320-first-try"], "is empty, not a trace"),
    ('{"vars": ["x"], "states": []}', ["kip320-first-try"], "holds no states"),
    ('{"counterexample": {"state": []}}', ["kip320"], "holds no states"),
    ('{"something": "else"}', ["kip320"], "neither an ITF trace nor TLC"),
    (None, ["kip320"], "is a trace of kip320-first-try, not kip320"),
    (None, ["kip999"], "unknown spec 'kip999'"),
    (None, ["kip320-first-try", "--const", "Replicas=2"], "expected a function over r1, r2"),
    (None, ["kip320-first-try", "--const", "Nope=1"], "no constant 'Nope'"),
    (None, ["kip320-first-try", "--inv", "Nope"], "no invariant 'Nope'"),
])
def test_replay_bad_input_is_one_line_and_exit_2(in_tmp, content, args, fragment):
    path = FIRST_TRY
    if content is not None:
        (in_tmp / "t.json").write_text(content)
        path = "t.json"
    code, out, err = invoke("replay", args[0], path, *args[1:])
    assert code == 2 and out == ""
    assert fragment in one_error_line(err)


@pytest.mark.parametrize("args, fragment", [
    (["show", "missing.json"], "trace file missing.json does not exist"),
    (["replay", "kip320", "missing.json"], "trace file missing.json does not exist"),
    (["show", FIRST_TRY, "--inv", "Nope"], "no invariant 'Nope'"),
    (["show", FIRST_TRY, "--spec", "kip320"], "is a trace of kip320-first-try, not kip320"),
    (["show", FIRST_TRY, "--html", "/nonexistent-dir/v.html"], "does not exist"),
])
def test_show_and_replay_refuse_bad_input_in_one_line(in_tmp, args, fragment):
    code, _, err = invoke(*args)
    assert code == 2 and fragment in one_error_line(err)


def test_as_users_run_it_in_a_fresh_process(in_tmp):
    proc = run_subprocess("replay", "kip101", os.path.join(ROOT, "traces", "kip101-WeakIsr.itf.json"), cwd=in_tmp)
    assert proc.returncode == 12 and proc.stderr == ""
    proc = run_subprocess("show", os.path.join(ROOT, "traces", "kip101-WeakIsr.itf.json"), "--diff", cwd=in_tmp)
    assert proc.returncode == 0 and "!! WeakIsr is violated in state 12" in proc.stdout


def test_show_is_in_colour_on_a_terminal(in_tmp):
    code, seen, _ = run_on_terminal("show", FIRST_TRY, cwd=in_tmp, stream="stdout", timeout=60)
    assert code == 0
    assert "\x1b[1;33m" in seen and "| _ _*" not in seen


def test_run_explains_the_violation_it_finds(in_tmp):
    code, out, _ = invoke("run", "kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr")
    assert code == 12
    assert ("\nStrongIsr broken: r1 presumes leadership with hw=1, but r3 is in the quorum ISR {r1, r3} and has "
            "no record at offset 0 (r1 has id0@2)\n") in out
    assert "(modelcheck show traces/kip320-first-try-StrongIsr.itf.json)" in out
