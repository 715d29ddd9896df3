"""The symmetry a spec declares holds: renaming replicas maps Init, every
step and every predicate onto itself, on every reachable state of small models."""

import copy
import random

import pytest

from support import model, reachable
from modelcheck.errors import SpecDefinitionError
from modelcheck.capabilities.symmetry import rename_instances, rename_state, renamings
from modelcheck.specs import all_specs

SYMMETRIC = sorted(name for name, spec in all_specs().items() if spec.symmetry)
SMALL = {"Replicas": 3, "LogSize": 1, "MaxRecords": 1, "MaxLeaderEpoch": 1}
# kafka-clients has 460,306 states at SMALL; one leader epoch keeps it to 3,232.
SMALLER = {"kafka-clients": {**SMALL, "MaxLeaderEpoch": 0}}


def test_the_replication_family_declares_its_replicas_symmetric():
    assert set(SYMMETRIC) == {"truncate-to-hw", "kip101", "kip279", "kip320", "kip320-first-try", "kip320-consumer",
                              "kafka-clients"}
    assert "async-isr" not in SYMMETRIC  # its Leader is a distinguished replica


@pytest.mark.parametrize("name", SYMMETRIC)
def test_declared_symmetry_holds_on_every_reachable_state(name):
    m = model(name, **SMALLER.get(name, SMALL))
    perms = [(r, rename_instances(m, r)) for r in renamings(m)]
    assert len(perms) == 5
    states = reachable(m)
    assert len(states) > 500
    states = [m.init_states[0]] + random.Random(4).sample(states, 300)
    predicates = m.compiled.predicates
    for renaming, _ in perms:
        assert rename_state(m, m.init_states[0], renaming) == m.init_states[0]
    for s in states:
        successors = set(m.successors(s))
        for renaming, perm in perms:
            image = rename_state(m, s, renaming)
            assert set(m.successors(image)) == {(perm[i], rename_state(m, t, renaming)) for i, t in successors}
            for pred in predicates.values():
                assert pred(image) == pred(s)


def test_renaming_maps_parameters_and_state():
    m = model("kip320", Replicas=3)
    swap = (1, 0, 2)  # r1 <-> r2
    labels = m.instance_labels()
    perm = rename_instances(m, swap)
    assert labels[perm[labels.index("FencedFollowerFetch(follower=r1, leader=r2)")]] == \
        "FencedFollowerFetch(follower=r2, leader=r1)"
    assert sorted(perm) == list(range(len(labels)))
    elected = dict((m.instances[i].label(), t) for i, t in m.successors(m.init_states[0]))
    r1 = elected["ControllerElectLeader(newLeader=r1)"]
    assert rename_state(m, r1, swap) == elected["ControllerElectLeader(newLeader=r2)"]


def test_an_asymmetric_instantiation_is_refused():
    """A spec that declared symmetry while one action exists only for r1
    fails when the renaming is built."""
    m = model("kip320", Replicas=2)
    broken = copy.copy(m)
    broken.instances = [i for i in m.instances if i.label() != "LeaderWrite(replica=r2)"]
    with pytest.raises(SpecDefinitionError, match="symmetric"):
        rename_instances(broken, (1, 0))
