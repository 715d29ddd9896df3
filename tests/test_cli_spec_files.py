"""A spec of one's own, from its path, through every command that takes a
spec: nothing in the package is edited, installed or registered. Traces
record the spec file, so show and replay find it again; mistakes in a spec
definition are one line naming the part and its file:line, exit 2."""

import json
import os
import shutil

import pytest

from support import EXAMPLES, ROOT, invoke, invoke_json, one_error_line

TWO_PHASE = EXAMPLES["two-phase"]


@pytest.fixture
def own_copy(in_tmp):
    """The two-phase example copied into the current directory, as a user's file."""
    shutil.copy(TWO_PHASE, in_tmp / "tp.py")
    return "tp.py"


def test_every_command_takes_a_path(own_copy, in_tmp):
    code, out, _ = invoke("list", own_copy)
    assert code == 0 and out.startswith("two-phase  (TLA+ module TwoPhase, from tp.py)")
    assert "constants:  RM={r1, r2, r3}" in out and "TPTypeOK*" in out
    code, out, _ = invoke("simulate", own_copy, "--num", "20", "--depth", "10", "--json", "-q")
    assert code == 0 and json.loads(out)["result"] == "bounded-ok"
    code, out, _ = invoke("sweep", own_copy, "--vary", "RM=2,3", "--format", "json", "-q")
    assert code == 0 and [row["distinct_states"] for row in json.loads(out)] == [56, 288]
    assert os.path.isdir(os.path.join("modelcheck-out", "two-phase"))  # under the spec's name, not its file's  # TLC: 56 and 288 (tests/examples/test_two_phase.py)
    code, out, _ = invoke("graph", own_copy, "--out", "g.dot", "--json", "-q")
    assert code == 0 and json.loads(out)["nodes"] == 288 and os.path.exists("g.dot")


def test_prove_takes_a_path(own_copy):
    code, out, _ = invoke("prove", own_copy, "--inv", "TPTypeOK", "--json", "-q")
    assert code == 0 and json.loads(out)["result"] == "proved"


def eager(text: str) -> str:
    return text.replace('n.require(s.tmState == "init", s.tmPrepared == s.c.RM)', 'n.require(s.tmState == "init")')


def test_a_trace_records_its_spec_file_and_show_and_replay_find_it(own_copy, in_tmp):
    path = in_tmp / own_copy
    path.write_text(eager(path.read_text()))
    code, out, _ = invoke_json("run", own_copy, "-q", "--trace-out", "t.itf.json")
    assert code == 12
    meta = json.load(open("t.itf.json"))["#meta"]["modelcheck"]
    assert meta["spec_source"]["file"] == os.path.realpath(path) and len(meta["spec_source"]["sha256"]) == 64
    code, out, _ = invoke("replay", "t.itf.json")  # no SPEC: the trace's own
    assert code == 12 and "The trace is a behaviour of two-phase" in out
    os.makedirs("elsewhere")
    os.chdir("elsewhere")  # the file is recorded by its absolute path
    code, out, _ = invoke("show", "../t.itf.json", "--no-color")
    assert code == 0 and "State 4: RMRcvCommitMsg(rm=r2)" in out
    path.write_text(path.read_text() + "\n# edited since\n")
    code, out, err = invoke("show", "../t.itf.json", "--no-color")
    assert code == 0 and f"spec file {os.path.realpath(path)} has changed since ../t.itf.json was written" in err
    os.remove(path)
    code, _, err = invoke("show", "../t.itf.json")
    assert code == 2 and "the trace's spec file" in err and "no longer exists; give the spec with --spec PATH" in err
    code, out, _ = invoke("show", "../t.itf.json", "--spec", TWO_PHASE, "--no-color")  # the example commits later
    assert code == 0 and "State 2 does not follow from state 1 by any action of two-phase" in out


MISTAKES = [
    # (what is changed, into what, the error's text after "modelcheck: error: two-phase: ")
    ('    n.require(s.rmState[rm] == "working")\n    n.rmState[rm] = "aborted"',
     '    if s.rmState[rm] == "working":\n        n.rmState[rm] = "aborted"',
     "action RMChooseToAbort(rm=r1): a state-dependent value was used where Python needs a plain True/False "
     "(an `if`, `and`, `or` or `not`); build the condition with and_, or_, not_ or ite (tp.py:93)"),
    ('    n.rmState[rm] = "prepared"', '    n.rmState[rm] = "prepared"\n    n.rmState[rm] = "working"',
     "action RMPrepare(rm=r1): rmState[r1] is assigned twice in one action (tp.py:87)"),
    ('n.rmState[rm] = "committed"', 'n.rmState[rm] = "comitted"',
     'action RMRcvCommitMsg(rm=r1): "comitted" is not a value rmState can hold (it holds "working", '
     '"prepared", "committed", "aborted") (tp.py:101)'),
    ('    return s.tmState == "committed"', '    return s.tmStat == "committed"',
     "reachability check Committed: the state has no field 'tmStat' (tp.py:130)"),
    ('        enumerated("tmState", TM_STATES),', '        enumerated("tmState", TM_STATES), '
     'enumerated("tmState", TM_STATES),', "fields: field tmState declared twice (tp.py:41)"),
    ('    n.tmState = "init"\n', '',
     "Init: Init leaves tmState unassigned (tp.py:51)"),
]


@pytest.mark.parametrize("old, new, message", MISTAKES)
def test_a_mistake_in_a_spec_is_placed_and_exits_2(own_copy, in_tmp, old, new, message):
    path = in_tmp / own_copy
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    code, _, err = invoke("run", own_copy)
    assert code == 2
    assert one_error_line(err) == f"modelcheck: error: two-phase: {message}"


def test_a_codec_that_does_not_read_back_what_it_writes_is_refused_before_the_search(in_tmp):
    """A hand-written codec whose reading loses what it wrote: caught on Init, exit 2."""
    text = open(TWO_PHASE).read().replace(
        'SPEC = SpecDefinition(', '''
from modelcheck.language.codec import Codec, StateCodec, derived_codec


class Forgetful(Codec):
    def __init__(self, slot):
        self.slot = slot

    def encode(self, state):
        return TM_STATES[state[self.slot]]

    def decode(self, value, out, path):
        out[self.slot] = 0

    def slots(self):
        return [self.slot]


def variables(c, schema):
    codecs = dict(derived_codec(schema).variables)
    codecs["tmState"] = Forgetful(schema.slot("tmState"))
    return StateCodec(schema, codecs)


SPEC = SpecDefinition(variables=variables, ''')
    (in_tmp / "wrong.py").write_text(text)
    code, _, err = invoke("run", "wrong.py")
    assert code == 2
    assert one_error_line(err) == ("modelcheck: error: two-phase: its TLA+ variables read the initial state back "
                                   "differently than they write it (in tmState): check variables= or the "
                                   "to_tla/from_tla of its record types")


def test_a_variant_of_a_built_in_spec_runs_from_its_path(in_tmp):
    """The recipe of docs/writing-specs.md: copy kip320, rename it, drop the
    leader's epoch check on advancing its high watermark, run it from its path.

    TLC (built from tlaplus/tlaplus at cc6b616cf, "TLC2 Version
    2026.11.28.092904") on hachikuji/kafka-specification's Kip320 with the
    conjunct ``IsFollowingLeaderEpoch(leader, follower)`` deleted from
    FencedLeaderIncHighWatermark, Replicas = {r1, r2}, LogSize = MaxRecords =
    MaxLeaderEpoch = 2, INVARIANT WeakIsr StrongIsr (``java -cp tlc/classes
    tlc2.TLC -deadlock -workers 1 -config MC2.cfg Kip320NoFence.tla``):
    "Invariant WeakIsr is violated", a trace of 8 states ending in
    FencedLeaderIncHighWatermark."""
    text = open(os.path.join(ROOT, "specs", "kip320.py")).read()
    variant = text.replace('''    n.require(has_offset(s, leader, hw),
              all_isr_members(s, leader, lambda f: and_(is_following_leader_epoch(s, leader, f), has_offset(s, f, hw))))''',
                           '''    n.require(has_offset(s, leader, hw), all_isr_members(s, leader, lambda f: has_offset(s, f, hw)))''')
    variant = variant.replace('"kip320", "Kip320",', '"kip320-nofence", "Kip320NoFence",')
    assert variant.count("kip320-nofence") == 1 and "is_following_leader_epoch(s, leader, f)" not in variant
    (in_tmp / "kip320_nofence.py").write_text(variant)
    code, out, _ = invoke_json("run", "kip320_nofence.py", "--const", "Replicas=2", "--inv", "WeakIsr", "--inv",
                               "StrongIsr", "-q")
    assert (code, out["spec"], out["violation"]["invariant"], out["violation"]["trace_length"]) == \
        (12, "kip320-nofence", "WeakIsr", 8)
    code, text, _ = invoke("show", out["violation"]["trace_file"], "--no-color")
    assert code == 0 and "State 8: FencedLeaderIncHighWatermark(leader=" in text
    assert "log: one record per offset as id@epoch" in text  # a replication spec keeps its log legend
