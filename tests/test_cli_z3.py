"""The z3 commands as users meet them: `run --engine z3` and `prove`, their
JSON, exit codes, trace files and bad input."""

import json
import os

import pytest

from support import invoke, invoke_json, model, one_error_line, run_on_terminal, run_subprocess

RUN_FIELDS = {"spec", "engine", "constants", "invariants", "result", "distinct_states", "depth", "seconds", "stopped",
              "properties", "specification", "violation", "symmetry", "view", "notes", "resumed_with",
               "resume_seconds", "fingerprint_bits", "collision_probability", "timings",
               "kernel_build"}
PROVE_FIELDS = {"spec", "engine", "constants", "invariants", "k", "result", "proved_at_k", "depth", "seconds", "stopped",
                "violation", "counterexample_to_induction"}


def read_itf(path):
    """The trace's states (decoded by the spec's codec) and action labels."""
    data = json.load(open(path))
    meta = data["#meta"]["modelcheck"]
    m = model(meta["spec"], **{k: ("{" + ",".join(v) + "}" if isinstance(v, list) else v)
                                for k, v in meta["constants"].items()})
    states = [m.codec.decode({v: s[v] for v in data["vars"]}) for s in data["states"]]
    actions = [s["#meta"]["action"] for s in data["states"]]
    return m, data, states, actions


def test_run_z3_violation_as_json(in_tmp):
    code, out, _ = invoke_json("run", "truncate-to-hw", "--const", "Replicas=2", "--engine", "z3",
                               "--max-depth", "12")
    assert code == 12
    assert set(out) == RUN_FIELDS
    assert (out["engine"], out["result"], out["distinct_states"], out["depth"]) == ("z3", "violation", None, 9)
    assert out["violation"]["trace_length"] == 9 and out["violation"]["invariant"] == "WeakIsr"
    path = out["violation"]["trace_file"]
    assert path == os.path.join("modelcheck-out", "truncate-to-hw", "truncate-to-hw-WeakIsr.itf.json")
    m, data, states, actions = read_itf(in_tmp / path)
    assert data["#meta"]["modelcheck"]["engine"] == "z3" and actions[0] == "Init"
    # the written trace replays through the explicit engine, action by action
    assert states[0] in m.init_states
    labels = m.instance_labels()
    for i, (before, after) in enumerate(zip(states, states[1:]), start=1):
        assert any(t == after and m.instances[j].action == actions[i] for j, t in m.successors(before)), labels


def test_run_z3_bounded_ok(in_tmp):
    code, out, _ = invoke_json("run", "kip320", "--const", "Replicas=2", "--engine", "z3", "--max-depth", "6")
    assert code == 0
    assert (out["result"], out["depth"], out["distinct_states"], out["violation"]) == ("bounded-ok", 6, None, None)


def test_run_z3_text_report(in_tmp):
    code, out, _ = invoke("run", "kip320", "--const", "Replicas=2", "--engine", "z3")
    assert code == 0
    assert "engine z3" in out and "up to depth 10" in out
    assert "without --max-depth it stops at depth 10" in out


def test_prove_proved(in_tmp):
    code, out, _ = invoke_json("prove", "kip320", "--const", "Replicas=2", "--inv", "RequestsSentBelowNextEpoch")
    assert code == 0
    assert set(out) == PROVE_FIELDS
    assert (out["result"], out["proved_at_k"], out["violation"], out["counterexample_to_induction"]) == \
        ("proved", 1, None, None)


def test_prove_base_case_failure_is_a_real_counterexample(in_tmp):
    code, out, _ = invoke_json("prove", "kip320", "--const", "Replicas=2", "--inv", "LeaderInIsr")
    assert code == 12
    assert out["result"] == "violation" and out["violation"]["trace_length"] == 1
    _, data, _, actions = read_itf(in_tmp / out["violation"]["trace_file"])
    assert actions == ["Init"]


def test_prove_not_inductive_writes_a_counterexample_to_induction(in_tmp):
    code, out, _ = invoke_json("prove", "kip320", "--const", "Replicas=2", "--inv", "StrongIsr")
    assert code == 20
    cti = out["counterexample_to_induction"]
    assert out["result"] == "not-inductive" and out["violation"] is None
    assert cti["trace_length"] == 2 and cti["invariants_broken"] == ["StrongIsr"]
    assert cti["trace_file"] == os.path.join("modelcheck-out", "kip320", "kip320-StrongIsr-cti.itf.json")
    m, data, states, actions = read_itf(in_tmp / cti["trace_file"])
    assert actions[0] == "Hypothesis" and data["#meta"]["modelcheck"]["kind"] == "counterexample to induction"
    strong = m.compiled.predicates["StrongIsr"]
    assert strong(states[0]) and not strong(states[1])
    assert any(t == states[1] for _, t in m.successors(states[0]))


def test_a_counterexample_to_induction_replays_and_shows_as_one(in_tmp):
    code, out, _ = invoke_json("prove", "kip320", "--const", "Replicas=2", "--inv", "StrongIsr")
    path = out["counterexample_to_induction"]["trace_file"]
    code, report, _ = invoke_json("replay", "kip320", path)
    # its first state is checked against the hypothesis, not Init, and it breaks it one step on
    assert (code, report["result"], report["hypothesis"]) == (20, "not-inductive", ["StrongIsr"])
    assert [v["state"] for v in report["violations"]] == [2]
    code, shown, _ = invoke("show", path)
    assert code == 0 and "State 1: Hypothesis (StrongIsr; need not be reachable)" in shown


def test_a_counterexample_to_induction_whose_first_state_breaks_the_hypothesis_is_refused(in_tmp):
    code, out, _ = invoke_json("prove", "kip320", "--const", "Replicas=2", "--inv", "StrongIsr")
    path = in_tmp / out["counterexample_to_induction"]["trace_file"]
    data = json.loads(path.read_text())
    data["states"][0] = dict(data["states"][1], **{"#meta": data["states"][0]["#meta"]})
    path.write_text(json.dumps(data))
    code, report, _ = invoke_json("replay", "kip320", str(path))
    assert (code, report["result"]) == (3, "invalid")
    assert report["invalid_step"]["reason"] == "the first state does not satisfy the hypothesis: StrongIsr is false there"


def test_prove_with_the_spec_lemmas(in_tmp):
    code, out, _ = invoke_json("prove", "kip320", "--const", "Replicas=2", "--const", "LogSize=1", "--const",
                               "MaxRecords=1", "--const", "MaxLeaderEpoch=1", "--inv", "TypeOk", "--inv", "StrongIsr",
                               "--lemmas", "--k", "8")
    assert code == 0
    assert (out["result"], out["proved_at_k"]) == ("proved", 1)
    assert out["invariants"][:3] == ["TypeOk", "StrongIsr", "RequestsSentBelowNextEpoch"]
    assert len(out["invariants"]) == 2 + 20


def test_prove_says_its_invariants_in_words_not_as_a_conjunction(in_tmp):
    code, out, _ = invoke("prove", "kip320", "--const", "Replicas=2", "--const", "LogSize=1", "--const",
                          "MaxRecords=1", "--const", "MaxLeaderEpoch=1", "--inv", "TypeOk", "--inv", "StrongIsr",
                          "--lemmas", "--k", "8")
    assert code == 0 and "/\\" not in out, out
    assert "Proved: the 22 invariants together hold in every reachable state (1-induction)." in out
    code, out, _ = invoke("prove", "kip320", "--const", "Replicas=2", "--inv", "TypeOk", "--inv", "StrongIsr",
                          "--k", "1")
    assert code == 20 and "/\\" not in out, out
    assert "Not proved: TypeOk and StrongIsr are not 1-inductive." in out
    assert "No behaviour of up to 1 state breaks them" in out


def test_prove_text_report(in_tmp):
    code, out, _ = invoke("prove", "kip320", "--const", "Replicas=2", "--inv", "StrongIsr", "--k", "2")
    assert code == 20
    assert "Not proved: StrongIsr is not 2-inductive." in out
    assert "State 1: Hypothesis" in out and "State 3:" in out


@pytest.mark.parametrize("args, fragment", [
    (["run", "kip320", "--engine", "z3", "--max-depth", "0"], "--max-depth must be at least 1"),
    (["run", "kip320", "--engine", "z3", "--max-depth", "-3"], "--max-depth must be at least 1"),
    (["run", "kip320", "--engine", "z3", "--inv", "Nope"], "no invariant 'Nope'"),
    (["prove", "kip320", "--inv", "Nope"], "no invariant 'Nope'"),
    (["prove", "kip320", "--k", "0"], "--k must be at least 1"),
    (["prove", "async-isr", "--inv", "StrongIsr"], "async-isr has no invariant 'StrongIsr'"),
    (["prove", "async-isr", "--lemmas"], "offers no lemmas"),
    (["prove", "kip999"], "unknown spec"),
    (["prove", "kip320", "--const", "Replicas=0"], "at least 1"),
    (["prove", "kip320", "--k", "two"], "two"),
    (["prove", "kip320", "--trace-out", "/nonexistent-dir/t.json"], "does not exist"),
])
def test_bad_input_is_one_line_and_exit_2(in_tmp, args, fragment):
    code, out, err = invoke(*args)
    assert code == 2
    assert fragment in one_error_line(err)


def test_existing_trace_is_kept(in_tmp):
    (in_tmp / "keep.json").write_text("mine")
    code, _, err = invoke("prove", "kip320", "--const", "Replicas=2", "--inv", "StrongIsr", "--trace-out", "keep.json")
    assert code == 2 and "already exists" in err
    assert (in_tmp / "keep.json").read_text() == "mine"


def read_terminal(args, cwd):
    """Run the CLI with stderr on a pseudo-terminal; returns (stderr text, stdout)."""
    _, err, out = run_on_terminal(*args, cwd=cwd)
    return err, out


def test_per_depth_progress_on_a_terminal(in_tmp):
    err, out = read_terminal(["run", "kip320", "--const", "Replicas=2", "--engine", "z3", "--max-depth", "4",
                              "--json"], in_tmp)
    shown = err.replace("\x1b[2K", "").replace("\r", "\n")  # what stays on the terminal, line by line
    lines = [line for line in shown.splitlines() if line.strip().startswith("depth")]
    assert [line.split()[1] for line in lines] == ["1", "2", "3", "4"]
    assert all("solver" in line and line.rstrip().endswith("s") for line in lines)
    assert json.loads(out)["result"] == "bounded-ok"


def test_no_per_depth_lines_when_stderr_is_not_a_terminal(in_tmp):
    """As docs/z3.md says: progress is for a terminal; a captured run prints only its result."""
    done = run_subprocess("run", "kip320", "--const", "Replicas=2", "--engine", "z3", "--max-depth", "4", "--json",
                          cwd=in_tmp)
    assert done.returncode == 0 and json.loads(done.stdout)["result"] == "bounded-ok"
    assert not [line for line in done.stderr.splitlines() if line.strip().startswith("depth")], done.stderr
    done = run_subprocess("prove", "kip320", "--const", "Replicas=2", "--inv", "StrongIsr", "--k", "2", "--json",
                          cwd=in_tmp)
    assert done.returncode == 20 and not [line for line in done.stderr.splitlines() if line.startswith("k ")]


def test_per_k_progress_of_prove_on_a_terminal(in_tmp):
    err, _ = read_terminal(["prove", "kip320", "--const", "Replicas=2", "--inv", "StrongIsr", "--k", "2", "--json"],
                           in_tmp)
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip().startswith("k ")]
    assert len(lines) == 2 and "step fails" in lines[-1]


def test_prove_says_why_the_counterexample_to_induction_breaks_the_invariant(in_tmp):
    """As `modelcheck show` of the same file does."""
    code, text, _ = invoke("prove", "kip320", "--const", "Replicas=2", "--inv", "StrongIsr")
    assert code == 20 and "the first satisfies it and the last breaks StrongIsr" in text
    why = next(line for line in text.splitlines() if line.startswith("StrongIsr broken: "))
    code, shown, _ = invoke("show", "modelcheck-out/kip320/kip320-StrongIsr-cti.itf.json")
    assert code == 0 and why.split(", but ")[0] in shown


def test_prove_says_why_a_base_case_counterexample_breaks_the_invariant(in_tmp):
    code, text, _ = invoke("prove", "kip320", "--const", "Replicas=2", "--inv", "LeaderInIsr")
    assert code == 12 and "\nLeaderInIsr broken: the quorum has no leader (epoch -1, ISR {r1, r2})\n" in text
