"""The executors' kernels: the fast engine's C kernel, or numpy.

The driver generates the model's kernel source once, the same C the fast
engine compiles (every action instance, and the run's invariants and
reachability checks), and builds it into its own kernel cache
(``modelcheck.backends.native``: checked before it is loaded, built again
if damaged). It sends the source to the executors as a Spark broadcast:
Spark's own channel, not the shared checkpoint directory, which others may
be able to write. A Python worker then loads the library from its user's
cache (on the driver's machine the driver has just built it there) or
builds it once into that cache, and keeps it for every later task of the
run (``compiled``). A worker that cannot build or load it (no compiler, a
compiler error, a cache it cannot write) expands with numpy, which finds the
same successors; its level summaries say why, and the driver says so once.

Which successors a kernel finds first differs (the C kernel gives them in
discovery order, numpy by fingerprint), but the steps keep, for each
state, the smallest (parent, action) or, under a VIEW, the smallest order
key, so the levels, runs and traces are the same on either, and a run may
switch to C between two levels.
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from modelcheck.backends.compiled import CompiledKernel, compile_kernel
from modelcheck.backends.native import LibraryUnavailable
from modelcheck.language.packing import Packing

class KernelPlan(NamedTuple):
    """What an executor needs to load a run's C kernel."""

    names: tuple[str, ...]  # the predicates compiled in: the invariants, then the reachability checks
    digest: str  # names the source: a worker keeps one kernel per (model, names, digest)
    source: Any  # the C source, as a Spark broadcast (``.value``) or, in the driver, as text


# per Python worker: Spark reuses a worker for the tasks of every level
_loaded: dict[tuple, tuple[CompiledKernel | None, str]] = {}


def source_text(plan: KernelPlan) -> str:
    return plan.source if isinstance(plan.source, str) else plan.source.value


def compiled(model, model_key: tuple, plan: KernelPlan, packing: Packing) -> tuple[CompiledKernel | None, str]:
    """The run's C kernel in this worker (its states packed and fingerprinted
    as ``packing`` says), and "" — or None and why not."""
    key = (model_key, plan.names, plan.digest)
    if key not in _loaded:
        try:
            kernel = compile_kernel(model, packing, list(plan.names), workers=1, source=source_text(plan))
            _loaded[key] = (kernel, "")
        except LibraryUnavailable as e:
            _loaded[key] = (None, str(e))
    return _loaded[key]


def adopt(model_key: tuple, plan: KernelPlan, kernel: CompiledKernel) -> None:
    """The driver's own kernel, for the levels it runs itself (the lead-in)."""
    _loaded[(model_key, plan.names, plan.digest)] = (kernel, "")


def predicates_of(kernel: CompiledKernel | None, numpy_predicates, packing: Packing):
    """Packed words -> each predicate's values, by name, from C or numpy."""
    if kernel is not None:
        return kernel.predicates
    return lambda words: numpy_predicates(packing.unpack(words))


def plan(names: tuple[str, ...], source: str) -> KernelPlan:
    """The plan of a kernel built from ``source`` (whose source the caller
    may later replace by a broadcast of it)."""
    return KernelPlan(names, hashlib.sha256(source.encode()).hexdigest()[:32], source)
