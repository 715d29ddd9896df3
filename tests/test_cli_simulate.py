"""`modelcheck simulate` and `--coverage` from the command line."""

import pytest

from support import invoke, invoke_json, one_error_line


@pytest.mark.parametrize("args, message", [
    (["simulate", "kip320", "--depth", "0"], "--depth must be at least 1"),
    (["simulate", "kip320", "--num", "5", "--time", "3"], "--num and --time"),
    (["simulate", "kip320", "--seed", "abc"], "'abc' is not a valid integer"),
    (["simulate", "kip320", "--num", "0"], "--num must be at least 1"),
    (["simulate", "kip320", "--engine", "spark", "--coverage"], "not collected by the spark engine"),
    (["run", "kip320", "--const", "Replicas=2", "--engine", "bfs", "--coverage"], "not collected by the bfs engine"),
    (["run", "kip320", "--engine", "fast", "--coverage=most"], "--coverage takes actions or full"),
    (["simulate", "kip320", "--inv", "Nope"], "no invariant 'Nope'"),
    (["simulate", "kip320", "--symmetry"], "--symmetry: simulate follows single behaviours and keeps no visited set"),
    (["simulate", "kip320", "--engine", "spark", "--lead-in", "0"], "--lead-in applies to `run --engine spark`"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    code, _, err = invoke(*args)
    assert code == 2
    assert message in one_error_line(err)


def test_a_violation_is_shrunk_written_as_itf_and_replays(tmp_path):
    trace = str(tmp_path / "t.itf.json")
    args = ["simulate", "truncate-to-hw", "--const", "Replicas=2", "--num", "20000", "--seed", "3",
            "--trace-out", trace, "-q"]
    code, report, _ = invoke_json(*args)
    assert code == 12
    assert report["violation"]["invariant"] == "WeakIsr"
    assert report["seed"] == 3 and report["behaviours"] >= 1 and report["steps"] >= 1
    assert 9 <= report["violation"]["trace_length"] <= report["trace_length_before_shrink"]
    code, replayed, _ = invoke_json("replay", "truncate-to-hw", trace)
    assert code == 12 and replayed["states"] == report["violation"]["trace_length"]
    code, out, _ = invoke("show", trace)
    assert code == 0 and "WeakIsr" in out
    # the same seed, the same report
    code, again, _ = invoke_json(*args, "--trace-out", str(tmp_path / "u.itf.json"))
    assert {k: v for k, v in again.items() if k not in ("seconds", "violation", "timings")} == \
        {k: v for k, v in report.items() if k not in ("seconds", "violation", "timings")}


def test_no_violation_exits_0_with_the_counts(tmp_path):
    code, report, _ = invoke_json("simulate", "kip320", "--const", "Replicas=2", "--num", "200", "--depth", "20",
                                  "--coverage", "-q")
    assert code == 0 and report["violation"] is None and report["behaviours"] == 200
    coverage = report["coverage"]
    assert {"name", "enabled", "generated", "distinct"} <= set(coverage["actions"][0])
    assert coverage["initial_states"] + sum(a["distinct"] for a in coverage["actions"]) == report["distinct_states"]
    assert any(b["condition"] == "leader = None" for b in coverage["dead_branches"])


def test_run_coverage_text_table():
    code, out, _ = invoke("run", "kip320", "--const", "Replicas=2", "--engine", "fast", "--coverage=full", "-q")
    assert code == 0
    assert "FencedBecomeFollowerAndTruncate(leader=r1, replica=r2, leaderAndIsrRequest=0)" in out
    assert "DEAD  FencedBecomeFollowerAndTruncate: leader = None" in out
    table = out[out.index("the spec's variables"):]
    assert table.splitlines()[1].split() == ["variable", "may", "hold", "held", "note"]
    assert "  replicaState[r].isr             any set of r1, r2         4 of the 4 sets, members r1, r2" in table
    assert not any(line.split()[0] in ("isr", "leader", "request_sent") for line in table.splitlines()[2:])


def test_coverage_refuses_a_resumed_search(tmp_path):
    code, _, err = invoke("run", "kip320", "--engine", "fast", "--coverage", "--resume", str(tmp_path / "none"))
    assert code == 2 and "--resume" in one_error_line(err)


def test_a_cfg_symmetry_line_is_not_used_and_says_so(in_tmp):
    (in_tmp / "mc.cfg").write_text("CONSTANTS Replicas = {r1, r2}\nSYMMETRY Perms\n")
    code, out, err = invoke_json("simulate", "kip320", "--config", "mc.cfg", "--num", "5", "--depth", "5")
    assert code == 0 and out["symmetry"] is False
    assert "the .cfg's SYMMETRY is not used: simulate follows single behaviours" in err


def test_the_documented_seed_finds_the_first_try_violation(tmp_path):
    """docs/simulation.md's first command: seed 4 finds StrongIsr broken
    after 10,442 behaviours, and the walk of 25 states shrinks to 15."""
    code, report, _ = invoke_json("simulate", "kip320-first-try", "--const", "Replicas=5", "--inv", "StrongIsr",
                                  "--num", "20000", "--seed", "4", "--trace-out", str(tmp_path / "t.itf.json"), "-q")
    assert code == 12 and report["violation"]["invariant"] == "StrongIsr"
    assert (report["behaviours"], report["trace_length_before_shrink"], report["violation"]["trace_length"]) == \
        (10442, 25, 15)
