"""modelcheck run Spec.tla: a TLA+ module checked directly, end to end.

The figures pinned here are TLC's, on the project's own TLA+ test modules
(tests/modelcheck/tlaplus/modules/), each run with ``-deadlock -workers 1``."""

import json
import os
import shutil

import pytest

from support import invoke, invoke_json, one_error_line
from tla_support import module_path


@pytest.fixture
def modules(in_tmp):
    """The test modules copied into the run's directory (traces land there)."""
    for name in ("Relay", "Ring", "Faulty", "Unbounded", "Unsupported", "Pick", "Bounds", "Mutex", "Countdown",
                 "Misfit"):
        shutil.copy(module_path(f"{name}.tla"), in_tmp)
    for cfg in ("Relay", "RelaySmall", "Ring", "Faulty", "Unbounded", "Constrained", "Unsupported", "Pick", "PickFull",
                "Mutex", "MutexProgress", "MutexUnfair", "MutexStep", "Countdown", "CountdownNoDeadlock", "Misfit",
                "MisfitLive"):
        shutil.copy(module_path(f"{cfg}.cfg"), in_tmp)
    return in_tmp


def test_a_module_with_the_cfg_beside_it_gives_tlcs_counts(modules):
    code, out, _ = invoke_json("run", "Relay.tla")
    assert code == 0 and (out["result"], out["distinct_states"], out["depth"]) == ("ok", 10684, 17)
    assert out["spec"] == "Relay" and out["constants"]["MaxSeq"] == 2
    assert out["invariants"][:3] == ["TypeOk", "AcksBounded", "NoLateDelivery"]


def test_config_and_const_override_the_cfg(modules):
    code, out, _ = invoke_json("run", "Relay.tla", "--config", "RelaySmall.cfg")
    assert code == 0 and (out["distinct_states"], out["depth"]) == (32, 9)
    code, out, _ = invoke_json("run", "Ring.tla", "--const", "N=4")
    assert code == 12 and out["violation"]["trace_length"] == 9


def test_a_violation_writes_an_itf_trace_of_tla_values(modules):
    code, out, _ = invoke_json("run", "Ring.tla")
    assert code == 12
    assert (out["distinct_states"], out["depth"], out["violation"]["invariant"], out["violation"]["trace_length"]) \
        == (7, 7, "Early", 7)
    trace = json.loads((modules / out["violation"]["trace_file"]).read_text())
    assert trace["vars"] == ["token", "count"]
    assert [s["count"] for s in trace["states"]] == [{"#bigint": str(k)} for k in range(7)]
    code, shown, _ = invoke("show", out["violation"]["trace_file"], "--spec", "Ring.tla")
    assert code == 0 and "count" in shown
    code, _, _ = invoke("replay", "Ring.tla", out["violation"]["trace_file"])
    assert code == 12


def test_a_step_tlc_cannot_evaluate_stops_the_run_with_75(modules):
    code, out, _ = invoke_json("run", "Faulty.tla")
    assert code == 75
    assert (out["distinct_states"], out["depth"], out["violation"]["trace_length"]) == (4, 4, 4)


def test_a_constraint_bounds_the_search_as_in_tlc(modules):
    code, out, _ = invoke_json("run", "Unbounded.tla", "--config", "Constrained.cfg")
    assert code == 0 and (out["distinct_states"], out["depth"]) == (100, 100)


@pytest.mark.parametrize("engine", ["bfs", "fast"])
@pytest.mark.parametrize("cfg", ["Misfit", "MisfitLive"])
def test_a_value_past_the_learned_shapes_widens_them_and_never_decides_the_verdict(modules, engine, cfg):
    # consumed[1].epoch is learned as the constant 1; a step at depth 60 stores 2 there, inside an IF inside an
    # IF. The check on that leaf holds only where both IFs take the storing way (else it stops on a bound no
    # behaviour outgrows), and a state that fails it is widened and searched again before any invariant or
    # property is read on it (else ConsumedIsLog is reported broken on a state the module does not have).
    # TLC (-deadlock -workers 1), the invariant and the property alike: no error, 12,200 states, depth 64
    code, out, _ = invoke_json("run", "Misfit.tla", "--config", f"{cfg}.cfg", "--engine", engine)
    assert (code, out["result"], out["distinct_states"], out["depth"]) == (0, "ok", 12200, 64)


def test_an_unbounded_state_space_is_said_so_in_one_line(modules):
    code, _, err = invoke("run", "Unbounded.tla")
    assert code == 2 and "unbounded" in one_error_line(err) and "x keeps growing" in err


def test_a_construct_outside_the_subset_is_one_line_with_its_place(modules):
    code, _, err = invoke("run", "Unsupported.tla")
    line = one_error_line(err)
    assert code == 2 and "Unsupported.tla:9:9: a quantifier without a set" in line


def test_a_missing_cfg_or_module_is_one_line(modules):
    (modules / "Ring.cfg").unlink()
    code, _, err = invoke("run", "Ring.tla")
    assert code == 2 and "no model configuration" in one_error_line(err)
    code, _, err = invoke("run", "Nowhere.tla")
    assert code == 2 and "spec file Nowhere.tla does not exist" in one_error_line(err)


@pytest.mark.parametrize("engine", ["bfs", "fast"])
def test_several_initial_states_a_substitution_an_action_constraint_and_a_view(modules, engine):
    # Pick.cfg: Max <- MCMax, ACTION_CONSTRAINT OneFullAtATime, VIEW View (the step count left out), invariants
    # through a part of a definition (Safety!2) and a named instance (B!Within); Init has 16 states.
    # TLC: 36 distinct states, depth 5
    code, out, _ = invoke_json("run", "Pick.tla", "--engine", engine)
    assert code == 0 and (out["distinct_states"], out["depth"]) == (36, 5)
    # three counters, no action constraint: TLC finds NotAllFull broken after 216 states, depth 7, 7 states
    code, out, _ = invoke_json("run", "Pick.tla", "--config", "PickFull.cfg", "--engine", engine)
    assert code == 12 and (out["distinct_states"], out["depth"]) == (216, 7)
    assert (out["violation"]["invariant"], out["violation"]["trace_length"]) == ("NotAllFull", 7)


@pytest.mark.parametrize("engine", ["bfs", "fast"])
@pytest.mark.parametrize("cfg, verdict, length, loop", [
    # TLC (-deadlock -workers 1): 12 distinct states each; every property of Mutex.cfg holds under FairSpec
    ("Mutex", "ok", None, None),
    # a lasso back to its second state (TLC's has 5 states, back to state 3)
    ("MutexProgress", "violation", 4, 1),
    # no fairness: stuttering in the first state (TLC: 3 states, then stuttering)
    ("MutexUnfair", "violation", 1, None),
    # <>[][A]_vars: a cycle of 6 states back to the first (TLC: the same)
    ("MutexStep", "violation", 6, 0),
])
def test_properties_under_the_specifications_fairness(modules, engine, cfg, verdict, length, loop):
    code, out, _ = invoke_json("run", "Mutex.tla", "--config", f"{cfg}.cfg", "--engine", engine)
    assert (out["result"], out["distinct_states"]) == (verdict, 12)
    assert code == (0 if verdict == "ok" else 13)
    if verdict == "violation":
        assert (out["violation"]["trace_length"], out["violation"]["loop_start"]) == (length, loop)


def test_show_and_replay_read_a_tla_trace_by_its_recorded_source(modules):
    code, out, _ = invoke_json("run", "Pick.tla", "--config", "PickFull.cfg")
    trace = out["violation"]["trace_file"]
    code, shown, _ = invoke("show", trace)
    assert code == 0 and "seen" in shown and "Bump" in shown
    code, _, _ = invoke("show", trace, "--html", "pick.html")
    assert code == 0 and "NotAllFull" in (modules / "pick.html").read_text()
    code, _, _ = invoke("replay", "Pick.tla", trace)  # with the .cfg the trace records
    assert code == 12


def test_prove_and_z3_refuse_a_tla_module_in_one_line(modules):
    code, _, err = invoke("prove", "Ring.tla")
    assert code == 2 and "prove does not take a TLA+ module" in one_error_line(err)
    code, _, err = invoke("run", "Ring.tla", "--engine", "z3")
    assert code == 2 and "z3 engine does not check a TLA+ module" in one_error_line(err)


def test_the_other_commands_take_a_tla_module(modules):
    code, out, _ = invoke_json("simulate", "Relay.tla", "--seed", "1", "--num", "20")
    assert code == 0 and out["result"] == "bounded-ok"
    code, text, _ = invoke("graph", "Ring.tla", "--out", "ring.dot")
    assert code == 0 and (modules / "ring.dot").exists()
    code, text, _ = invoke("sweep", "Relay.tla", "--vary", "MaxSeq=1,2")
    assert code == 0 and "10,684" in text and "109" in text


@pytest.mark.parametrize("engine", ["bfs", "fast"])
def test_check_deadlock_is_read_from_the_cfg(modules, engine):
    # TLC (without -deadlock): "Deadlock reached" after 16 distinct states, a behaviour of 4 states; with
    # CHECK_DEADLOCK FALSE, 16 states, depth 4
    code, out, _ = invoke_json("run", "Countdown.tla", "--engine", engine)
    assert code == 11 and (out["distinct_states"], out["depth"]) == (16, 4)  # 11: a deadlock
    assert (out["violation"]["invariant"], out["violation"]["trace_length"]) == ("Deadlock", 4)
    code, out, _ = invoke_json("run", "Countdown.tla", "--config", "CountdownNoDeadlock.cfg", "--engine", engine)
    assert code == 0 and (out["distinct_states"], out["depth"]) == (16, 4)


def test_tlcs_dump_trace_json_replays_against_the_module(modules):
    fixture = os.path.join(os.path.dirname(__file__), "fixtures", "tlc", "ring-Early-tlc.json")
    code, text, _ = invoke("replay", "Ring.tla", fixture)
    assert code == 12 and "behaviour of Ring" in text and "state 7: Early broken" in text
