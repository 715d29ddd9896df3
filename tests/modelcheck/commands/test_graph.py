import networkx as nx
import pytest

from support import model
from modelcheck.commands.graph import TooManyStates, analyse, build_state_graph, write_graph


def test_graph_has_the_same_states_as_the_search():
    g = build_state_graph(model("kip320", Replicas=2), max_states=10_000)
    assert g.number_of_nodes() == 5973
    assert all("label" in d for _, d in g.nodes(data=True))
    assert all(d["action"] and d["label"] for _, _, d in g.edges(data=True))


def test_states_are_labelled_in_the_viewers_notation():
    g = build_state_graph(model("kip320", Replicas=2), max_states=10_000, max_depth=2)
    initial = [d["label"] for _, d in g.nodes(data=True) if d["initial"]]
    assert initial == ["r1: leader NONE · epoch -1 · hw 0 · isr {} · log | _ _; "
                       "r2: leader NONE · epoch -1 · hw 0 · isr {} · log | _ _; "
                       "quorum: leader NONE · epoch -1 · isr {r1, r2}; "
                       "counters: nextRecordId 0 · nextLeaderEpoch 0"]
    labels = [d["label"] for _, d in g.nodes(data=True)]
    assert ("r1: leader NONE · epoch -1 · hw 0 · isr {} · log | _ _; "
            "r2: leader NONE · epoch -1 · hw 0 · isr {} · log | _ _; "
            "quorum: leader r1 · epoch 0 · isr {r1, r2}; "
            "request epoch 0: leader r1 · isr {r1, r2} · pending for r1, r2; "
            "counters: nextRecordId 0 · nextLeaderEpoch 1") in labels


def test_analysis_of_the_one_replica_model():
    g = build_state_graph(model("kip320", Replicas=1, LogSize=1, MaxRecords=1, MaxLeaderEpoch=0), 100)
    report = analyse(g)
    # the empty-ISR shrink and the final committed state have no successor
    assert (report.nodes, report.edges, len(report.deadlocks)) == (6, 5, 2)
    assert report.components == 6 and report.cyclic_components == 0


def test_refuses_above_the_bound():
    with pytest.raises(TooManyStates):
        build_state_graph(model("kip320"), max_states=500)


def test_depth_cut_is_not_mistaken_for_deadlock():
    g = build_state_graph(model("kip320", Replicas=2), 10_000, max_depth=3)
    assert not g.graph["complete"]
    assert analyse(g).deadlocks == []


@pytest.mark.parametrize("ext", [".dot", ".graphml"])
def test_export_reads_back(tmp_path, ext):
    g = build_state_graph(model("kip320", Replicas=1, LogSize=1, MaxRecords=1, MaxLeaderEpoch=0), 100)
    path = tmp_path / f"g{ext}"
    write_graph(g, str(path))
    back = nx.read_graphml(path) if ext == ".graphml" else nx.nx_pydot.read_dot(path)
    assert back.number_of_nodes() == 6
