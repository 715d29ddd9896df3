import json
import os

import itf_py
import pytest

from support import model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.errors import InputError
from modelcheck.runtime.destinations import check_trace_destination
from modelcheck.model.trace import (describe_changes, render_text, to_itf_json,
                                    trace_from_states, write_trace)


@pytest.fixture(scope="module")
def first_try_trace():
    m = model("kip320-first-try", Replicas=3)
    v = BfsChecker().check(m, CheckOptions(("StrongIsr",))).violation
    return m, trace_from_states(m, v.states, v.actions, v.invariant, "bfs")


def test_itf_is_readable_by_itf_py(first_try_trace, tmp_path):
    m, trace = first_try_trace
    path = write_trace(trace, str(tmp_path / "t.itf.json"))
    data = json.load(open(path))
    parsed = itf_py.trace_from_json(data)
    assert len(parsed.states) == 13
    assert parsed.params == ["Replicas", "LogSize", "MaxRecords", "MaxLeaderEpoch"]
    assert parsed.vars == ["replicaLog", "replicaState", "nextRecordId", "nextLeaderEpoch",
                           "leaderAndIsrRequests", "quorumState"]
    first = parsed.states[0].values
    assert first["quorumState"].leader == "NONE" and first["quorumState"].isr == frozenset({"r1", "r2", "r3"})
    assert parsed.states[1].meta["action"] == "ControllerElectLeader"
    assert data["#meta"]["modelcheck"]["invariant"] == "StrongIsr"


def test_itf_states_decode_back_to_the_trace(first_try_trace):
    m, trace = first_try_trace
    data = to_itf_json(trace)
    decoded = [m.codec.decode({k: s[k] for k in m.codec.names}) for s in data["states"]]
    assert [m.codec.encode(s) for s in decoded] == trace.states


def test_text_shows_actions_and_only_changes(first_try_trace):
    _, trace = first_try_trace
    text = render_text(trace)
    assert text.startswith("State 1: Init")
    assert "State 2: ControllerElectLeader(newLeader=r1)" in text
    assert "State 13: FollowerTruncate(leader=r2, follower=r3)" in text
    assert "replicaLog[r3].records[0]: [id |-> 0, epoch |-> 2] -> -1" in text
    step2 = text.split("State 2:")[1].split("State 3:")[0]
    assert "replicaLog" not in step2  # unchanged variables are not repeated


def test_sets_of_records_show_what_was_added():
    m = model("kip320", Replicas=2)
    (index, after), *_ = m.successors(m.init_states[0])
    lines = describe_changes(m.codec.encode(m.init_states[0]), m.codec.encode(after))
    assert any(line.startswith("leaderAndIsrRequests: + [leaderEpoch |-> 0") for line in lines)


def test_default_names_never_overwrite(first_try_trace, tmp_path):
    _, trace = first_try_trace
    a = write_trace(trace, default_dir=str(tmp_path))
    b = write_trace(trace, default_dir=str(tmp_path))
    assert a != b and os.path.basename(b) == "kip320-first-try-StrongIsr-2.itf.json"


def test_explicit_path_is_not_replaced_unless_asked(first_try_trace, tmp_path):
    _, trace = first_try_trace
    target = tmp_path / "mine.json"
    target.write_text("precious")
    with pytest.raises(InputError, match="already exists"):
        check_trace_destination(str(target))
    with pytest.raises(InputError, match="already exists"):
        write_trace(trace, str(target))
    assert target.read_text() == "precious"
    write_trace(trace, str(target), overwrite=True)
    assert json.loads(target.read_text())["states"]


def test_unwritable_destinations_fail_early(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        check_trace_destination(str(tmp_path / "missing" / "t.json"))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError):
        check_trace_destination(str(blocker / "t.json"))
