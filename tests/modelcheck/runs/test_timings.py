"""Where a run's time goes: the report's time is the search's own, a C
kernel built for new constants is told apart, and the model is built once
per command."""

import shutil

import pytest

from support import invoke, invoke_json
from modelcheck.engines.kernels import BUILDING, BUILDING_QUICK
from modelcheck.model.spec import SpecDefinition


def test_json_gives_the_four_timings_and_seconds_is_the_search_s():
    code, out, _ = invoke_json("run", "kip320", "--const", "Replicas=2")
    timings = out["timings"]
    assert code == 0 and list(timings) == ["startup", "model", "kernel", "search"]
    assert all(t >= 0 for t in timings.values()) and timings["search"] == out["seconds"]
    assert timings["startup"] > 0 and timings["model"] > 0


def test_a_kernel_built_for_new_constants_is_said_before_and_reported_apart(monkeypatch, tmp_path):
    monkeypatch.setenv("MODELCHECK_KERNEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MODELCHECK_QUICK_CC", "none")
    args = ("run", "kip320", "--const", "Replicas=2", "--const", "MaxLeaderEpoch=1")
    code, text, err = invoke(*args)
    assert code == 0 and err == BUILDING + "\n"
    built = next(line for line in text.splitlines() if line.startswith("  kernel build"))
    assert built.endswith("s, before the search (a C kernel for these constants, built once: later runs load it "
                          "from the cache)")
    code, out, err = invoke_json(*args)  # the second run loads it
    assert err == "" and out["kernel_build"] is None
    assert "kernel build" not in invoke(*args)[1]


def test_the_first_run_s_json_keeps_the_build_out_of_the_search(monkeypatch, tmp_path):
    monkeypatch.setenv("MODELCHECK_KERNEL_CACHE", str(tmp_path / "cache"))
    code, out, err = invoke_json("run", "kip320", "--const", "Replicas=2", "--const", "MaxLeaderEpoch=1")
    build = float(out["kernel_build"].split(" s")[0])
    assert out["timings"]["kernel"] >= build > 0 and out["seconds"] == out["timings"]["search"]


@pytest.mark.skipif(shutil.which("tcc") is None, reason="tcc is not installed")
def test_with_tcc_the_first_run_says_so_and_the_optimised_kernel_lands_for_the_next(monkeypatch, tmp_path):
    monkeypatch.setenv("MODELCHECK_KERNEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MODELCHECK_QUICK_CC", "tcc")
    args = ("run", "kip320", "--const", "Replicas=2", "--const", "MaxLeaderEpoch=1")
    code, text, err = invoke(*args)
    assert code == 0 and err == BUILDING_QUICK + "\n"
    built = next(line for line in text.splitlines() if line.startswith("  kernel build"))
    assert " s with tcc, before the search" in built
    import time
    deadline = time.monotonic() + 120
    while len(list((tmp_path / "cache").glob("kernel_*.so"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    while list((tmp_path / "cache").glob(".build-*")) and time.monotonic() < deadline:
        time.sleep(0.1)
    code, out, err = invoke_json(*args)  # the second run loads the optimised one
    assert err == "" and out["kernel_build"] is None
    assert len(list((tmp_path / "cache").glob("kernel_*.so"))) == 2


@pytest.fixture
def instantiations(monkeypatch):
    made = []
    original = SpecDefinition.instantiate

    def counting(self, constants, view=None):
        made.append(self.name)
        return original(self, constants, view)
    monkeypatch.setattr(SpecDefinition, "instantiate", counting)
    return made


def test_a_counterexample_is_told_with_the_run_s_own_model(in_tmp, instantiations):
    code, text, _ = invoke("run", "kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr")
    assert code == 12 and "State 13: FollowerTruncate" in text
    assert instantiations == ["kip320-first-try"]


def test_a_lasso_is_told_with_the_run_s_own_model(in_tmp, instantiations):
    code, text, _ = invoke("run", "kip320", "--const", "Replicas=2", "--prop", "QuorumIsrStabilizes",
                           "--specification", "NoFairSpec")
    assert code == 13 and "State 1: Init" in text
    assert instantiations == ["kip320"]
