"""The codecs read back exactly what they write, in ITF and in TLC's plain JSON."""

import json

import pytest

from support import model, reachable
from modelcheck.errors import TraceFormatError
from modelcheck.language.values import to_itf, to_plain_json

SMALL = [("kip320", {"Replicas": 2, "MaxLeaderEpoch": 1}),
         ("kip320-first-try", {"Replicas": 2, "MaxLeaderEpoch": 1}),
         ("async-isr", {"Replicas": 2, "MaxVersion": 2, "MaxOffset": 1})]


@pytest.mark.parametrize("name, consts", SMALL)
def test_round_trip_through_itf_and_plain_json(name, consts):
    m = model(name, **consts)
    for state in reachable(m, limit=3000):
        values = m.codec.encode(state)
        as_itf = json.loads(json.dumps({k: to_itf(v) for k, v in values.items()}))
        as_plain = json.loads(json.dumps({k: to_plain_json(v) for k, v in values.items()}))
        assert m.codec.decode(as_itf) == state
        assert m.codec.decode(as_plain) == state


def test_bad_values_are_reported_with_their_path():
    m = model("kip320", Replicas=2)
    values = {k: to_plain_json(v) for k, v in m.codec.encode(m.init_states[0]).items()}
    values["replicaState"]["r2"]["hw"] = 7
    with pytest.raises(TraceFormatError, match=r"replicaState\[r2\]\.hw = 7 is outside 0\.\.2"):
        m.codec.decode(values)
    values = {k: to_plain_json(v) for k, v in m.codec.encode(m.init_states[0]).items()}
    values["quorumState"]["leader"] = "r9"
    with pytest.raises(TraceFormatError, match="quorumState.leader"):
        m.codec.decode(values)
    del values["quorumState"]
    with pytest.raises(TraceFormatError, match="missing variable"):
        m.codec.decode(values)
