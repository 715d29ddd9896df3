"""Violation explanations: witnesses found through the spec's own operators."""

import pytest

from support import async_isr_ignoring_the_pending_isr, crafted, model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.model.explain import Probe, explain, failing_conjuncts, first_violation, slot_paths
from scenarios import led_by, with_log
from modelcheck.specs.kafka_replication import replica_presumes_leadership

KIP320 = model("kip320")


def violation(m, *invariants):
    r = BfsChecker().check(m, CheckOptions(tuple(invariants) or m.spec.default_invariants))
    assert r.violation is not None
    return r.violation


def test_probe_asks_the_specs_operators():
    s = led_by(KIP320, "r2", epoch=1)
    probe = Probe(KIP320, s)
    assert probe.where(lambda s, r: replica_presumes_leadership(s, r), r=range(3)) == [{"r": 1}]
    assert probe.value(probe.s.quorum_epoch) == 1 and probe.replica(1) == "r2" and probe.replica(-1) == "NONE"
    assert probe.replica_set(0b101) == "{r1, r3}"


def test_strong_isr_names_the_missing_record_as_in_the_issue():
    m = model("kip320-first-try", Replicas=3)
    v = violation(m, "StrongIsr")
    assert explain(m, v.states[-1], "StrongIsr") == (
        "StrongIsr broken: r1 presumes leadership with hw=1, but r3 is in the quorum ISR {r1, r3} and has no "
        "record at offset 0 (r1 has id0@2)")


def test_isr_explanations_name_a_different_record():
    s = led_by(KIP320, "r1", epoch=1, isr={"r1", "r2"}, hw={"r1": 2})
    s = with_log(KIP320, s, "r1", [(0, 0), (1, 1)])
    s = with_log(KIP320, s, "r2", [(0, 0), (2, 0)])
    assert explain(KIP320, s, "WeakIsr") == (
        "WeakIsr broken: r1 presumes leadership with hw=2, but r2 is in r1's own ISR {r1, r2} and has id2@0 at "
        "offset 1 where r1 has id1@1")
    # the quorum ISR (all three) also holds r3, whose log is empty: every witness is listed
    assert explain(KIP320, s, "StrongIsr") == (
        "StrongIsr broken: r1 presumes leadership with hw=2, but r2 is in the quorum ISR {r1, r2} and has id2@0 "
        "at offset 1 where r1 has id1@1")


def test_isr_explanation_lists_every_witness():
    s = led_by(KIP320, "r1", epoch=1, hw={"r1": 1})
    s = with_log(KIP320, s, "r1", [(0, 1)])
    text = explain(KIP320, s, "StrongIsr")
    assert "r2 is in the quorum ISR {r1, r2, r3} and has no record at offset 0" in text
    assert text.endswith("the same holds for r3 at offset 0")


def test_a_leader_without_its_own_record_below_hw():
    s = led_by(KIP320, "r1", epoch=1, isr={"r1"}, quorum_isr={"r1"}, hw={"r1": 1})
    assert explain(KIP320, s, "WeakIsr") == (
        "WeakIsr broken: r1 presumes leadership with hw=1, but has no record at offset 0, below that hw")


@pytest.mark.parametrize("fields, expected", [
    ({}, "LeaderInIsr broken: the quorum has no leader (epoch -1, ISR {r1, r2, r3})"),
    ({"quorum_leader": "r2", "quorum_epoch": 2, "quorum_isr": {"r1"}},
     "LeaderInIsr broken: the quorum names r2 leader on epoch 2, but its ISR is {r1}"),
])
def test_leader_in_isr(fields, expected):
    assert explain(KIP320, crafted(KIP320, **fields), "LeaderInIsr") == expected


def test_an_invariant_that_holds_says_so():
    assert explain(KIP320, KIP320.init_states[0], "StrongIsr") == "StrongIsr holds in this state."


def test_generic_account_names_the_false_conjuncts_with_tla_paths():
    bad = crafted(KIP320, log_end={"r1": 1})  # a record slot inside the log left at Nil
    assert explain(KIP320, bad, "TypeOk") == (
        "TypeOk broken: these conjuncts of its definition are false: 0 <= replicaLog[r1].records[0].id (-1); "
        "0 <= replicaLog[r1].records[0].epoch (-1)")
    assert failing_conjuncts(KIP320.invariants["TypeOk"], KIP320.init_states[0]) == []


def test_guards_read_with_replica_names_not_indices():
    from modelcheck.model.explain import failing_conjuncts_text
    fetch = next(i for i in KIP320.instances if i.label() == "FencedFollowerFetch(follower=r2, leader=r1)")
    assert failing_conjuncts_text(KIP320, KIP320.init_states[0], fetch.guard) == (
        "these conjuncts of its definition are false: replicaState[r1].leader (NONE) = r1; "
        "replicaState[r2].leader (NONE) = r1; replicaLog[r2].endOffset (0) < replicaLog[r1].endOffset (0) "
        "(and 2 more)")


def test_slot_paths_cover_every_slot_with_its_tla_name():
    paths = slot_paths(KIP320)
    assert len(paths) == KIP320.schema.width
    assert paths[KIP320.schema.slot("hw", 2)] == "replicaState[r3].hw"
    assert paths[KIP320.schema.slot("log_epoch", 0, 1)] == "replicaLog[r1].records[1].epoch"
    assert paths[KIP320.schema.slot("request_leader", 1)] == "leaderAndIsrRequests[leaderEpoch=1].leader"


def test_no_divergent_delivery_names_the_offsets_that_diverge():
    m = model("kip320-consumer", TruncationCheck="FALSE")
    v = violation(m)
    assert first_violation(m, v.states, "NoDivergentDelivery") == len(v.states) - 1
    assert explain(m, v.states[-1], "NoDivergentDelivery") == (
        "NoDivergentDelivery broken: the consumer read id2@2 at offset 1 from r2 (leader epoch 2, consumer epoch "
        "2), but the log below it diverges from what the consumer delivered: at offset 0 r2 has id1@2 where the "
        "consumer delivered id0@0")


def test_no_divergent_delivery_without_a_witness_falls_back_to_the_definition():
    m = model("kip320-consumer")
    s = crafted(m, divergent_delivery=1)
    assert explain(m, s, "NoDivergentDelivery") == (
        "NoDivergentDelivery broken: this conjunct of its definition is false: divergentDelivery (TRUE) # TRUE")


def test_valid_high_watermark_names_the_lagging_replica(monkeypatch):
    """The invariant holds in the real spec; the mutation of
    tests/specs/test_async_isr.py (ignore the pending ISR) breaks it."""
    m = async_isr_ignoring_the_pending_isr(monkeypatch)
    v = violation(m, "ValidHighWatermark")
    text = explain(m, v.states[-1], "ValidHighWatermark")
    assert text == ("ValidHighWatermark broken: the leader's high watermark is 1, the lowest offset over its ISR "
                    "{r1} and pending ISR {r1, r2}, but in the controller's ISR {r1, r2} (version 3) r2 has only "
                    "reached offset 0")


def test_the_generic_account_speaks_tla_paths_and_values_of_any_spec():
    """Sets of records by their elements in TLC's order (msgs[5]), functions
    by their keys (maxVal[a1]), strings in quotes, model values bare; a
    comparison that holds needs no value beside it."""
    from support import get_spec, reachable
    from modelcheck.language.expr import lift, not_
    from modelcheck.language.schema import StateView
    from modelcheck.model.explain import failing_conjuncts_text
    spec = get_spec("paxos")
    m = spec.instantiate(spec.resolve_constants({"Acceptor": "{a1, a2}", "Quorum": "{{a1, a2}}"}))
    last = reachable(m)[-1]
    s = StateView(m.schema, m.constants)
    assert failing_conjuncts_text(m, last, lift(not_(s.msgs.exists(lambda r: r.type == "2b")))) == (
        'these conjuncts of its definition are false: ~(4 < Cardinality(msgs) /\\ msgs[5].type = "2b"); '
        '~(5 < Cardinality(msgs) /\\ msgs[6].type = "2b"); ~(6 < Cardinality(msgs) /\\ msgs[7].type = "2b") '
        '(and 1 more)')
    assert failing_conjuncts_text(m, last, lift(s.maxVal["a1"] == "None")) == \
        "this conjunct of its definition is false: maxVal[a1] (v2) = None"
    assert failing_conjuncts_text(m, last, lift(s.msgs.at(10).mval != "v2")) == \
        "this conjunct of its definition is false: msgs[11].mval (v2) # v2"
