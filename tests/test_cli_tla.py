"""modelcheck run Spec.tla: a TLA+ module checked directly, end to end.

The figures pinned here are TLC's, on the project's own TLA+ test modules
(tests/modelcheck/tlaplus/modules/), each run with ``-deadlock -workers 1``."""

import json
import shutil

import pytest

from support import invoke, invoke_json, one_error_line
from tla_support import module_path


@pytest.fixture
def modules(in_tmp):
    """The test modules copied into the run's directory (traces land there)."""
    for name in ("Relay", "Ring", "Faulty", "Unbounded", "Unsupported"):
        shutil.copy(module_path(f"{name}.tla"), in_tmp)
    for cfg in ("Relay", "RelaySmall", "Ring", "Faulty", "Unbounded", "Constrained", "Unsupported"):
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
