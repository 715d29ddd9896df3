"""--config: each command's help names the .cfg sections it reads, and it reads them."""

import pytest

from support import invoke, invoke_json, one_error_line

SECTIONS = ("CONSTANTS", "INVARIANT(S)", "PROPERTY(IES)", "SPECIFICATION", "SYMMETRY", "CHECK_DEADLOCK")


def sections_read(command: str) -> set[str]:
    """The sections the --config help of ``command`` says it reads: "Read a
    TLC .cfg file: its A, B and C; what it does not use"."""
    from cli import main
    option = next(p for p in main.commands[command].params if p.name == "config")
    reads = option.help.split(";")[0]
    return {name for name in SECTIONS if name in reads}


def test_run_reads_every_section_its_help_names(in_tmp):
    assert sections_read("run") == set(SECTIONS)
    (in_tmp / "safety.cfg").write_text("CONSTANTS Replicas = {r1, r2}\nINVARIANT WeakIsr\nCHECK_DEADLOCK TRUE\n"
                                       "SYMMETRY Perms\n")
    code, out, _ = invoke_json("run", "kip320", "--config", "safety.cfg")
    assert code == 11 and out["violation"]["invariant"] == "Deadlock"  # CHECK_DEADLOCK
    assert out["constants"]["Replicas"] == ["r1", "r2"] and out["invariants"] == ["WeakIsr"]
    assert out["symmetry"] is True
    (in_tmp / "live.cfg").write_text("CONSTANTS Replicas = {r1, r2}\nSPECIFICATION NoFairSpec\n"
                                     "PROPERTY LeaderAdoptsItsRequest\n")
    code, out, _ = invoke_json("run", "kip320", "--config", "live.cfg")
    assert code == 13 and out["specification"] == "NoFairSpec" and out["properties"] == ["LeaderAdoptsItsRequest"]


def test_prove_reads_constants_and_invariants(in_tmp):
    assert sections_read("prove") == {"CONSTANTS", "INVARIANT(S)"}
    (in_tmp / "mc.cfg").write_text("CONSTANTS Replicas = {r1, r2}\nINVARIANT TypeOk\n")
    code, out, _ = invoke_json("prove", "kip320", "--config", "mc.cfg")
    assert code in (0, 20) and out["invariants"] == ["TypeOk"]
    assert out["constants"]["Replicas"] == ["r1", "r2"]


def test_graph_reads_constants_and_symmetry(in_tmp):
    assert sections_read("graph") == {"CONSTANTS", "SYMMETRY"}
    (in_tmp / "mc.cfg").write_text("CONSTANTS Replicas = {r1, r2}\nSYMMETRY Perms\n")
    code, out, _ = invoke_json("graph", "kip320", "--config", "mc.cfg", "--out", "g.dot")
    assert code == 0 and out["nodes"] == 2987  # the orbits of the 5,973 states


def test_simulate_reads_constants_invariants_and_deadlock(in_tmp):
    assert sections_read("simulate") == {"CONSTANTS", "INVARIANT(S)", "CHECK_DEADLOCK"}
    (in_tmp / "mc.cfg").write_text("CONSTANTS Replicas = {r1, r2}\nINVARIANT WeakIsr\nCHECK_DEADLOCK TRUE\n")
    code, out, _ = invoke_json("simulate", "kip320", "--config", "mc.cfg", "--num", "50", "--seed", "1")
    assert code == 11 and out["violation"]["invariant"] == "Deadlock"
    assert out["constants"]["Replicas"] == ["r1", "r2"] and out["invariants"] == ["WeakIsr"]


@pytest.mark.parametrize("engine", ["fast", "spark"])
def test_simulate_refuses_a_property_line_in_one_line(in_tmp, engine):
    """Random walks check invariants; a PROPERTY line once crashed the report."""
    (in_tmp / "mc.cfg").write_text("CONSTANTS Replicas = {r1, r2}\nPROPERTY LeaderAdoptsItsRequest\n")
    code, _, err = invoke("simulate", "kip320", "--config", "mc.cfg", "--num", "5", "--engine", engine)
    assert code == 2 and "PROPERTY names temporal properties" in one_error_line(err)


def test_config_default_names_the_spec_s_own_settings(in_tmp):
    code, own, err = invoke_json("run", "kip320", "--config", "default", "--const", "Replicas=2")
    assert code == 0 and err == ""
    code, plain, _ = invoke_json("run", "kip320", "--const", "Replicas=2")
    keep = ("constants", "invariants", "view", "distinct_states", "depth", "result")
    assert {k: own[k] for k in keep} == {k: plain[k] for k in keep}


@pytest.mark.parametrize("spec", ["kraft-3.5", "kraft-kip966"])
def test_config_default_of_a_kraft_spec_is_its_module_s_cfg(spec):
    """The module's .cfg (not shipped): its constants, its INVARIANT list
    and its VIEW, which are the spec's defaults."""
    from modelcheck.capabilities.view import wanted_view
    from modelcheck.loading.request import choose_invariants, resolve
    from modelcheck.runs.run import RunRequest
    own, plain = resolve(spec, (), "default"), resolve(spec)
    assert own.constants == plain.constants and own.constants.BrokerCount == 3
    assert choose_invariants(own.spec, (), own.cfg) == choose_invariants(plain.spec, ()) == \
        own.spec.default_invariants and own.spec.default_invariants[-1] == "NoCommittedRecordLostGlobally"
    request = RunRequest(spec)
    assert wanted_view(request, own.spec, own.cfg, (), []) is wanted_view(request, plain.spec, None, (), []) is True
