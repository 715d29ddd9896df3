"""Orbit representatives: the renaming read from the codecs is the spec's own,
every member of an orbit gets the same representative, and the
representatives of a model account for every reachable state exactly once."""

import itertools
import random

import numpy as np
import pytest

from support import model, reachable
from modelcheck.search.canonical import (Canonicaliser, genuine_trace, rename_columns, replica_roles, signatures,
                                         symmetric_search)
from modelcheck.errors import InputError
from modelcheck.capabilities.symmetry import check_symmetry_request, rename_state

SMALL = {"Replicas": 3, "LogSize": 1, "MaxRecords": 1, "MaxLeaderEpoch": 1}


def sample(m, k=200, seed=1):
    states = reachable(m)
    return random.Random(seed).sample(states, min(k, len(states)))


def representatives(m) -> list[tuple]:
    """The reachable representatives, by breadth-first search over them."""
    successors, _, init = symmetric_search(m, m.successors)
    seen, frontier = set(init), list(dict.fromkeys(init))
    while frontier:
        frontier = [t for s in frontier for _, t in successors(s) if t not in seen and not seen.add(t)]
    return list(seen)


def test_roles_are_read_from_the_codecs():
    m = model("kip320", Replicas=3)
    roles = replica_roles(m)
    names = m.schema.slot_names
    assert roles.blocks.shape == (3, 9)  # log_end, 2 x (log_id, log_epoch), hw, leader_epoch, leader, isr
    assert [names[s] for s in roles.blocks[1]][:2] == ["log_end[1]", "log_id[1][0]"]
    assert sorted(names[s] for s in roles.replica_slots) == [
        "leader[0]", "leader[1]", "leader[2]", "quorum_leader",
        "request_leader[0]", "request_leader[1]", "request_leader[2]"]
    assert sorted(names[s] for s in roles.set_slots) == [
        "isr[0]", "isr[1]", "isr[2]", "quorum_isr", "request_isr[0]", "request_isr[1]", "request_isr[2]"]


@pytest.mark.parametrize("name", ["kip320", "kip320-consumer"])
def test_renaming_columns_is_the_specs_own_renaming(name):
    m = model(name, **(SMALL if name == "kip320" else {}))
    canon = Canonicaliser(m)
    states = sample(m, 150)
    columns = np.array(states, dtype=np.int64).T
    R = len(m.constants.Replicas)
    for order in itertools.permutations(range(R)):
        renaming = tuple(order.index(r) for r in range(R))  # replica order[i] becomes i
        renamed = rename_columns(canon.roles, columns, np.tile(order, (len(states), 1)))
        assert [tuple(c) for c in renamed.T.tolist()] == [rename_state(m, s, renaming) for s in states]


def test_every_member_of_an_orbit_gets_the_same_representative_from_within_it():
    m = model("kip320", Replicas=4, LogSize=1, MaxRecords=1, MaxLeaderEpoch=1)
    canon = Canonicaliser(m)
    states = random.Random(2).sample(reachable(m, 20000), 150)
    perms = list(itertools.permutations(range(4)))
    orbits = [[rename_state(m, s, p) for p in perms] for s in states]
    reps = canon.states([t for orbit in orbits for t in orbit])
    for k, orbit in enumerate(orbits):
        assert len(set(reps[24 * k:24 * k + 24])) == 1
        assert reps[24 * k] in orbit


def test_ties_are_broken_the_same_way_whichever_member_comes_in():
    """Replicas whose signatures tie (two followers with the same log and
    view) are tried in both orders; the least image wins for every member."""
    m = model("kip320", Replicas=3)
    canon = Canonicaliser(m)
    states = reachable(m, 3000)
    columns = np.array(states, dtype=np.int64).T
    renamed = [rename_columns(canon.roles, columns, np.tile(p, (len(states), 1))).T.tolist()
               for p in itertools.permutations(range(3))]
    images = [tuple(renamed[p][k]) for k in range(len(states)) for p in range(6)]
    reps = canon.states(images)
    for k in range(len(states)):
        assert len(set(reps[6 * k:6 * k + 6])) == 1
    sig = signatures(canon.roles, columns)
    tied = [k for k in range(len(states)) if len(set(sig[k].tolist())) < 3 and len(set(images[6 * k:6 * k + 6])) == 6]
    assert len(tied) > 20  # ties that only trying both orders resolves


def test_representatives_account_for_every_state_once():
    """Sum over the representatives of their orbit sizes = the count without
    symmetry (TLC with Permutations(Replicas): 2,987 orbits of 5,973 states)."""
    m = model("kip320", Replicas=2)
    reps = representatives(m)
    assert len(reps) == 2987
    canon = Canonicaliser(m)
    sizes = canon.orbit_sizes(canon.packing.pack_states(reps))
    assert set(sizes.tolist()) == {1, 2}
    assert int(sizes.sum()) == len(reachable(m)) == 5973


def test_a_genuine_trace_follows_real_steps_from_the_real_initial_state():
    m = model("kip320", Replicas=3)
    canon = Canonicaliser(m)
    successors = m.successors
    # a path between representatives, taking a random enabled instance each
    # time (shrinking no ISR, so that the path does not stop early)
    path, state = [-1], canon.states(m.init_states)[0]
    pick = random.Random(5)
    for _ in range(8):
        index, t = pick.choice([(i, t) for i, t in successors(state) if "Shrink" not in m.instances[i].action])
        path.append(index)
        state = canon.states([t])[0]
    states, actions = genuine_trace(m, path, canon)
    assert states[0] == m.init_states[0] and len(states) == 9
    for before, action, after in zip(states, actions[1:], states[1:]):
        assert (action, after) in successors(before)
    assert canon.states([states[-1]]) == [state]
    assert canon.states(states) != states  # the behaviour is not the representatives' own


def test_symmetry_is_refused_where_it_means_nothing():
    with pytest.raises(InputError, match="declares none of its constants symmetric"):
        check_symmetry_request(model("async-isr"))
    with pytest.raises(InputError, match="engines bfs, fast, spark, not z3"):
        check_symmetry_request(model("kip320", Replicas=2), "z3")
