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
