"""examples/two_phase: two-phase commit, run from its path as a user runs
a spec of their own, against TLC's figures.

TLC's figures were measured with TLC built from tlaplus/tlaplus at
cc6b616cf (it reports "TLC2 Version 2026.11.28.092904"), on the TwoPhase
and TCommit modules of tlaplus/Examples (specifications/transaction_commit)
and a module MCTwoPhase that extends TwoPhase with
``TCConsistent == TC!TCConsistent``, in a scratch directory outside the
repository:

    java -XX:+UseParallelGC -cp tlc/classes tlc2.TLC -deadlock -workers 1 -config MC.cfg MCTwoPhase.tla

with MC.cfg ``CONSTANT RM = {r1, ..., rN}``, ``INVARIANT TPTypeOK
TCConsistent``, ``SPECIFICATION TPSpec``:

    RM = 2: 56 distinct states, depth 8
    RM = 3: 288 distinct states, depth 11
    RM = 4: 1,568 distinct states, depth 14
    RM = 5: 8,832 distinct states, depth 17

and, with TMCommit's conjunct ``tmPrepared = RM`` deleted (the TM commits
without waiting for the RMs), RM = 3: "Invariant TCConsistent is
violated", 49 distinct states found, the trace TMCommit,
RMChooseToAbort(r1), RMRcvCommitMsg(r2) (4 states).
"""

import os

import pytest

from support import EXAMPLES, ROOT, invoke, invoke_json

SPEC = EXAMPLES["two-phase"]
CFG = os.path.join(ROOT, "examples", "two_phase", "TwoPhase.cfg")


@pytest.mark.parametrize("rm, states, depth", [(2, 56, 8), (3, 288, 11), (4, 1568, 14), (5, 8832, 17)])
def test_counts_are_tlcs(rm, states, depth, in_tmp):
    code, out, _ = invoke_json("run", SPEC, "--engine", "bfs", "--const", f"RM={rm}", "-q")
    assert (code, out["result"], out["distinct_states"], out["depth"]) == (0, "ok", states, depth)
    assert out["invariants"] == ["TPTypeOK", "TCConsistent"]


def test_the_modules_own_cfg_is_read_unchanged(in_tmp):
    """TwoPhase.cfg: CONSTANT RM = {r1, r2, r3}, INVARIANT TPTypeOK, SPECIFICATION TPSpec."""
    with open(CFG) as f:
        assert f.read().split() == "CONSTANT RM = {r1, r2, r3} INVARIANT TPTypeOK SPECIFICATION TPSpec".split()
    code, out, err = invoke_json("run", SPEC, "--config", CFG, "-q")
    assert (code, out["constants"], out["invariants"]) == (0, {"RM": ["r1", "r2", "r3"]}, ["TPTypeOK"])
    assert (out["distinct_states"], out["depth"]) == (288, 11) and err == ""


def test_rm_are_model_values_named_as_given(in_tmp):
    code, out, _ = invoke_json("run", SPEC, "--engine", "bfs", "--const", "RM={tm1, tm2, tm3}", "-q")
    assert (code, out["constants"]["RM"], out["distinct_states"]) == (0, ["tm1", "tm2", "tm3"], 288)
    code, _, err = invoke("run", SPEC, "--const", "RM={a, 2}")
    assert code == 2 and "RM: '2' is not a model value name" in err and "replica" not in err


def eager_commit(directory) -> str:
    """The example copied and changed, as a user would: the TM commits
    without waiting for every RM to prepare."""
    with open(SPEC) as f:
        text = f.read()
    changed = text.replace('n.require(s.tmState == "init", s.tmPrepared == s.c.RM)', 'n.require(s.tmState == "init")')
    assert changed != text
    path = os.path.join(directory, "eager.py")
    with open(path, "w") as f:
        f.write(changed.replace('name="two-phase"', 'name="two-phase-eager"'))
    return path


def test_a_variant_breaks_tc_consistent_in_tlcs_trace(in_tmp):
    path = eager_commit(in_tmp)
    code, out, _ = invoke_json("run", path, "--engine", "bfs", "-q")
    assert (code, out["result"], out["distinct_states"]) == (12, "violation", 49)
    violation = out["violation"]
    assert (violation["invariant"], violation["trace_length"]) == ("TCConsistent", 4)
    code, text, _ = invoke("show", violation["trace_file"], "--no-color")
    assert code == 0
    labels = [line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("State ")]
    assert labels == ["Init", "TMCommit", "RMChooseToAbort(rm=r1)", "RMRcvCommitMsg(rm=r2)"]
    # in TLA+ terms: paths, model values bare, strings quoted
    assert '  rmState  [r1] "working" · [r2] "working" · [r3] "working"' in text
    assert 'msgs  {[type |-> "Commit"]}' in text
    assert ('TCConsistent broken: this conjunct of its definition is false: ~(rmState[r1] = "aborted" /\\'
            in text)
    assert "log:" not in text and "high watermark" not in text  # no Kafka log legend
