"""The command line as users meet it: verdicts, JSON, exit codes, bad input."""

import json
import os
import subprocess
import sys

import pytest

from support import invoke, invoke_json, one_error_line, run_on_terminal, run_subprocess

JSON_FIELDS = {"spec", "engine", "constants", "invariants", "result", "distinct_states", "depth", "seconds",
               "violation", "symmetry"}


def test_ok_run_as_json(in_tmp):
    code, out, err = invoke_json("run", "kip320", "--const", "Replicas=2")
    assert code == 0
    assert set(out) == JSON_FIELDS
    assert (out["result"], out["distinct_states"], out["depth"], out["violation"]) == ("ok", 5973, 18, None)
    assert out["constants"] == {"Replicas": ["r1", "r2"], "LogSize": 2, "MaxRecords": 2, "MaxLeaderEpoch": 2}
    assert out["invariants"] == ["TypeOk", "WeakIsr", "StrongIsr"]


def test_violation_exits_12_and_writes_a_trace(in_tmp):
    code, out, _ = invoke_json("run", "kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr")
    assert code == 12
    assert out["result"] == "violation"
    assert out["violation"]["invariant"] == "StrongIsr" and out["violation"]["trace_length"] == 13
    path = out["violation"]["trace_file"]
    assert path == os.path.join("traces", "kip320-first-try-StrongIsr.itf.json")
    assert len(json.load(open(in_tmp / path))["states"]) == 13


def test_text_report_prints_the_trace(in_tmp):
    code, out, _ = invoke("run", "kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr")
    assert code == 12
    assert "Invariant StrongIsr is violated. Shortest counterexample: 13 states." in out
    assert "State 13: FollowerTruncate(leader=r2, follower=r3)" in out
    assert "distinct states" in out and "trace" in out


def test_bounded_run(in_tmp):
    code, out, _ = invoke_json("run", "kip320", "--const", "Replicas=2", "--max-depth", "4")
    assert code == 0 and out["result"] == "bounded-ok" and out["depth"] == 4


def test_config_file_sets_constants_and_invariants(in_tmp):
    (in_tmp / "mc.cfg").write_text("CONSTANTS Replicas = {r1, r2, r3}\nINVARIANT StrongIsr\nSPECIFICATION Spec\n")
    code, out, err = invoke_json("run", "kip320-first-try", "--config", "mc.cfg")
    assert code == 12 and out["invariants"] == ["StrongIsr"] and out["violation"]["trace_length"] == 13
    assert "SPECIFICATION Spec is not used" in err
    # --const and --inv override the file
    code, out, _ = invoke_json("run", "kip320-first-try", "--config", "mc.cfg", "--const", "Replicas=2",
                               "--inv", "WeakIsr")
    assert code == 0 and out["invariants"] == ["WeakIsr"] and out["distinct_states"] == 8429


@pytest.mark.parametrize("args, fragment", [
    (["run", "kip999"], "unknown spec 'kip999'"),
    (["run", "kip320", "--inv", "Nope"], "no invariant 'Nope'"),
    (["run", "kip320", "--const", "Nope=1"], "no constant 'Nope'"),
    (["run", "kip320", "--const", "LogSize=abc"], "must be an integer"),
    (["run", "kip320", "--const", "Replicas=0"], "at least 1"),
    (["run", "kip320", "--const", "LogSize=0"], "at least 1"),
    (["run", "kip320", "--const", "MaxRecords=0"], "at least 1"),
    (["run", "kip320", "--const", "MaxLeaderEpoch=-1"], "at least 0"),
    (["run", "kip320", "--const", "LogSize"], "NAME=VALUE"),
    (["run", "kip320", "--max-depth", "0"], "at least 1"),
    (["run", "kip320", "--engine", "warp"], "unknown engine"),
    (["run", "kip320", "--trace-out", "/nonexistent-dir/t.json"], "does not exist"),
    (["run", "kip320", "--config", "missing.cfg"], "cannot read config"),
    (["run", "kip320", "--no-such-flag"], "no-such-flag"),
    (["graph", "kip320", "--out", "g.txt"], "extension"),
])
def test_bad_input_is_one_line_and_exit_2(in_tmp, args, fragment):
    code, out, err = invoke(*args)
    assert code == 2
    assert fragment in one_error_line(err)


def test_malformed_config_names_its_line(in_tmp):
    (in_tmp / "bad.cfg").write_text("CONSTANTS\n  Replicas = {r1, r2\n")
    code, _, err = invoke("run", "kip320", "--config", "bad.cfg")
    assert code == 2 and "bad.cfg:2:" in err and len(err.strip().splitlines()) == 1


def test_existing_trace_out_is_not_overwritten(in_tmp):
    (in_tmp / "keep.json").write_text("mine")
    code, _, err = invoke("run", "kip320", "--trace-out", "keep.json")
    assert code == 2 and "already exists" in err
    assert (in_tmp / "keep.json").read_text() == "mine"


def test_list_shows_every_spec():
    code, out, _ = invoke("list", "--json")
    specs = {s["name"]: s for s in json.loads(out)}
    assert set(specs) == {"truncate-to-hw", "kip101", "kip279", "kip320", "kip320-first-try", "async-isr",
                          "kip320-consumer"}
    assert "FencedFollowerFetch" in specs["kip320"]["actions"]
    assert specs["kip320"]["constants"] == {"Replicas": "{r1, r2, r3}", "LogSize": "2", "MaxRecords": "2",
                                            "MaxLeaderEpoch": "2"}
    assert "LeaderInIsr" in specs["kip320"]["invariants"]


def test_graph_command(in_tmp):
    code, out, _ = invoke_json("graph", "kip320", "--const", "Replicas=2", "--out", "g.graphml")
    assert code == 0 and out["nodes"] == 5973 and (in_tmp / "g.graphml").exists()
    code, _, err = invoke("graph", "kip320", "--out", "big.dot", "--max-states", "100")
    assert code == 2 and "more than 100 reachable states" in err


def test_installed_console_script_runs():
    exe = os.path.join(os.path.dirname(sys.executable), "modelcheck")
    if not os.path.exists(exe):
        pytest.skip("modelcheck console script not installed next to this interpreter")
    out = subprocess.run([exe, "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "modelcheck" in out.stdout


def test_progress_is_quiet_when_piped(in_tmp):
    proc = run_subprocess("run", "kip320", "--const", "Replicas=2", cwd=in_tmp)
    assert proc.returncode == 0 and proc.stderr == ""


def test_progress_shows_on_a_terminal(in_tmp):
    """stderr on a pseudo-terminal gets the progress line."""
    code, seen, out = run_on_terminal("run", "kip320", "--max-depth", "13", "--json", cwd=in_tmp, timeout=120)
    assert "states" in seen and "depth" in seen and "states/s" in seen
    assert json.loads(out)["result"] == "bounded-ok"
