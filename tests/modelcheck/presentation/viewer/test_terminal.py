"""modelcheck show in the terminal: plain text, colour, --diff, every spec."""

import os
import re

import pytest

from support import ROOT, model
from modelcheck.model.trace import trace_from_states, write_trace
from modelcheck.presentation.viewer import load_view
from modelcheck.presentation.viewer.terminal import render

FIRST_TRY = os.path.join(ROOT, "traces", "kip320-first-try-StrongIsr.itf.json")
TLC = os.path.join(ROOT, "tests", "fixtures", "tlc")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def view():
    return load_view(FIRST_TRY)


def block(text: str, number: int) -> str:
    return text.split(f"State {number}: ")[1].split("\nState ")[0]


def test_plain_text_has_a_block_per_state_and_marks_changes(view):
    text = render(view)
    assert not ANSI.search(text)
    assert text.count("\nState ") == 13
    last = block(text, 13)
    assert last.startswith("FollowerTruncate(leader=r2, follower=r3)")
    assert "  r1       self    2      1   {r1, r3}      id0@2 | _" in last
    assert "  r3       r2      1      0   {r1, r2, r3}  | _* _" in last  # the truncated slot, not the whole log
    assert "quorum  leader r1 · epoch 2 · isr {r1, r3}" in last
    # r2 and r3 are on epoch 1: only the epoch-2 request is still pending, for both
    assert "  request  leader  isr           pending for\n  epoch 0  r1      {r1, r2, r3}  -\n" \
           "  epoch 1  r2      {r1, r2, r3}  -\n  epoch 2  r1      {r1, r2, r3}  r2, r3" in last
    assert "counters  nextRecordId 1 · nextLeaderEpoch 3" in last
    assert "!! StrongIsr is violated in state 13" in last
    assert text.count("violated in state 13") == 1  # said once; the end says why
    assert text.rstrip().endswith("\n\nStrongIsr broken: r1 presumes leadership with hw=1, but r3 is in the quorum "
                                  "ISR {r1, r3} and has no\n  record at offset 0 (r1 has id0@2)")


def test_the_header_names_the_upstream_module_and_the_legend_the_mode(view):
    lines = render(view).splitlines()
    assert lines[1] == "spec       port of TLA+ module Kip320FirstTry, from github.com/hachikuji/kafka-specification"
    assert ".tla" not in render(view)
    assert lines[3].endswith("| the high watermark. A trailing * marks what the step changed.")
    assert render(view, color=True).splitlines()[3].endswith("Colour marks what the step changed.\x1b[0m")
    diff_legend = render(view, diff=True).splitlines()[3]
    assert "*" not in diff_legend and diff_legend.endswith("only what it changed (old -> new; + a new row).")


def test_only_the_slots_that_changed_are_marked(view):
    text = render(view)
    # a record written at offset 0; then the high watermark moves past it (the marker is marked, not the record)
    assert "  r1       self    2      0   {r1, r3}      | id0@2* _" in block(text, 8)
    assert "  r1       self    2      1*  {r1, r3}      id0@2 |* _" in block(text, 11)


def test_a_state_with_no_request_says_so(view):
    first = block(render(view), 1)
    assert first == ("Init\n"
                     "  replica  leader  epoch  hw  isr  log\n"
                     "  r1       NONE    -1     0   {}   | _ _\n"
                     "  r2       NONE    -1     0   {}   | _ _\n"
                     "  r3       NONE    -1     0   {}   | _ _\n"
                     "  quorum  leader NONE · epoch -1 · isr {r1, r2, r3}\n"
                     "  no LeaderAndIsr request yet\n"
                     "  counters  nextRecordId 0 · nextLeaderEpoch 0\n")


def test_colour_replaces_the_star_on_a_terminal(view):
    text = render(view, color=True)
    last = block(text, 13)
    assert "| \x1b[1;33m_\x1b[0m _" in last and "*" not in last
    assert ANSI.sub("", render(view, color=True)).count("\nState ") == 13


def test_diff_shows_only_what_changed(view):
    text = render(view, diff=True)
    first = block(text, 1)
    assert "replica  leader  epoch  hw  isr  log" in first  # the initial state in full
    assert [line.strip() for line in block(text, 2).strip().splitlines()] == [
        "ControllerElectLeader(newLeader=r1)",
        "quorum  leader NONE -> r1 · epoch -1 -> 0",
        "+ request epoch 0: leader r1 · isr {r1, r2, r3} · pending for r1, r2, r3",
        "counters  nextLeaderEpoch 0 -> 1"]
    assert "r3  log | id0@2 _ -> | _ _" in block(text, 13)
    # a request's row says it is a request, so its epoch does not read like a replica's
    assert [line.strip() for line in block(text, 5).strip().splitlines()] == [
        "BecomeLeader(leaderAndIsrRequest=1, leader=r2)",
        "r2  leader NONE -> self · epoch -1 -> 1 · isr {} -> {r1, r2, r3}",
        "request epoch 0  pending for r1, r2, r3 -> r1, r3",
        "request epoch 1  pending for r1, r2, r3 -> r1, r3"]


def test_consumer_trace_shows_the_consumer_row():
    view = load_view(os.path.join(TLC, "kip320-consumer-NoDivergentDelivery.json"), "kip320-consumer",
                     ["TruncationCheck=FALSE"])
    text = render(view)
    last = block(text, 17)
    assert last.startswith("ConsumerFetch(leader=r2)")  # labelled by replay: the TLC file has the name only
    consumer = [line for line in last.splitlines() if line.startswith("  consumer")]
    assert consumer == ["  consumer  leader r2 · epoch 2 · position 2* · last epoch 2* · validation done · "
                        "delivered id0@0 id2@2* · divergent YES*"]  # one line, "consumer" once
    assert "at offset 0 r2 has id1@2 where the consumer delivered id0@0" in " ".join(text.split())


def test_async_isr_trace(tmp_path):
    m = model("async-isr")
    states, actions = [m.init_states[0]], [None]
    for want in ("LeaderWrite", "LeaderRequestShrinkIsr(replica=r3)"):
        index, state = next((i, t) for i, t in m.successors(states[-1]) if m.instances[i].label() == want)
        states.append(state)
        actions.append(index)
    path = write_trace(trace_from_states(m, states, actions), str(tmp_path / "a.itf.json"))
    text = render(load_view(path))
    assert "leader  isr {r1, r2, r3} · version 0 · pending isr {r1, r2}* · pending version 0* · high watermark 0" \
        in block(text, 3)
    assert "No invariant checked here is violated in this trace." in text


def test_a_step_no_action_explains_is_flagged(tmp_path):
    m = model("kip320", Replicas=2)
    s0 = m.init_states[0]
    index, s1 = m.successors(s0)[0]
    _, s2 = m.successors(s1)[0]
    path = write_trace(trace_from_states(m, [s0, s2], [None, index]), str(tmp_path / "skip.itf.json"))
    text = render(load_view(path))
    assert "[not a legal step of kip320]" in text
    assert "State 2 does not follow from state 1 by any action of kip320" in text


def test_the_steps_a_file_names_are_checked_on_their_own_instances():
    """Labelling the steps a trace names does not compile every action of
    the model (a KRaft model's took most of `show`'s time); the labels are
    the file's, each checked to lead where the trace goes."""
    view = load_view(os.path.join(ROOT, "traces", "kraft-3.5-last-replica-standing.itf.json"))
    named = [claimed.label() for claimed in view.trace.claimed[1:]]
    assert [frame.label for frame in view.frames[1:]] == named and named[0].startswith("WriteRecordToLeader(b=1")
    assert view.model._compiled is None


def test_a_step_the_file_misnames_is_still_labelled_by_what_explains_it(tmp_path):
    import json
    with open(FIRST_TRY) as f:
        doc = json.load(f)
    doc["states"][8]["#meta"].update(action="LeaderWrite", parameters={"replica": "r3"})
    path = tmp_path / "misnamed.itf.json"
    path.write_text(json.dumps(doc))
    assert load_view(str(path)).frames[8].label == "BecomeFollower(leader=r1, replica=r3, leaderAndIsrRequest=0)"
