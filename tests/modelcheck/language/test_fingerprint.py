import subprocess
import sys

from support import ROOT, model
from modelcheck.language.fingerprint import fingerprinter

SCRIPT = ("import sys; sys.path.insert(0, %r)\n"
          "from specs import get_spec\n"
          "from modelcheck.language.fingerprint import fingerprinter\n"
          "spec = get_spec('kip320'); m = spec.instantiate(spec.resolve_constants({}))\n"
          "print(fingerprinter(m.schema)(m.init_states[0]))\n") % ROOT


def test_fingerprints_do_not_depend_on_the_process():
    here = fingerprinter(model("kip320").schema)(model("kip320").init_states[0])
    for seed in ("0", "12345"):
        out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                             env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"}, check=True)
        assert int(out.stdout) == here


def test_distinct_states_get_distinct_fingerprints():
    m = model("kip320", Replicas=2)
    fp = fingerprinter(m.schema)
    succ = [t for _, t in m.successors(m.init_states[0])]
    assert len({fp(t) for t in succ}) == len(set(succ))


def test_the_chance_that_two_states_share_a_fingerprint():
    import pytest
    from modelcheck.language.fingerprint import pair_collision_probability
    assert pair_collision_probability(737_794) == pytest.approx(737_794 * 737_793 / 2 ** 65)
    assert pair_collision_probability(1_156_884_796) == pytest.approx(0.0356, abs=1e-4)  # kraft-3.5's .cfg
    assert pair_collision_probability(5_000_000_000) == pytest.approx(0.49, abs=0.01)
    assert pair_collision_probability(1_156_884_796, bits=128) == pytest.approx(1.97e-21, rel=0.01)
    assert pair_collision_probability(1) == pair_collision_probability(0) == 0.0
