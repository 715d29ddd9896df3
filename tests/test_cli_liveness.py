"""`modelcheck run --prop`, `replay --prop`, `show` and `list` on temporal properties."""

import json

import pytest

from support import invoke, invoke_json, one_error_line

TWO = ("--const", "Replicas=2")


def test_a_property_that_holds_exits_0_and_says_under_which_specification(in_tmp):
    code, out, _ = invoke_json("run", "kip320", *TWO, "--prop", "LeaderAdoptsItsRequest", "--engine", "fast")
    assert code == 0 and out["result"] == "ok" and out["violation"] is None
    assert out["properties"] == ["LeaderAdoptsItsRequest"] and out["specification"] == "Spec"
    assert (out["distinct_states"], out["depth"], out["invariants"]) == (5973, 18, [])


@pytest.mark.parametrize("prop, stutters", [("LeaderAdoptsItsRequest", True), ("QuorumIsrStabilizes", False)])
def test_a_violation_is_a_lasso_that_replays(in_tmp, prop, stutters):
    code, out, _ = invoke_json("run", "kip320", *TWO, "--prop", prop, "--specification", "NoFairSpec")
    assert code == 13 and out["result"] == "violation"
    v = out["violation"]
    assert v["property"] == prop and (v["loop_start"] is None) == stutters
    itf = json.loads((in_tmp / v["trace_file"]).read_text())
    assert len(itf["states"]) == v["trace_length"] and 0 <= itf["loop"] < v["trace_length"]
    assert itf["#meta"]["modelcheck"]["specification"] == "NoFairSpec"
    code, text, _ = invoke("replay", "kip320", v["trace_file"])
    assert code == 13 and "The loop closes" in text and f"The lasso violates {prop}" in text
    assert text.lower().count("loop closes") == 1  # said once, by the lasso's own check
    code, text, _ = invoke("show", v["trace_file"])
    assert code == 0
    assert ("stutters forever from state" if stutters else f"back to state {v['loop_start'] + 1}") in text


def test_the_report_tells_the_lasso_and_why_it_is_fair(in_tmp):
    code, text, _ = invoke("run", "kip320", *TWO, "--prop", "QuorumIsrStabilizes", "--specification", "NoFairSpec")
    assert code == 13
    assert "Temporal property QuorumIsrStabilizes is violated under NoFairSpec" in text
    assert "-> back to state" in text and "NoFairSpec has no fairness condition" in text
    code, text, _ = invoke("run", "kip320", *TWO, "--prop", "WrittenLeadsToCommitted", "--engine", "fast")
    assert code == 13 and "It is a fair behaviour of Spec:" in text
    assert "weak fairness on BecomeLeader: not enabled" in text


NOTATION = ("_vars", "~>", "<>", "[]", "/\\", "\\A ", "step condition")


def test_reports_say_fairness_and_forms_in_words(in_tmp):
    code, text, _ = invoke("run", "kip320", *TWO, "--prop", "WrittenLeadsToCommitted", "--engine", "fast")
    assert code == 13 and not [n for n in NOTATION if n in text], text
    assert ("under       Spec (strong fairness on FencedLeaderIncHighWatermark, FencedLeaderExpandIsr, LeaderWrite; "
            "weak fairness on FencedBecomeFollowerAndTruncate, BecomeLeader)") in text
    assert "strong fairness on an action: if it is possible again and again, it eventually happens" in text
    assert "WrittenLeadsToCommitted fails: the first condition holds in state" in text
    assert "Its form, leads to: whenever its first condition holds, its second holds then or later." in text
    code, text, _ = invoke("run", "kip320", *TWO, "--prop", "QuorumIsrStabilizes", "--specification", "NoFairSpec")
    assert code == 13 and not [n for n in NOTATION if n in text], text
    assert "is of a kind the property rules out, and the cycle (states" in text


def lasso_file(in_tmp, prop="LeaderAdoptsItsRequest", specification="NoFairSpec"):
    code, out, _ = invoke_json("run", "kip320", *TWO, "--prop", prop, "--specification", specification)
    assert code == 13
    return in_tmp / out["violation"]["trace_file"]


def test_replay_rejects_a_lasso_that_is_unfair_under_the_specification(in_tmp):
    path = lasso_file(in_tmp)
    code, text, _ = invoke("replay", "kip320", str(path), "--specification", "Spec")
    assert code == 3 and "the cycle is not fair under Spec" in text
    assert "weak fairness on BecomeLeader: enabled on every state of the cycle and never taken" in text
    code, out, _ = invoke("replay", "kip320", str(path), "--specification", "Spec", "--json")
    become_leader = next(f for f in json.loads(out)["fairness"] if f["condition"] == "WF_vars(BecomeLeader)")
    assert become_leader["why"].startswith("weak fairness on BecomeLeader: enabled on every state")


def test_replay_rejects_a_loop_that_does_not_close(in_tmp):
    path = lasso_file(in_tmp, "QuorumIsrStabilizes")
    itf = json.loads(path.read_text())
    itf["loop"] = 0  # the last state does not step back to the initial state
    path.write_text(json.dumps(itf))
    code, text, _ = invoke("replay", "kip320", str(path), "--prop", "QuorumIsrStabilizes")
    assert code == 3 and "the loop does not close" in text


def test_replay_of_a_lasso_that_satisfies_the_property_exits_0(in_tmp):
    path = lasso_file(in_tmp)
    # no replica ever presumes leadership on it, so WritesWhenLed holds vacuously
    code, text, _ = invoke("replay", "kip320", str(path), "--prop", "WritesWhenLed")
    assert code == 0 and "it is no counterexample" in text


def test_a_cfg_names_the_specification_and_the_properties(in_tmp):
    (in_tmp / "live.cfg").write_text("CONSTANTS Replicas = {r1, r2}\nSPECIFICATION NoFairSpec\n"
                                     "PROPERTIES LeaderAdoptsItsRequest\n")
    code, out, _ = invoke_json("run", "kip320", "--config", "live.cfg", "--engine", "fast")
    assert code == 13 and out["specification"] == "NoFairSpec"
    assert out["violation"]["property"] == "LeaderAdoptsItsRequest"


def test_list_shows_properties_and_specifications_in_words():
    code, text, _ = invoke("list")
    assert code == 0 and not [n for n in NOTATION if n in text]
    assert "QuorumIsrStabilizes (eventually every step): From some point on, no step changes the quorum's ISR" in text
    assert "LeaderAdoptsItsRequest (for each r, leads to): A replica named leader" in text
    assert ("FairFetchSpec: strong fairness on FencedLeaderIncHighWatermark, FencedLeaderExpandIsr, LeaderWrite; "
            "weak fairness on FencedBecomeFollowerAndTruncate, BecomeLeader, FencedFollowerFetch") in text
    assert "weak fairness on an action: if it stays possible, it eventually happens" in text


def test_list_json_keeps_the_tla_notation():
    code, out, _ = invoke("list", "--json")
    kip320 = next(s for s in json.loads(out) if s["name"] == "kip320")
    assert kip320["properties"]["QuorumIsrStabilizes"].startswith("<>[][A]_vars: From some point on")
    assert kip320["properties"]["LeaderAdoptsItsRequest"].startswith("\\A r : P(r) ~> Q(r): A replica")
    assert kip320["specifications"]["FairFetchSpec"][-1] == "WF_vars(FencedFollowerFetch)"


def test_list_says_why_a_fairness_condition_names_an_action_outside_the_spec():
    """Kip320FirstTry's Spec, as upstream, is strongly fair to
    KafkaReplication's LeaderExpandIsr, which its Next never takes."""
    text = invoke("list")[1]
    first_try = text[text.index("kip320-first-try  ("):]
    first_try = first_try[:first_try.index("\n\n")]
    assert "strong fairness on ImprovedLeaderIncHighWatermark, LeaderExpandIsr, LeaderWrite" in first_try
    assert ("note:       LeaderExpandIsr is not among kip320-first-try's actions: the TLA+ module's specification "
            "names it, although its Next never takes it, so a step counts as taking LeaderExpandIsr when it changes "
            "the state as LeaderExpandIsr would") in first_try
    assert "LeaderExpandIsr is not among" not in text.replace(first_try, "")  # the others take theirs


@pytest.mark.parametrize("args, fragment", [
    (["--prop", "Nope"], "kip320 has no temporal property 'Nope'"),
    (["--prop", "EpochsConverge", "--specification", "Nope"], "kip320 has no specification 'Nope'"),
    (["--prop", "EpochsConverge", "--engine", "z3"], "checked by the bfs and fast engines, not z3"),
    (["--prop", "EpochsConverge", "--engine", "spark"], "checked by the bfs and fast engines, not spark"),
    (["--prop", "EpochsConverge", "--max-depth", "3"], "need the whole state graph"),
    (["--prop", "EpochsConverge", "--symmetry", "--engine", "spark"], "checked by the bfs and fast engines"),
])
def test_bad_temporal_input_is_one_line_and_exit_2(in_tmp, args, fragment):
    code, _, err = invoke("run", "kip320", *TWO, *args)
    assert code == 2 and fragment in one_error_line(err)


def test_a_cfg_symmetry_line_checks_each_case_under_the_renamings_that_leave_it_alone(in_tmp):
    (in_tmp / "sym.cfg").write_text("CONSTANTS Replicas = {r1, r2, r3}\nSYMMETRY Permutations(Replicas)\n"
                                    "PROPERTY EpochsConverge\nPROPERTY LeaderAdoptsItsRequest\n")
    code, text, _ = invoke("run", "kip320", "--config", "sym.cfg", "--engine", "fast", "--trace-out", "l.itf.json")
    assert code == 13, text
    assert "EpochsConverge decided on 123,311 orbits" in text and "under every renaming of {r1, r2, r3}" in text
    assert ("LeaderAdoptsItsRequest (r=r1) decided on 369,242 orbits" in text
            and "the renamings that fix r1 (those of {r2, r3})" in text)
    assert "LeaderAdoptsItsRequest (r=r2), LeaderAdoptsItsRequest (r=r3) follow by symmetry" in text
    code, text, _ = invoke("replay", "kip320", "l.itf.json", "--prop", "EpochsConverge")
    assert code == 13, text


def test_json_gives_each_propertys_verdict_under_symmetry(in_tmp):
    code, out, _ = invoke_json("run", "kip320", *TWO, "--symmetry", "--engine", "fast", "--prop", "EpochsConverge",
                               "--prop", "LeaderAdoptsItsRequest")
    assert code == 13 and out["symmetry"] is True and out["distinct_states"] == 2987
    assert out["property_verdicts"] == {"EpochsConverge": False, "LeaderAdoptsItsRequest": True}
    assert out["violation"]["property"] == "EpochsConverge"
    every, fixing = out["symmetry_groups"]
    assert every["fixed"] == 0 and every["cases"] == ["EpochsConverge"] and every["follow"] == []
    assert fixing["fixed"] is None and fixing["cases"] == ["LeaderAdoptsItsRequest (r=r1)"]
    assert fixing["follow"] == ["LeaderAdoptsItsRequest (r=r2)"] and "no renaming but the identity" in fixing["reason"]


def test_a_spec_without_properties_says_so(in_tmp):
    code, _, err = invoke("run", "kip101", *TWO, "--prop", "EpochsConverge")
    assert code == 2 and "its properties: none" in one_error_line(err)


@pytest.mark.parametrize("prop, loop, stutters", [("QuorumIsrStabilizes", 5, False),
                                                   ("LeaderAdoptsItsRequest", 5, True)])
def test_replay_accepts_tlcs_own_lassos(prop, loop, stutters):
    from support import ROOT
    from modelcheck.presentation.trace_read import read_trace_file
    path = f"{ROOT}/tests/fixtures/tlc/kip320-{prop}-NoFairSpec-lasso.json"
    doc = read_trace_file(path)
    assert (doc.loop, doc.stutters) == (loop, stutters)
    code, text, _ = invoke("replay", "kip320", path, *TWO, "--prop", prop, "--specification", "NoFairSpec")
    assert code == 13 and f"The lasso violates {prop}" in text
    code, text, _ = invoke("replay", "kip320", path, *TWO, "--prop", prop, "--specification", "Spec")
    assert code == 3 and "not fair under Spec" in text
