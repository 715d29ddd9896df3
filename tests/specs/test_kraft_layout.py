"""How the viewers tell the KRaft counterexamples (specs/kraft/layout.py):
the terminal story of Last Replica Standing pinned on its key lines, the
CHECK-off traces, and KIP-966's ELR."""

import os
import re

import pytest

from support import ROOT, model
from modelcheck.presentation.viewer import load_view
from modelcheck.presentation.viewer.layout import build_frames, declared_layouts, groups_for, state_line
from modelcheck.presentation.viewer.terminal import render

LRS = os.path.join(ROOT, "traces", "kraft-3.5-last-replica-standing.itf.json")
NO_FETCH_CHECK = os.path.join(ROOT, "traces", "kraft-3.5-no-isr-join-fetch-check.itf.json")
NO_HWM_CHECK = os.path.join(ROOT, "traces", "kraft-3.5-no-isr-join-hwm-check.itf.json")
KIP966_EPOCH_START = os.path.join(ROOT, "traces", "kraft-kip966-no-isr-join-epoch-start-check.itf.json")
KIP966_NO_FETCH_CHECK = os.path.join(ROOT, "traces", "kraft-kip966-no-isr-join-fetch-check.itf.json")
NO_STALE_RESET = os.path.join(ROOT, "traces", "kraft-3.5-no-stale-follower-reset.itf.json")
NO_FETCH_EPOCH = os.path.join(ROOT, "traces", "kraft-3.5-no-fetch-epoch-check.itf.json")
KIP966_NO_FETCH_EPOCH = os.path.join(ROOT, "traces", "kraft-kip966-no-fetch-epoch-check.itf.json")


def blocks(text: str) -> dict[int, list[str]]:
    """The lines of each state's block, by state number."""
    out, number = {}, None
    for line in text.splitlines():
        head = re.match(r"State (\d+): ", line)
        if head:
            number = int(head.group(1))
            out[number] = []
        elif number is not None and line:
            out[number].append(line)
    return out


@pytest.fixture(scope="module")
def lrs():
    return load_view(LRS)


def test_last_replica_standing_told_in_kafka_terms(lrs):
    """Who commits alone, who shuts down uncleanly, who is elected and what
    is gone: one sentence each, on the step that does it."""
    story = {n: [line[4:] for line in lines if line.startswith("  » ")]
             for n, lines in blocks(render(lrs)).items()}
    assert story == {
        1: ["broker 1 leads in leader epoch 1 with isr {1}; fenced: broker 2"],
        2: ["broker 1 appends A@1 at offset 1"],
        3: [],
        4: ["broker 1 advances its high watermark to 2: A@1 at offset 1 committed (its ISR: {1})",
            "the producer's write of A is acknowledged"],
        5: ["broker 1 shuts down uncleanly and loses its log: A@1 at offset 1",
            "the controller fences broker 1",
            "the controller leaves the partition without a leader (leader epoch 2, isr {1})",
            "committed record A@1 (offset 1) is now on no broker"],
        6: ["broker 1 starts again (incarnation 3) and asks the controller to register it"],
        7: ["the controller unfences broker 1",
            "the controller elects broker 1 as leader in leader epoch 3 (isr {1})",
            "the new leader, broker 1, does not have committed A@1 at offset 1"],
        8: ["broker 1 is registered, with broker epoch 3"],
    }


def test_last_replica_standing_state_by_state_with_changes_marked(lrs):
    text = render(lrs)
    state = blocks(text)
    assert text.splitlines()[3].startswith("log: one record per offset (from offset 1) as value@leader epoch")
    # broker 1 commits A alone while broker 2's fetch is answered
    assert "  broker 1  leader    1       1             2                {1}     2*  A@1 |*" in state[4]
    assert ("  Fetch response 1 → 2  records A@1 at offset 1, high watermark 2, leader epoch 1, "
            "fetch offset 1*") in state[4]
    # the unclean shutdown: broker 1's log is gone, the partition has no leader
    assert "  broker 1  shut down uncleanly*  fenced*     0 (controller: 1)*  1 of 2*" in state[5]
    assert "  broker 1  -*        1       1             2                {1}     1*  |* _*" in state[5]
    assert ("  controller  leader none* · leader epoch 2* · partition epoch 3* · isr {1} · replicas {1, 2}"
            in state[5])
    assert "  offset 2  none*   2*            3*               {1}*  {1, 2}*   -*" in state[5]
    assert "  no message in flight" in state[5]
    # restarted and registered, broker 1 is elected with an empty log
    assert "  controller  leader 1* · leader epoch 3* · partition epoch 4* · isr {1} · replicas {1, 2}" in state[7]
    assert ("  BrokerRegistration response controller → 1  broker epoch 3, incarnation 3, "
            "metadata offset 2*") in state[7]
    assert "  broker 1  running*  unfenced    3*            1 of 3" in state[8]
    assert "  !! LeaderCompletenessProperty is violated in state 8" in state[8]
    # the generic variable dump is gone: every variable is claimed by the layout
    assert "con_partition_metadata" not in text and "[status |->" not in text


def test_diff_names_what_each_step_took_off_the_network(lrs):
    state = blocks(render(lrs, diff=True))
    assert state[5][-2:] == [
        "  - broker 1 replication: follower 2 log end 1, broker epoch 2 · epoch start offset 1 · "
        "acks pending from offset 1",
        "  - Fetch response 1 → 2: records A@1 at offset 1, high watermark 2, leader epoch 1, fetch offset 1"]
    assert "  broker 1 replica  role leader -> - · hw 2 -> 1 · log A@1 | -> | _" in state[5]
    assert "  - BrokerRegistration 1 → controller: incarnation 3" in state[7]


def test_check_off_traces_name_the_replica_let_into_the_isr():
    for path, at in ((NO_FETCH_CHECK, 8), (NO_HWM_CHECK, 7)):
        state = blocks(render(load_view(path)))
        assert "  » broker 2 joins the ISR without committed A@1 at offset 1" in state[at], path
        assert "  » the controller accepts broker 1's AlterPartition" in state[at], path
        assert f"  !! LeaderCandidateCompletenessProperty is violated in state {at}" in state[at], path
    rejected = blocks(render(load_view(NO_FETCH_CHECK)))[4]
    assert "  » the controller rejects broker 1's AlterPartition (IneligibleReplica)" in rejected
    assert ("  AlterPartition response controller → 1  rejected (IneligibleReplica): isr {1, 2} "
            "(broker epochs 1: 1, 2: 0), leader epoch 1, partition epoch 2*") in rejected


def test_the_record_an_explanation_is_about_is_the_focus(lrs):
    """Like the ZooKeeper-era specs' explanations, the KRaft ones name the
    log slots they are about, so the HTML viewer outlines them: the
    committed offset the new leader lacks (Last Replica Standing), and
    the slot the replica let into the ISR lacks with the same offset on the
    broker that holds it (KIP-966, IsrJoinRequiresFetch off)."""
    [breakage] = lrs.breakages
    assert (breakage.invariant, breakage.state, breakage.focus) == ("LeaderCompletenessProperty", 7,
                                                                    (("broker 1", "log", 0),))
    [breakage] = load_view(KIP966_NO_FETCH_CHECK).breakages
    assert breakage.focus == (("broker 2", "log", 0), ("broker 1", "log", 0))
    assert ("broker 2 (running, follower) is in the controller's ISR with an empty log, short of the committed "
            "offset (high watermark 2)") in breakage.explanation


def test_a_three_broker_kip966_counterexample_is_told_and_focused():
    """IsrJoinRequiresEpochStart off (22 states): broker 1, back with an
    empty log, joins the ISR; the focus is its empty slot and the record
    brokers 2 and 3 hold at offset 1."""
    view = load_view(KIP966_EPOCH_START)
    [breakage] = view.breakages
    assert breakage.state == 21 and breakage.focus == (("broker 1", "log", 0), ("broker 2", "log", 0),
                                                       ("broker 3", "log", 0))
    state = blocks(render(view))
    assert "  » broker 1 joins the ISR without committed A@1 at offset 1" in state[22]
    assert "  » the controller elects broker 2 as leader in leader epoch 2 (isr {2, 3})" in state[13]


def test_a_stale_follower_entry_and_a_deleted_replica_are_told():
    """ResetStaleFollowerState off (13 states): broker 2, removed by a
    reassignment, deletes its log; added back, it joins the ISR on what the
    re-elected leader still knew of it."""
    state = blocks(render(load_view(NO_STALE_RESET)))
    assert "  » broker 2 is no longer a replica and deletes its log: A@1 at offset 1" in state[9]
    assert state[11][:2] == ["  » broker 1 stays the leader, in leader epoch 2",
                             "  » broker 1 keeps what it knew of broker 2, which is outside its ISR: log end 2"]
    assert "  » the reassignment completes (replicas {1, 2})" in state[13]
    assert "  » broker 2 joins the ISR without committed A@1 at offset 1" in state[13]


@pytest.mark.parametrize("path, length, leader", [(NO_FETCH_EPOCH, 28, 3), (KIP966_NO_FETCH_EPOCH, 23, 2)],
                         ids=["kraft-3.5", "kraft-kip966"])
def test_a_fetch_response_of_an_earlier_leader_epoch_is_told_and_focused(path, length, leader):
    """FetchResponseMatchesEpoch off: broker 1 follows the leader of epoch 4
    while the response to its fetch of epoch 2 is still due, acts on that
    response and truncates the committed record; the focus is its empty slot."""
    view = load_view(path)
    state = blocks(render(view))
    assert (f"  » broker 1 follows broker {leader} (leader epoch 4), still awaiting the response to an earlier "
            f"fetch from broker {leader}") in state[length - 1]
    assert state[length][:2] == [
        f"  » broker 1, in leader epoch 4, acts on broker {leader}'s fetch response of leader epoch 2",
        "  » broker 1 truncates its log, dropping A@1 at offset 1"]
    [breakage] = view.breakages
    assert (breakage.invariant, breakage.state, breakage.focus[0]) == \
        ("LeaderCandidateCompletenessProperty", length - 1, ("broker 1", "log", 0))


def walk(m, steps):
    """The states from Init through the successors whose labels start with ``steps``."""
    states = [m.init_states[0]]
    labels = ["Init"]
    for step in steps:
        index, state = next((i, n) for i, n in m.successors(states[-1]) if m.instances[i].label().startswith(step))
        states.append(state)
        labels.append(m.instances[index].label())
    return states, labels


def test_kip966_shows_the_elr():
    """KIP-966's controller moves the last ISR member into the ELR when it
    is shut down with data loss."""
    m = model("kraft-kip966", BrokerCount=2, InitReplicationFactor=2, MinISR=1, InitIsrSize=1,
              DataLossShutdownLimit=1, FenceBrokerLimit=0)
    layouts = declared_layouts(m.spec)
    metadata = next(g for g in groups_for(m.codec.names, layouts) if g.name == "metadata")
    assert [h for _, h in metadata.columns] == ["leader", "leader epoch", "partition epoch", "isr", "elr",
                                                 "replicas", "applied by"]
    states, labels = walk(m, ["WriteRecordToLeader", "SendFetchRequest", "ReceiveFetchRequest",
                              "DataLossShutdown(b=1"])
    # as `modelcheck graph` labels a state: each row named once, with its group
    assert "; broker 1 replica: role leader · leader 1 · leader epoch 1 · " in state_line(m, states[0])
    last = build_frames(m, states, labels)[-1]
    assert last.notes == ["broker 1 shuts down and loses its log (a data-loss shutdown): A@1 at offset 1",
                          "the controller fences broker 1",
                          "the controller leaves the partition without a leader (leader epoch 2, isr {})",
                          "the ELR becomes {1}",
                          "committed record A@1 (offset 1) is now on no broker"]
    broker = next(r for r in last.rows if (r.group, r.name) == ("brokers", "broker 1"))
    assert broker.cells[0].text == "shut down, log lost"  # KIP-966's words for the shutdown
    controller = next(r for r in last.rows if r.group == "controller")
    assert {c.key: c.text for c in controller.cells} == {
        "leader": "none", "epoch": "2", "partitionEpoch": "3", "isr": "{}", "elr": "{1}", "lastKnownElr": "{}",
        "replicas": "{1, 2}"}
    assert {(g, k) for g, r, k in last.changed if r == "controller"} == {
        ("controller", "leader"), ("controller", "epoch"), ("controller", "partitionEpoch"), ("controller", "isr"),
        ("controller", "elr")}


def test_v3_5_has_no_elr_column_and_unclaimed_variables_fall_back(lrs):
    metadata = next(g for g in lrs.groups if g.name == "metadata")
    assert "elr" not in [k for k, _ in metadata.columns]
    assert "variables" not in [g.name for g in lrs.groups]
    # a spec without a declared layout still gets its variables shown whole
    assert groups_for(["x"])[-1].name == "variables"


def test_every_kind_of_state_and_step_is_drawn():
    """Breadth-first through the first states of Last Replica Standing's
    model (the one tests/specs/test_kraft_v3_5.py checks): every state is
    drawn by the layout alone, and the steps that shut down, elect and
    reject are told."""
    from collections import deque

    from modelcheck.presentation.viewer.layout import notes_for, rows_for
    m = model("kraft-3.5", BrokerCount=2, InitReplicationFactor=2, MinISR=1, InitIsrSize=1, UncleanShutdownLimit=1,
              FenceBrokerLimit=0, AvoidLastReplicaStanding="FALSE")
    seen, queue, told = {m.init_states[0]}, deque([m.init_states[0]]), []
    for _ in range(120):
        state = queue.popleft()
        assert {r.group for r in rows_for(m, state)} <= {g.name for g in declared_layouts(m.spec)[0].groups}
        for _, successor in m.successors(state):
            told.extend(notes_for(m, state, successor))
            if successor not in seen:
                seen.add(successor)
                queue.append(successor)
    for what in ("shuts down uncleanly and loses its log", "the controller fences",
                 "the controller elects", "the controller rejects", "starts again", "appends"):
        assert any(what in note for note in told), what
