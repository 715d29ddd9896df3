"""--symmetry and the .cfg SYMMETRY section as users meet them."""

import json

import pytest

from support import invoke, invoke_json, one_error_line


def test_run_with_symmetry_counts_orbits(in_tmp):
    code, out, _ = invoke_json("run", "kip320", "--const", "Replicas=2", "--symmetry", "--engine", "fast")
    assert code == 0 and out["symmetry"] is True
    assert (out["result"], out["distinct_states"], out["depth"]) == ("ok", 2987, 18)
    code, text, _ = invoke("run", "kip320", "--const", "Replicas=2", "--symmetry")
    assert code == 0 and "note: symmetry: distinct states count orbits under renamings of Replicas" in text


def test_a_counterexample_under_symmetry_replays_without_it(in_tmp):
    code, out, _ = invoke_json("run", "kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr",
                               "--symmetry", "--engine", "fast", "--trace-out", "t.itf.json")
    assert code == 12 and out["violation"]["trace_length"] == 13
    code, report, _ = invoke_json("replay", "kip320-first-try", "t.itf.json")
    assert code == 12  # a behaviour of the spec that breaks an invariant
    assert len(json.load(open(in_tmp / "t.itf.json"))["states"]) == 13
    assert "StrongIsr" in json.dumps(report)


def test_cfg_symmetry_turns_it_on_with_a_note(in_tmp):
    (in_tmp / "mc.cfg").write_text("CONSTANTS Replicas = {r1, r2}\nSYMMETRY Perms\n")
    code, out, err = invoke_json("run", "kip320", "--config", "mc.cfg")
    assert code == 0 and out["symmetry"] is True and out["distinct_states"] == 2987
    note = [line for line in err.splitlines() if "SYMMETRY" in line]
    assert note == ["modelcheck: warning: mc.cfg:2: SYMMETRY Perms: taken to mean Permutations(Replicas) "
                    "(the .tla's definition is not read): one state per orbit under renamings of Replicas"]
    (in_tmp / "direct.cfg").write_text("CONSTANTS Replicas = {r1, r2}\nSYMMETRY Permutations(Replicas)\n")
    code, out, _ = invoke_json("run", "kip320", "--config", "direct.cfg")
    assert code == 0 and out["distinct_states"] == 2987


@pytest.mark.parametrize("args, cfg, fragment", [
    (["run", "async-isr", "--symmetry"], None, "async-isr declares none of its constants symmetric"),
    (["run", "kip320", "--symmetry", "--engine", "z3"], None, "--symmetry works with the engines bfs, fast, spark"),
    (["graph", "async-isr", "--out", "g.dot", "--symmetry"], None, "declares none of its constants symmetric"),
    (["sweep", "async-isr", "--vary", "MaxOffset=1,2", "--symmetry"], None, "declares none"),
    (["sweep", "kip320", "--row", "Replicas=2 symmetry=yes"], None, "symmetry=yes: expected on or off"),
    (["run", "kip320", "--config", "c.cfg"], "SYMMETRY Permutations(LogSize)",
     "c.cfg:1: SYMMETRY Permutations(LogSize): LogSize is not a symmetric constant of kip320"),
    (["run", "kip320", "--config", "c.cfg"], "SYMMETRY Replicas",
     "c.cfg:1: SYMMETRY Replicas: Replicas is a constant, not a set of permutations"),
    (["run", "kip320", "--config", "c.cfg"], "SYMMETRY", "c.cfg:1: SYMMETRY names nothing"),
    (["run", "async-isr", "--config", "c.cfg"], "SYMMETRY Perms", "async-isr declares none of its constants"),
])
def test_bad_symmetry_input_is_one_line_and_exit_2(in_tmp, args, cfg, fragment):
    if cfg is not None:
        (in_tmp / "c.cfg").write_text(cfg + "\n")
    code, _, err = invoke(*args)
    assert code == 2
    assert fragment in one_error_line(err)


def test_graph_with_symmetry_has_one_node_per_orbit(in_tmp):
    code, out, _ = invoke_json("graph", "kip320", "--const", "Replicas=2", "--out", "g.graphml", "--symmetry")
    assert code == 0 and out["nodes"] == 2987


def test_sweep_compares_runs_with_and_without_symmetry(in_tmp):
    code, out, _ = invoke("sweep", "kip320", "--vary", "Replicas=2", "--vary", "symmetry=off,on",
                          "--engine", "fast", "--format", "json", "-q")
    assert code == 0
    rows = [(r["Replicas"], r["symmetry"], r["distinct_states"], r["depth"]) for r in json.loads(out)]
    assert rows == [("{r1, r2}", "off", 5973, 18), ("{r1, r2}", "on", 2987, 18)]
    code, out, _ = invoke("sweep", "kip320", "--row", "Replicas=2", "--symmetry", "--format", "json", "-q")
    assert code == 0 and json.loads(out)[0]["distinct_states"] == 2987
