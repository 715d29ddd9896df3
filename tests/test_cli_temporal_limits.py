"""Temporal properties under the limits of a safety search: the state graph
is recorded by the engine's own search, so --max-states, --max-memory and
Ctrl-C stop it as they stop any search, with a report that says there is no
verdict on a graph cut short."""

import json

import pytest

from support import interrupt, invoke, invoke_json

TWO = ("--const", "Replicas=2")
PROP = ("--prop", "LeaderAdoptsItsRequest")


@pytest.mark.parametrize("engine", ["bfs", "fast"])
def test_max_states_stops_a_temporal_run_where_it_stops_a_safety_run(in_tmp, engine):
    code, out, _ = invoke_json("run", "kip320", *TWO, *PROP, "--max-states", "1000", "--engine", engine)
    _, safety, _ = invoke_json("run", "kip320", *TWO, "--max-states", "1000", "--engine", engine)
    assert code == 0 and (out["result"], out["stopped"], out["violation"]) == ("bounded-ok", "max-states", None)
    assert (out["distinct_states"], out["depth"]) == (safety["distinct_states"], safety["depth"])
    assert 1000 <= out["distinct_states"] < 5973 and out["properties"] == ["LeaderAdoptsItsRequest"]


def test_the_report_says_a_graph_cut_short_gives_no_verdict(in_tmp):
    code, text, _ = invoke("run", "kip320", *TWO, *PROP, "--max-states", "1000")
    assert code == 0
    assert "Stopped at --max-states 1,000 before the search was complete" in text
    assert "no verdict on LeaderAdoptsItsRequest" in text and "holds" not in text


def test_max_memory_stops_a_temporal_run(in_tmp):
    code, out, _ = invoke_json("run", "kip320", *TWO, *PROP, "--max-memory", "16M")
    assert code == 0 and (out["result"], out["stopped"]) == ("bounded-ok", "max-memory")
    assert out["distinct_states"] < 5973


@pytest.mark.parametrize("engine", ["bfs", "fast"])
def test_ctrl_c_during_a_temporal_run_gives_the_partial_report(in_tmp, engine):
    r = interrupt("run", "kip320", *PROP, "--engine", engine, "--json", cwd=in_tmp,
                  marker=r"depth \d+ · [\d,]+ states")
    assert r.code == 130, r.terminal
    report = json.loads(r.stdout)
    assert (report["result"], report["stopped"], report["violation"]) == ("bounded-ok", "interrupted", None)
    assert 0 < report["distinct_states"] < 737794 and report["properties"] == ["LeaderAdoptsItsRequest"]
    assert "Traceback" not in r.terminal


def test_an_invariant_broken_first_is_reported_and_the_properties_are_not_decided(in_tmp):
    # LeaderInIsr fails in the initial state, where there is no leader
    code, out, _ = invoke_json("run", "kip320", *TWO, "--inv", "LeaderInIsr", *PROP)
    assert code == 12 and out["violation"]["invariant"] == "LeaderInIsr"
    assert (out["violation"]["trace_length"], out["distinct_states"]) == (1, 1)
