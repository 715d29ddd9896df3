"""The digest of a model's definition: the same code gives the same digest
in every process; any change an engine would see changes it."""

import dataclasses
import os
import subprocess
import sys

from modelcheck.language.digest import TreeDigests
from modelcheck.language.expr import add, and_, eq, var
from modelcheck.specs import get_spec
from support import ROOT


def digest(name: str, spec=None, **consts) -> str:
    spec = spec or get_spec(name)
    return spec.instantiate(spec.resolve_constants({k: str(v) for k, v in consts.items()})).definition_digest()


def test_a_tree_digest_depends_on_structure_not_on_sharing():
    x = add(var(0), 1)
    shared = and_(eq(x, 2), eq(x, 3))
    apart = and_(eq(add(var(0), 1), 2), eq(add(var(0), 1), 3))
    trees = TreeDigests()
    assert trees.of(shared) == trees.of(apart)
    assert trees.of(shared) != trees.of(and_(eq(x, 3), eq(x, 2)))
    assert trees.of(add(var(0), 1)) != trees.of(add(var(1), 1))


def test_a_deep_tree_is_digested_without_recursion_limits():
    deep = var(0)
    for k in range(50_000):
        deep = add(deep, var(k % 7))
    assert TreeDigests().of(deep) == TreeDigests()._iterative(deep)


def test_the_same_code_gives_the_same_digest_in_another_process():
    here = digest("kip320", Replicas=2)
    assert digest("kip320", Replicas=2) == here
    code = ("from modelcheck.specs import get_spec; s = get_spec('kip320'); "
            "print(s.instantiate(s.resolve_constants({'Replicas': '2'})).definition_digest())")
    for seed in ("1", "2"):  # string hashing differs from process to process
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                              env=dict(os.environ, PYTHONHASHSEED=seed))
        assert done.stdout.strip() == here, done.stderr


def test_any_change_an_engine_sees_changes_the_digest():
    spec = get_spec("kip320")
    base = digest("kip320", Replicas=2)
    dropped = dataclasses.replace(spec, next=tuple(a for a in spec.next if a.name != "FencedLeaderShrinkIsr"))
    reordered = dataclasses.replace(spec, next=tuple(reversed(spec.next)))
    fewer_invariants = dataclasses.replace(spec, invariants=spec.invariants[:-1])
    changed = {digest("kip320", dropped, Replicas=2), digest("kip320", reordered, Replicas=2),
               digest("kip320", fewer_invariants, Replicas=2), digest("kip320", Replicas=3),
               digest("kip320", Replicas=2, MaxLeaderEpoch=1)}
    assert base not in changed and len(changed) == 5
