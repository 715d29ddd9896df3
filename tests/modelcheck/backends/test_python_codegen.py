"""The compiled successor function and the interpreter read the same
definitions; on every reachable state of small models they must agree."""

import pytest

from support import model
from modelcheck.language import interpreter
from modelcheck.language.fingerprint import fingerprinter
from modelcheck.specs import all_specs

SMALL = {"Replicas": 2, "LogSize": 2, "MaxRecords": 2, "MaxLeaderEpoch": 1}
KRAFT_SMALL = {"BrokerCount": 2, "InitReplicationFactor": 2, "MinISR": 1, "InitIsrSize": 1,
               "UncleanShutdownLimit": 0, "FenceBrokerLimit": 0}


def small_model(name):
    if name == "async-isr":
        return model(name, MaxVersion=2, MaxOffset=1)
    if name == "kraft-kip966":
        return model(name, **{("DataLossShutdownLimit" if k == "UncleanShutdownLimit" else k): v
                              for k, v in KRAFT_SMALL.items()})
    if name.startswith("kraft"):
        return model(name, **KRAFT_SMALL)
    if name == "kafka-clients":  # one record, one log slot: 12,841 states (149,095 with SMALL, a minute here)
        return model(name, **{**SMALL, "LogSize": 1, "MaxRecords": 1})
    return model(name, **SMALL)


@pytest.mark.parametrize("name", sorted(all_specs()))
def test_compiled_successors_match_the_interpreter(name):
    m = small_model(name)
    fp = fingerprinter(m.schema)
    seen, frontier, checked = set(), list(m.init_states), 0
    while frontier:
        nxt = []
        for s in frontier:
            if fp(s) in seen:
                continue
            seen.add(fp(s))
            compiled = sorted(m.successors(s))
            assert compiled == sorted(interpreter.successors(m, s))
            for inv, expr in {**m.invariants, **m.sometimes}.items():
                assert m.compiled.predicates[inv](s) == interpreter.evaluate(expr, s), inv
            checked += 1
            nxt.extend(t for _, t in compiled)
        frontier = nxt
    assert checked == len(seen) > 100
