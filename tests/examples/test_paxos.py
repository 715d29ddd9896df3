"""examples/paxos: Paxos with general quorums, run from its path, against
TLC's figures.

TLC's figures were measured with TLC built from tlaplus/tlaplus at
cc6b616cf (it reports "TLC2 Version 2026.11.28.092904"), on the Paxos
module of tlaplus/Examples (specifications/Paxos) with its refinement
(votes, V == INSTANCE Voting) replaced by the consistency invariant
(``Consistency == \\A v, w \\in chosen : v = w``, chosen as in Voting), in a
scratch directory outside the repository, and a module MCPx giving
``MCAcceptor == {a1, a2, a3}``, ``MCValue == {v1, v2}``, ``MCBallot == 0..1``
and ``MCQuorum`` as below:

    java -XX:+UseParallelGC -cp tlc/classes tlc2.TLC -deadlock -workers 1 -config MCPx.cfg MCPx.tla

with MCPx.cfg ``CONSTANTS a1=a1 a2=a2 a3=a3 v1=v1 v2=v2 Acceptor <- MCAcceptor
Value <- MCValue Quorum <- MCQuorum Ballot <- MCBallot None = None``,
``INVARIANT TypeOK Consistency``, ``SPECIFICATION Spec``:

    MCQuorum == {{a1, a2}, {a1, a3}, {a2, a3}}:  3,921 distinct states, depth 17
    MCQuorum == {{a1, a2}, {a1, a3}}:            2,433 distinct states, depth 17
    MCQuorum == {{a1}}:                          4,305 distinct states, depth 17
    MCQuorum == {{a1, a2, a3}}:                    513 distinct states, depth 17

each with "No error has been found".
"""

import os

import pytest

from support import EXAMPLES, ROOT, invoke, invoke_json, one_error_line

SPEC = EXAMPLES["paxos"]
CFG = os.path.join(ROOT, "examples", "paxos", "MCPaxos.cfg")


@pytest.mark.parametrize("quorum, states", [("{{a1, a2}, {a1, a3}}", 2433), ("{{a1}}", 4305),
                                            ("{{a1, a2, a3}}", 513)])
def test_general_quorums_give_tlcs_counts(quorum, states, in_tmp):
    code, out, _ = invoke_json("run", SPEC, "--engine", "bfs", "--const", f"Quorum={quorum}", "-q")
    assert (code, out["result"], out["distinct_states"], out["depth"]) == (0, "ok", states, 17)


def test_the_cfg_substitutes_the_definitions_the_spec_offers(in_tmp):
    """Acceptor <- MCAcceptor and the others, None = None, a1 = a1...: the
    majorities of three acceptors, TLC's 3,921 states."""
    code, out, err = invoke_json("run", SPEC, "--config", CFG, "--engine", "bfs", "-q")
    assert code == 0 and err == ""
    assert out["constants"] == {"Acceptor": ["a1", "a2", "a3"], "Value": ["v1", "v2"],
                                "Quorum": [["a1", "a2"], ["a1", "a3"], ["a2", "a3"]], "Ballot": [0, 1],
                                "None": "None"}
    assert (out["result"], out["distinct_states"], out["depth"]) == ("ok", 3921, 17)


def test_quorums_that_do_not_intersect_break_the_assumption(in_tmp):
    code, _, err = invoke("run", SPEC, "--const", "Quorum={{a1}, {a2}}")
    assert code == 2
    assert one_error_line(err) == ("modelcheck: error: Quorum: {a1} and {a2} do not intersect "
                                   "(the module's QuorumAssumption)")


def test_a_quorum_outside_the_acceptors_is_refused_in_the_users_terms(in_tmp):
    code, _, err = invoke("run", SPEC, "--const", "Quorum={{a1, a4}}")
    assert code == 2
    assert "a4 not among the model values of Acceptor {a1, a2, a3}" in one_error_line(err)


def test_an_unknown_definition_is_named_at_its_line(in_tmp, tmp_path):
    cfg = tmp_path / "bad.cfg"
    cfg.write_text("CONSTANTS\n  Acceptor <- MCAcceptors\n")
    code, _, err = invoke("run", SPEC, "--config", str(cfg))
    assert code == 2
    assert one_error_line(err) == (f"modelcheck: error: {cfg}:2: Acceptor <- MCAcceptors: paxos has no definition "
                                   f"'MCAcceptors' (its definitions: MCAcceptor, MCValue, MCQuorum, MCBallot)")


def test_messages_are_kept_in_tlcs_order_of_variant_records():
    """TLC's -dump of MCPx with two acceptors, two values, MCQuorum ==
    {{a1, a2}} and ballots 0..1 (145 distinct states, depth 13) prints its
    last state's msgs, a normalised set, in this order: records by their
    number of fields (1a, 2a, 2b, 1b), then by their values field by field
    in TLC's order of the field names (type, bal, acc, mbal, mval, val).
    The slots of the set are in that order, so slot k is the message TLC
    tries k-th. (The whole order of the 145 states, and of the 3,921 of
    three acceptors, is TLC's, measured against the dump.)"""
    from support import get_spec, reachable
    spec = get_spec("paxos")
    m = spec.instantiate(spec.resolve_constants({"Acceptor": "{a1, a2}", "Quorum": "{{a1, a2}}"}))
    states = reachable(m)
    assert len(states) == 145
    msgs = m.schema.compounds["msgs"]
    rtype, slots = msgs.rtype, msgs.row_slots(m.schema, ())
    last = states[-1]
    shown = []
    for k in range(last[slots["size"]]):
        values = {name: last[column[k]] for name, column in slots["parts"].items()}
        record = rtype.to_tla(values)
        shown.append(", ".join(f"{name} |-> {record[name]}" for name in
                               sorted(record, key=("type", "bal", "acc", "mbal", "mval", "val").index)))
    assert shown == ["type |-> 1a, bal |-> 0", "type |-> 1a, bal |-> 1",
                     "type |-> 2a, bal |-> 0, val |-> v2", "type |-> 2a, bal |-> 1, val |-> v2",
                     "type |-> 2b, bal |-> 0, acc |-> a1, val |-> v2", "type |-> 2b, bal |-> 0, acc |-> a2, val |-> v2",
                     "type |-> 2b, bal |-> 1, acc |-> a1, val |-> v2", "type |-> 2b, bal |-> 1, acc |-> a2, val |-> v2",
                     "type |-> 1b, bal |-> 0, acc |-> a1, mbal |-> -1, mval |-> None",
                     "type |-> 1b, bal |-> 0, acc |-> a2, mbal |-> -1, mval |-> None",
                     "type |-> 1b, bal |-> 1, acc |-> a1, mbal |-> 0, mval |-> v2",
                     "type |-> 1b, bal |-> 1, acc |-> a2, mbal |-> 0, mval |-> v2"]


def test_a_substitution_for_another_module_is_ignored_with_a_warning(in_tmp, tmp_path):
    """MCPaxos.cfg also has Ballot <-[Voting] MCBallot, for the Voting module Paxos instantiates."""
    cfg = tmp_path / "mc.cfg"
    cfg.write_text("CONSTANTS\n  a1 = a1  a2 = a2  a3 = a3\n  Acceptor <- MCAcceptor\n  Ballot <- MCBallot\n"
                   "  Ballot <-[Voting] MCBallot\n  Quorum = {{a1, a2, a3}}\n")
    code, out, err = invoke_json("run", SPEC, "--config", str(cfg), "--engine", "bfs", "-q")
    assert (code, out["distinct_states"]) == (0, 513)
    assert err.strip() == (f"modelcheck: warning: {cfg}:5: Ballot <-[Voting] MCBallot applies to module Voting, "
                           f"which paxos (module Paxos) does not have; ignored")
