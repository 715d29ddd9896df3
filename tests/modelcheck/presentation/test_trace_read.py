"""Reading traces: ITF (ours and other tools'), TLC's -dumpTrace json shapes, and refusals."""

import json
import os

import pytest

from support import ROOT, model
from modelcheck.errors import InputError, TraceFormatError
from modelcheck.presentation.trace_read import ClaimedStep, bind, parse_trace, read_trace_file
from modelcheck.specs import get_spec

TRACES = os.path.join(ROOT, "traces")
TLC = os.path.join(ROOT, "tests", "fixtures", "tlc")
FIRST_TRY = os.path.join(TRACES, "kip320-first-try-StrongIsr.itf.json")


def test_reads_our_itf_with_spec_constants_and_actions():
    doc = read_trace_file(FIRST_TRY)
    assert (doc.format, doc.spec, doc.module, doc.invariant) == ("itf", "kip320-first-try", "Kip320FirstTry", "StrongIsr")
    assert doc.constants["Replicas"] == ["r1", "r2", "r3"] and len(doc.states) == 13
    assert doc.claimed[0] is None
    assert doc.claimed[1] == ClaimedStep("ControllerElectLeader", (("newLeader", "r1"),))
    assert "#meta" not in doc.states[0] and "replicaLog" in doc.states[0]


def test_binds_to_the_spec_and_decodes_every_state():
    bound = bind(read_trace_file(FIRST_TRY), get_spec("kip320-first-try"))
    m = bound.model
    assert m.constants.Replicas == ("r1", "r2", "r3") and bound.states[0] == m.init_states[0]
    assert m.codec.encode(bound.states[-1])["replicaLog"]["r3"]["endOffset"] == 0


def test_const_overrides_the_file():
    with pytest.raises(TraceFormatError, match="expected a function over r1, r2, got one over r1, r2, r3"):
        bind(read_trace_file(FIRST_TRY), get_spec("kip320-first-try"), {"Replicas": "2"})


def test_foreign_itf_constants_come_from_params():
    """An ITF file from another tool: no modelcheck metadata, constants as
    ITF values in every state, an unknown constant and a module named by source."""
    data = json.load(open(FIRST_TRY))
    data["#meta"] = {"format": "ITF", "source": "MC_Kip320FirstTry.tla"}
    data["params"] = ["Replicas", "LogSize", "MaxRecords", "MaxLeaderEpoch", "Other"]
    for state in data["states"]:
        state["Other"] = {"#bigint": "7"}
        state["#meta"] = {"index": 0}
    doc = parse_trace(data, "foreign.itf.json")
    assert doc.spec is None and doc.module == "MC_Kip320FirstTry"
    assert doc.constants["Replicas"] == {"#set": ["r1", "r2", "r3"]} and doc.constants["LogSize"] == {"#bigint": "2"}
    assert all(c is None for c in doc.claimed)
    bound = bind(doc, get_spec("kip320-first-try"))
    assert bound.model.constants.LogSize == 2 and len(bound.model.constants.Replicas) == 3
    assert any("Other" in w for w in bound.warnings)


@pytest.mark.parametrize("name, shape, spec, consts", [
    ("kip320-first-try-StrongIsr.json", "wrapped", "kip320-first-try", {"Replicas": "3"}),
    ("kip101-WeakIsr-bare.json", "bare", "kip101", {"Replicas": "2"}),
    ("truncate-to-hw-WeakIsr-totrace.json", "plain array", "truncate-to-hw", {"Replicas": "2"}),
    ("kip320-consumer-NoDivergentDelivery.json", "wrapped", "kip320-consumer", {"TruncationCheck": "FALSE"}),
])
def test_tlc_shapes_are_read_in_state_order(name, shape, spec, consts):
    doc = read_trace_file(os.path.join(TLC, name))
    assert doc.format == "tlc" and doc.spec is None and doc.constants == {}
    bound = bind(doc, get_spec(spec), consts)
    assert bound.states[0] in bound.model.init_states
    # the fixtures list states and actions shuffled; reading puts them back in order
    ours = {"kip320-first-try": "kip320-first-try-StrongIsr", "kip101": "kip101-WeakIsr",
            "truncate-to-hw": "truncate-to-hw-WeakIsr"}.get(spec)
    if ours:
        itf = bind(read_trace_file(os.path.join(TRACES, ours + ".itf.json")), get_spec(spec))
        assert bound.states == itf.states
    if shape == "wrapped":
        assert doc.claimed[1].action == "ControllerElectLeader"


def test_tlc_action_parameters_are_kept():
    doc = read_trace_file(os.path.join(TLC, "kip320-first-try-StrongIsr.json"))
    become = [c for c in doc.claimed if c and c.action == "BecomeLeader"][0]
    assert dict(become.params)["leaderAndIsrRequest"]["leaderEpoch"] == 1


def tlc_doc(**extra):
    states = [[2, {"x": 1}], [1, {"x": 0}]]
    return {"vars": ["x"], "counterexample": {"state": states, **extra}, "extra": {"anything": True}}


@pytest.mark.parametrize("actions, expected", [
    ([[[1, {"x": 0}], {"name": "Inc", "location": {}}, [2, {"x": 1}]]], "Inc"),
    ([[[1, {"x": 0}], {"name": "Inc", "parameter": {"by": 1}}, [2, {"x": 1}]]], "Inc(by=1)"),
    (["Inc"], "Inc"),
    ([{"name": "Inc"}], "Inc"),
    ([None, "Inc"], "Inc"),
    ([42], None),
    ("not a list", None),
])
def test_tlc_action_entries_of_many_shapes(actions, expected):
    doc = parse_trace(tlc_doc(action=actions))
    assert [s["x"] for s in doc.states] == [0, 1]
    assert (doc.claimed[1].label() if doc.claimed[1] else None) == expected


def test_an_edge_from_the_last_state_back_makes_a_lasso():
    back = [[[2, {"x": 1}], {"name": "Back"}, [1, {"x": 0}]], [[[1, {"x": 0}], {"name": "Inc"}, [2, {"x": 1}]]][0]]
    doc = parse_trace(tlc_doc(action=back))
    assert doc.claimed[1].action == "Inc" and (doc.loop, doc.stutters) == (0, False) and not doc.notes


def test_an_edge_from_the_last_state_to_itself_is_a_lasso_that_stutters():
    edges = [[[1, {"x": 0}], {"name": "Inc"}, [2, {"x": 1}]], [[2, {"x": 1}], {"name": "Inc"}, [2, {"x": 1}]]]
    doc = parse_trace(tlc_doc(action=edges))
    assert (doc.loop, doc.stutters) == (1, True)


def test_a_backward_edge_that_is_not_the_last_is_noted():
    edges = [[[1, {"x": 0}], {"name": "Inc"}, [2, {"x": 1}]], [[2, {"x": 1}], {"name": "Back"}, [1, {"x": 0}]],
             [[2, {"x": 1}], {"name": "Inc"}, [3, {"x": 2}]]]
    states = [[1, {"x": 0}], [2, {"x": 1}], [3, {"x": 2}]]
    doc = parse_trace(tlc_doc(action=edges, state=states))
    assert doc.loop is None and "back to state 1" in doc.notes[0]


@pytest.mark.parametrize("text, fragment", [
    ("", "is empty"),
    ("{not json", "is not valid JSON (line 1, column 2"),
    ("[1, 2]", "neither an ITF trace nor TLC"),
    ('{"hello": 1}', "neither an ITF trace nor TLC"),
    ('{"vars": [], "states": []}', "holds no states"),
    ('{"counterexample": {"state": []}}', "holds no states"),
    ('{"counterexample": {"state": [[1, {}], [1, {}]]}}', "two states are numbered 1"),
    ('{"counterexample": {"state": [7]}}', "not a [number, state] pair"),
    ('{"states": [3]}', "state 1 is not a JSON object"),
])
def test_malformed_files_are_refused_with_one_clear_message(tmp_path, text, fragment):
    path = tmp_path / "t.json"
    path.write_text(text)
    with pytest.raises(TraceFormatError) as e:
        read_trace_file(str(path))
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_missing_file():
    with pytest.raises(InputError, match="does not exist"):
        read_trace_file("/nonexistent/trace.json")


def test_a_trace_of_another_spec_is_refused():
    with pytest.raises(InputError, match="is a trace of kip320-first-try, not kip320"):
        bind(read_trace_file(FIRST_TRY), get_spec("kip320"))
    data = json.load(open(FIRST_TRY))
    del data["#meta"]["modelcheck"]
    with pytest.raises(InputError, match="is a trace of module Kip320FirstTry, not Kip320"):
        bind(parse_trace(data, "t.json"), get_spec("kip320"))


def test_states_that_do_not_fit_the_spec_name_the_variable_and_suggest_constants():
    """A 2-replica TLC trace (no constants in the file) against a spec whose
    default is 3 replicas."""
    doc = read_trace_file(os.path.join(TLC, "kip101-WeakIsr-bare.json"))
    with pytest.raises(TraceFormatError) as e:
        bind(doc, get_spec("kip279"))
    message = str(e.value)
    assert "state 1: replicaLog: expected a function over r1, r2, r3, got one over r1, r2" in message
    assert "[constants: Replicas={r1, r2, r3} LogSize=2 MaxRecords=2 MaxLeaderEpoch=2]" in message
    assert message.endswith("pass --const to match the trace)")
    # a replica-only trace, without metadata, against the consumer spec
    anonymous = parse_trace({k: v for k, v in json.load(open(FIRST_TRY)).items() if k != "#meta"}, "t.json")
    with pytest.raises(TraceFormatError, match="state 1: missing variable.*consumerLeader"):
        bind(anonymous, get_spec("kip320-consumer"), {"Replicas": "3"})


def test_replica_names_from_a_file_are_checked_like_const():
    data = json.load(open(FIRST_TRY))
    data["#meta"]["modelcheck"]["constants"]["Replicas"] = ["r1", "<b>x</b>"]
    with pytest.raises(InputError, match="not a model value name"):
        bind(parse_trace(data, "t.json"), get_spec("kip320-first-try"))


def test_model_of_the_bound_trace_is_the_specs():
    bound = bind(read_trace_file(FIRST_TRY), get_spec("kip320-first-try"))
    assert bound.model.key() == model("kip320-first-try", Replicas=3).key()
