"""examples/chang_roberts: leader election on a ring, a spec whose Init is
a set of 2^N states, run from its path, against TLC's figures.

TLC's figures were measured with TLC built from tlaplus/tlaplus at
cc6b616cf (it reports "TLC2 Version 2026.11.28.092904"), on the ChangRoberts
and MCChangRoberts modules of tlaplus/Examples (specifications/chang_roberts),
in a scratch directory outside the repository:

    java -XX:+UseParallelGC -cp tlc/classes tlc2.TLC -deadlock -workers 1 -config MC.cfg MCChangRoberts.tla

with MC.cfg ``CONSTANT N = 3`` (then 4), ``INVARIANTS TypeOK Correctness``,
``PROPERTY Liveness``, ``SPECIFICATION Spec``, ``CHECK_DEADLOCK FALSE``:

    N = 3: "Finished computing initial states: 8 distinct states generated",
           137 distinct states, depth 10, no error (Liveness holds)
    N = 4: 16 initial states, 823 distinct states, depth 15, no error

and with MCChangRoberts' ``Id == [i \\in 1 .. N |-> i]`` replaced by
``Id == <<2, 4, 1, 3>>``, N = 4: 16 initial states, 747 distinct states,
depth 14, no error. TLC's dump (``-dump``) of N = 3 lists the initial states
with initiator = <<FALSE, FALSE, FALSE>>, <<FALSE, FALSE, TRUE>>,
<<FALSE, TRUE, FALSE>>, ... (the last node varying fastest).
"""

import os

import pytest

from support import EXAMPLES, ROOT, get_spec, invoke, invoke_json

SPEC = EXAMPLES["chang-roberts"]
CFG = os.path.join(ROOT, "examples", "chang_roberts", "MCChangRoberts.cfg")


def test_init_is_every_choice_of_initiators_in_tlcs_order():
    spec = get_spec("chang-roberts")
    m = spec.instantiate(spec.resolve_constants({"N": "3"}))
    initiators = [tuple(m.codec.encode(s)["initiator"].values()) for s in m.init_states]
    assert initiators == [(False, False, False), (False, False, True), (False, True, False), (False, True, True),
                          (True, False, False), (True, False, True), (True, True, False), (True, True, True)]


@pytest.mark.parametrize("engine", ["bfs", "fast"])
@pytest.mark.parametrize("consts, states, depth", [(("N=3",), 137, 10), (("N=4",), 823, 15),
                                                   (("N=4", "Id=<<2, 4, 1, 3>>"), 747, 14)])
def test_counts_are_tlcs(engine, consts, states, depth, in_tmp):
    args = [a for c in consts for a in ("--const", c)]
    code, out, _ = invoke_json("run", SPEC, "--engine", engine, *args, "-q")
    assert (code, out["result"], out["distinct_states"], out["depth"]) == (0, "ok", states, depth)


def test_the_modules_cfg_checks_liveness_under_the_fairness_of_each_node(in_tmp):
    code, out, _ = invoke_json("run", SPEC, "--config", CFG, "-q")
    assert code == 0 and (out["distinct_states"], out["depth"]) == (137, 10)
    assert (out["invariants"], out["property_verdicts"]) == (["TypeOK", "Correctness"], {"Liveness": True})


def test_without_fairness_liveness_fails_from_an_initial_state_with_a_candidate(in_tmp):
    """NoFair: a behaviour from the second initial state (node 3 a
    candidate) that stutters at once."""
    with open(SPEC) as f:
        text = f.read()
    unfair = text.replace('Spec = Specification("Spec", tuple(WF(fixing(node, f"node({i + 1})", self=i)) '
                          'for i in range(MOST_NODES)),', 'Spec = Specification("Spec", (),')
    assert unfair != text
    path = in_tmp / "unfair.py"
    path.write_text(unfair)
    code, out, _ = invoke_json("run", str(path), "--prop", "Liveness", "--engine", "bfs", "-q")
    assert code == 13 and out["property_verdicts"] == {"Liveness": False}
    assert (out["violation"]["trace_length"], out["violation"]["loop_start"]) == (1, None)
    code, text, _ = invoke("show", out["violation"]["trace_file"], "--no-color")
    assert code == 0 and "initiator  [1] FALSE · [2] FALSE · [3] TRUE" in text
    assert "Liveness fails: the first condition holds in the initial state" in text
    code, text, _ = invoke("replay", out["violation"]["trace_file"])  # the lasso, judged again on its own
    assert code == 13, text


def test_id_is_a_sequence_of_distinct_naturals_of_length_n(in_tmp):
    code, _, err = invoke("run", SPEC, "--const", "Id=<<1, 2>>")
    assert code == 2 and "Id must have N = 3 entries, got 2" in err
    code, _, err = invoke("run", SPEC, "--const", "Id={1, 2, 3}")
    assert code == 2 and "constant Id must be a sequence of integers such as <<1, 2>>" in err


def test_z3_starts_from_every_initial_state(in_tmp):
    """Bounded model checking reaches what breadth-first search reaches from
    any of the eight initial states: no invariant broken to depth 6."""
    code, out, _ = invoke_json("run", SPEC, "--engine", "z3", "--max-depth", "6", "-q")
    assert (code, out["result"]) == (0, "bounded-ok")
