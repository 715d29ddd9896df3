"""A safety trace that carries a ``loop`` claims that its last state steps
back to the state the loop names: replay checks that step too, and a loop
that does not close makes the trace not a behaviour (exit 3), said in words."""

import json
import os

from support import ROOT, invoke

TRACE = os.path.join(ROOT, "traces", "truncate-to-hw-WeakIsr.itf.json")


def with_loop(path: str, loop: int) -> int:
    """A copy of the trace with ``loop`` set; returns its number of states."""
    with open(TRACE) as f:
        data = json.load(f)
    data["loop"] = loop
    with open(path, "w") as f:
        json.dump(data, f)
    return len(data["states"])


def test_a_loop_that_does_not_close_is_said_and_exits_3(in_tmp):
    n = with_loop("looped.itf.json", 0)
    code, out, _ = invoke("replay", "truncate-to-hw", "looped.itf.json")
    assert code == 3, out
    assert f"the loop does not close: no action of truncate-to-hw leads from the last state (state {n}) back to " \
           f"state 1" in out
    code, out, _ = invoke("replay", "truncate-to-hw", "looped.itf.json", "--json")
    report = json.loads(out)
    assert (report["result"], report["loop"]) == ("invalid", 1)
    assert "does not close" in report["invalid_step"]["reason"]


def test_a_loop_on_the_last_state_closes_by_stuttering(in_tmp):
    with open(TRACE) as f:
        n = len(json.load(f)["states"])
    with_loop("looped.itf.json", n - 1)
    code, out, _ = invoke("replay", "truncate-to-hw", "looped.itf.json")
    assert code == 12, out  # the counterexample it is, its loop checked
    assert f"Its loop closes: after state {n}, the behaviour stutters forever from state {n}" in out


def test_without_a_loop_nothing_changes():
    code, out, _ = invoke("replay", "truncate-to-hw", TRACE)
    assert code == 12 and "loop" not in out
