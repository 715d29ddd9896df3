"""Liveness with and without symmetry, on one engine: the same verdicts.

For each specification, every Kip320Live property is checked twice on the
chosen engine: on the quotient by the renamings that leave each case alone
(``--symmetry``), and on the whole state graph. The verdicts must be equal
and every lasso of the quotient, lifted, must be a fair, violating
behaviour of the spec itself; the script stops with exit 1 otherwise. It
prints the verdicts and the seconds both checks took together.

The tests run this comparison at 2 replicas on both explicit engines and
at 3 on the fast one; the reference engine at 3 replicas under `Spec` and
`FairFetchSpec` takes minutes, so it lives here:

    python bench/bench_liveness_agreement.py [--engine bfs] [--replicas 3]
        [--specification Spec --specification FairFetchSpec]
"""

from __future__ import annotations

import argparse
import sys
import time

from common import ROOT, machine

sys.path.insert(0, ROOT)

from modelcheck.capabilities.liveness.check import check_liveness  # noqa: E402
from modelcheck.capabilities.liveness.lasso import LassoShape, is_fair, violates  # noqa: E402
from modelcheck.capabilities.liveness.symmetric import check_symmetric  # noqa: E402
from modelcheck.runtime.progress import Silent  # noqa: E402
from modelcheck.specs import get_spec  # noqa: E402


def lifted_lassos_are_genuine(m, result, specification) -> bool:
    """Every lifted lasso starts in Init, takes a step of its recorded action
    at each state, closes its loop, and is fair and violating."""
    for v in result.verdicts:
        if v.lasso is None:
            continue
        states, actions = v.lifted.states, v.lifted.instance.tolist()
        steps = list(zip(states, states[1:], actions))
        if not v.lasso.stutters:
            steps.append((states[-1], states[v.lasso.loop], actions[-1]))
        shape = LassoShape(states, v.lasso.loop, v.lasso.stutters)
        if not (states[0] in m.init_states and all((i, t) in m.successors(s) for s, t, i in steps)
                and is_fair(m, specification, shape) and violates(m, v.case, shape)):
            print(f"  lifted lasso of {v.case.label} is not a fair violating behaviour", flush=True)
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default="bfs", choices=("bfs", "fast"))
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--specification", action="append")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    spec = get_spec("kip320")
    m = spec.instantiate(spec.resolve_constants({"Replicas": str(args.replicas)}))
    names = spec.property_names()
    agree = True
    for name in args.specification or ("Spec", "NoFairSpec", "FairFetchSpec"):
        specification = spec.specification(name)
        started = time.monotonic()
        reduced = check_symmetric(m, args.engine, names, specification, Silent())
        full = check_liveness(m, args.engine, names, specification, Silent()).property_verdicts()
        seconds = time.monotonic() - started
        same = reduced.property_verdicts() == full and lifted_lassos_are_genuine(m, reduced, specification)
        agree = agree and same
        holding = sorted(p for p, ok in full.items() if ok)
        print(f"{name}, {args.engine}, {args.replicas} replicas: "
              f"{'same verdicts' if same else 'DIFFERENT VERDICTS'} with and without symmetry "
              f"({seconds:.1f} s); holding: {', '.join(holding) or 'none'}", flush=True)
    sys.exit(0 if agree else 1)


if __name__ == "__main__":
    main()
