"""The per-state layout both viewers draw."""

import os

from support import ROOT, crafted, model
from modelcheck.presentation.viewer import load_view
from modelcheck.presentation.viewer.layout import (build_frames, controller_epoch, declared_layouts, groups_for, layouts_for,
                                                   log_cell, rows_for, stale_actors)
from modelcheck.language.values import Record
from scenarios import led_by, with_log

KIP320 = model("kip320")


def cells(rows, group, name):
    row = next(r for r in rows if r.group == group and r.name == name)
    return {c.key: c.text for c in row.cells}


def test_replica_rows_show_leader_epoch_hw_isr_and_log():
    s = led_by(KIP320, "r1", epoch=2, isr={"r1", "r3"}, followers=("r3",), hw={"r1": 1})
    s = with_log(KIP320, with_log(KIP320, s, "r1", [(0, 2)]), "r3", [(0, 2)])
    rows = rows_for(KIP320, s)
    assert cells(rows, "replicas", "r1") == {"leader": "self", "epoch": "2", "hw": "1", "isr": "{r1, r3}",
                                             "log": "id0@2 | _"}
    assert cells(rows, "replicas", "r3")["leader"] == "r1" and cells(rows, "replicas", "r3")["log"] == "| id0@2 _"
    assert cells(rows, "replicas", "r2") == {"leader": "NONE", "epoch": "-1", "hw": "0", "isr": "{}", "log": "| _ _"}
    assert cells(rows, "quorum", "quorum") == {"leader": "r1", "epoch": "2", "isr": "{r1, r3}"}
    # every request is still pending for r2, which never acted on one
    assert [cells(rows, "requests", f"epoch {e}") for e in range(3)] == [
        {"leader": "r1", "isr": "{r1, r3}", "pending": "r2"}] * 3
    assert cells(rows, "counters", "counters") == {"nextRecordId": "0", "nextLeaderEpoch": "3"}


def test_log_cells_carry_records_and_the_marker():
    rec = Record((("id", 4), ("epoch", 1)))
    cell = log_cell("log", [rec, rec, -1], 2, 1, "hw")
    assert cell.text == "id4@1 | id4@1 _"
    one = {"id": 4, "epoch": 1, "text": "id4@1"}
    assert cell.data == {"records": [one, one, None], "end": 2, "marker": 1, "marker_name": "hw", "base": 0}
    assert log_cell("log", [rec], 1, 1, "hw").text == "id4@1 |"
    assert log_cell("delivered", [rec, -1], 1, None, "position").text == "id4@1 _"


def test_the_consumer_gets_its_own_row():
    m = model("kip320-consumer")
    s = crafted(m, consumer_leader="r2", consumer_epoch=1, consumer_position=1, consumer_last_epoch=1,
                consumer_log_id={0: 0}, consumer_log_epoch={0: 1}, consumer_validated=0)
    rows = rows_for(m, s)
    assert cells(rows, "consumer", "consumer") == {
        "leader": "r2", "epoch": "1", "position": "1", "lastEpoch": "1", "validation": "pending",
        "delivered": "id0@1 _", "divergent": "no"}
    assert [g.name for g in groups_for(m.codec.names)] == ["replicas", "quorum", "requests", "counters", "consumer"]


def test_the_producer_gets_a_row_like_the_consumers():
    m = model("kafka-clients")
    s = crafted(m, producer_leader="r1", producer_epoch=0, pending_leader="r1", pending_offset=0, pending_id=0,
                pending_epoch=0, producer_acted_epoch=0, stale_write=1, spurious_out_of_range=1)
    rows = rows_for(m, s)
    assert cells(rows, "producer", "producer") == {
        "leader": "r1", "epoch": "0", "pending": "id0@0 at 0 on r1", "acked": "-", "actedEpoch": "0",
        "staleWrite": "YES"}
    assert cells(rows, "group", "group") == {"committed": "0 (no epoch)", "actedEpoch": "-1"}
    assert cells(rows, "history", "clients") == {"leaderRegression": "no", "spuriousOutOfRange": "YES"}
    acked = crafted(m, base=s, pending_leader="NONE", pending_offset=-1, pending_id=-1, pending_epoch=-1,
                    acked_offset={0: 0}, acked_leader_epoch={0: 1}, committed_offset=1, committed_epoch=1)
    assert cells(rows_for(m, acked), "producer", "producer")["acked"] == "id0 at 0 (leader epoch 1)"
    assert cells(rows_for(m, acked), "group", "group")["committed"] == "1 in epoch 1"
    assert [g.name for g in groups_for(m.codec.names)] == ["replicas", "quorum", "requests", "counters", "consumer",
                                                           "producer", "group", "history"]


def test_async_isr_shows_the_high_watermark_by_the_specs_operator():
    m = model("async-isr")
    s = crafted(m, offsets={0: 2, 1: 1, 2: 0}, pending_isr=0b011, pending_version=0)
    rows = rows_for(m, s)
    assert cells(rows, "leader", "leader")["highWatermark"] == "0"  # r3 (offset 0) is in the ISR
    assert cells(rows, "replicas", "r3") == {"offset": "0", "controllerIsr": "yes", "leaderIsr": "yes",
                                             "pending": "no"}
    assert cells(rows, "messages", "requests") == {"none": "none"}


def test_variables_no_layout_claims_are_shown_whole():
    chosen, rest = layouts_for(["replicaLog", "replicaState", "nextRecordId", "nextLeaderEpoch",
                                "leaderAndIsrRequests", "quorumState", "extra"])
    assert len(chosen) == 1 and rest == ["extra"]
    assert groups_for(["x"])[-1].name == "variables"
    assert layouts_for(["x", "y"]) == ([], ["x", "y"])


def test_frames_mark_what_each_step_changed():
    m = model("kip320", Replicas=2)
    s0 = m.init_states[0]
    (i, s1), *_ = [(i, t) for i, t in m.successors(s0) if m.instances[i].label() == "ControllerElectLeader(newLeader=r1)"]
    frames = build_frames(m, [s0, s1], ["Init", m.instances[i].label()])
    assert frames[0].changed == set()
    assert frames[1].changed == {("quorum", "quorum", "leader"), ("quorum", "quorum", "epoch"),
                                 ("requests", "epoch 0", "leader"), ("requests", "epoch 0", "isr"),
                                 ("requests", "epoch 0", "pending"), ("counters", "counters", "nextLeaderEpoch")}
    assert [r for r in frames[0].rows if r.group == "requests"] == []  # the viewers say "no ... request yet"


def test_steps_taken_on_an_older_epoch_than_the_controllers_are_stale():
    """kip320-first-try's counterexample: r2 takes the epoch-1 request (state 5), and r3 follows r1 on
    epoch 0, fetches (9, 10), then moves to epoch 1 and truncates (12, 13), all while the controller is
    on epoch 2. No other step is stale: the controller's own steps move no replica, and r1 leads on 2."""
    view = load_view(os.path.join(ROOT, "traces", "kip320-first-try-StrongIsr.itf.json"))
    stale = {f.number: stale_actors(f) for f in view.frames if stale_actors(f)}
    assert stale == {5: [("r2", 1)], 9: [("r3", 0)], 10: [("r3", 0)], 12: [("r3", 1)], 13: [("r3", 1)]}
    assert [controller_epoch(f) for f in view.frames] == [-1, 0, 1] + [2] * 10


def test_a_client_on_stale_metadata_is_stale_too():
    """kafka-clients' KIP-359 trace: the producer takes the epoch-0 metadata and r1, still leading on
    epoch 0, appends its record while the controller is on epoch 1."""
    view = load_view(os.path.join(ROOT, "traces", "kafka-clients-kip359-stale-leader.itf.json"))
    assert stale_actors(view.frames[-1]) == [("r1", 0), ("producer", 0)]


def imports_of(directory: str) -> set[str]:
    """Every module the Python files under ``directory`` import, in functions too."""
    import ast
    import pathlib
    imported = set()
    for path in pathlib.Path(directory).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    return imported


def test_specs_and_the_viewer_meet_only_through_the_layout_vocabulary():
    """A spec's layout comes from the spec (SpecDefinition.layout), written
    with modelcheck.model.display: the viewer reaches specs only through the
    registry, by name, and no spec imports the viewer."""
    import os

    import modelcheck.presentation.viewer
    import modelcheck.specs.kraft
    viewer = imports_of(os.path.dirname(modelcheck.presentation.viewer.__file__))
    assert {name for name in viewer if name.startswith("modelcheck.specs")} <= {"modelcheck.specs"}  # no spec's own module
    spec_side = imports_of(os.path.dirname(os.path.dirname(modelcheck.specs.kraft.__file__)))
    assert "modelcheck.model.display" in spec_side
    assert not {name for name in spec_side if name.startswith("modelcheck.presentation.viewer")}


def test_async_isr_declares_its_layout():
    m = model("async-isr")
    assert [g.name for g in groups_for(m.codec.names, declared_layouts(m.spec))] == [
        "controller", "leader", "replicas", "messages"]
    assert groups_for(m.codec.names)[-1].name == "variables"  # without it, the variables are shown whole


def test_a_step_names_what_it_took_away():
    """A row gone (a message received) is listed whole; of a row still there,
    only the cells that are gone; a placeholder ("none") never."""
    from modelcheck.presentation.viewer.layout import Cell, Row, gone_rows
    before = [Row("network", "Fetch 2 → 1", [Cell("message", "fetch offset 1")]),
              Row("replication", "broker 1", [Cell("leso", "1"), Cell("pendingAp", "isr {1, 2}")]),
              Row("messages", "requests", [Cell("none", "none", "placeholder")])]
    after = [Row("replication", "broker 1", [Cell("leso", "1")]),
             Row("messages", "requests", [Cell("v1:r1", "v1 {r1}")])]
    gone = gone_rows(before, after)
    assert [(r.group, r.name, [c.text for c in r.cells]) for r in gone] == [
        ("network", "Fetch 2 → 1", ["fetch offset 1"]), ("replication", "broker 1", ["isr {1, 2}"])]
