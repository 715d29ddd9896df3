"""A lasso as the viewers tell it: the property it violates, what happens in
words, and the action that closes the loop, named as `run` names it."""

import os

import pytest

from support import ROOT, invoke
from modelcheck.presentation.viewer import load_view, title
from modelcheck.presentation.viewer.terminal import render

TWO = ("--const", "Replicas=2")
TLC_CYCLE = os.path.join(ROOT, "tests", "fixtures", "tlc", "kip320-QuorumIsrStabilizes-NoFairSpec-lasso.json")
CLOSING = "FencedLeaderExpandIsr(leader=r2, follower=r1)"


@pytest.fixture(scope="module")
def lassos(tmp_path_factory):
    """A lasso that cycles (6 states, back to state 5) and one that stutters
    (1 state), each written by `modelcheck run --prop`, with its report."""
    out = tmp_path_factory.mktemp("lassos")
    written = {}
    for name, prop, specification in (("cycle", "QuorumIsrStabilizes", "NoFairSpec"),
                                      ("stutter", "LeaderEventuallyElected", "Spec")):
        path = str(out / f"{name}.itf.json")
        code, report, _ = invoke("run", "kip320", *TWO, "--prop", prop, "--specification", specification,
                                 "--trace-out", path)
        assert code == 13
        written[name] = (path, report)
    return written


def test_a_cycle_is_told_in_words_with_the_action_that_closes_it(lassos):
    view = load_view(lassos["cycle"][0])
    lasso = view.lasso
    assert (lasso.start, lasso.length, lasso.stutters, lasso.closing) == (4, 6, False, CLOSING)
    assert lasso.headline() == (f"QuorumIsrStabilizes is violated under NoFairSpec: after state 6, {CLOSING} "
                                f"leads back to state 5, and states 5 to 6 repeat forever.")
    assert title(view) == "kip320: QuorumIsrStabilizes violated under NoFairSpec"
    assert lasso.phrase == f"back to state 5 via {CLOSING}"
    assert f"The behaviour runs 6 states, then goes back to state 5 via {CLOSING}." in lasso.explanation


def test_a_stutter_is_told_in_words(lassos):
    view = load_view(lassos["stutter"][0])
    lasso = view.lasso
    assert (lasso.start, lasso.length, lasso.stutters, lasso.closing) == (0, 1, True, None)
    assert lasso.headline() == ("LeaderEventuallyElected is violated under Spec: from state 1 on, nothing changes; "
                                "the behaviour stays in state 1 forever.")
    assert title(view) == "kip320: LeaderEventuallyElected violated under Spec"
    assert "The behaviour runs 1 state, then stutters forever from state 1." in lasso.explanation


def test_tlcs_lasso_gets_its_closing_action_from_the_spec():
    """TLC's trace names no property and no action for the step back: the
    viewer finds the action, and the title says what the trace shows."""
    view = load_view(TLC_CYCLE, "kip320", ["Replicas=2"])
    lasso = view.lasso
    assert lasso.property is None and lasso.closing is not None and not lasso.stutters
    n, first = len(view.frames), lasso.start + 1
    assert lasso.headline() == (f"This behaviour never ends: after state {n}, {lasso.closing} leads back to "
                                f"state {first}, and states {first} to {n} repeat forever.")
    assert title(view) == f"kip320: a behaviour of {n} states that goes back to state {first} via {lasso.closing}"


def test_show_names_the_property_and_the_closing_action(lassos):
    text = render(load_view(lassos["cycle"][0]))
    head = text.split("\nState 1:")[0]
    assert head.splitlines()[0].endswith("· 6 states")
    assert head.rstrip().endswith(f"QuorumIsrStabilizes is violated under NoFairSpec: after state 6, {CLOSING} "
                                  f"leads back to state 5, and states 5 to 6 repeat forever.")
    assert f"  -> back to state 5 via {CLOSING}\n" in text
    stutter = render(load_view(lassos["stutter"][0]))
    assert stutter.splitlines()[0].endswith("· 1 state")
    assert "  -> stutters forever from state 1\n" in stutter and "runs 1 states" not in stutter


def test_run_shows_and_names_the_closing_action_as_show_does(lassos):
    """The report's trace ends as `show` ends it, and its explanation names the same action."""
    path, report = lassos["cycle"]
    assert f"  -> back to state 5 via {CLOSING}\n" in report
    assert f"then goes back to state 5 via {CLOSING}." in report
    assert "runs 1 state, then stutters forever from state 1." in lassos["stutter"][1]


def test_replay_says_how_the_loop_closes_in_a_sentence(lassos):
    code, text, _ = invoke("replay", "kip320", lassos["cycle"][0])
    assert code == 13 and "The loop closes: after state 6, the behaviour goes back to state 5." in text
    code, text, _ = invoke("replay", "kip320", lassos["stutter"][0])
    assert code == 13 and "The loop closes: after state 1, the behaviour stutters forever from state 1." in text
