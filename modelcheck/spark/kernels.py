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
import threading
import time
from functools import lru_cache
from typing import Any, NamedTuple

from modelcheck.backends.compiled import CompiledKernel, compile_kernel, kernel_source_of
from modelcheck.backends.native import LibraryUnavailable
from modelcheck.language.packing import Packing
from modelcheck.loading.registry import load_model
from modelcheck.search.expansion import Expander

class KernelPlan(NamedTuple):
    """What an executor needs to load a run's C kernel."""

    names: tuple[str, ...]  # the predicates compiled in: the invariants, then the reachability checks
    digest: str  # names the source: a worker keeps one kernel per (model, names, digest)
    source: Any  # the C source, as a Spark broadcast (``.value``) or, in the driver, as text


# per Python worker: Spark reuses a worker for the tasks of every level
_loaded: dict[tuple, tuple[CompiledKernel | None, str]] = {}


def source_text(plan: KernelPlan) -> str:
    return plan.source if isinstance(plan.source, str) else plan.source.value


def load(model, model_key: tuple, plan: KernelPlan, packing: Packing) -> tuple[CompiledKernel | None, str]:
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


# --- what an executor builds once per model (Python workers are reused) ----------

@lru_cache(maxsize=8)
def numpy_expander(model_key: tuple, check_deadlock: bool, symmetric: bool = False, bits: int = 64) -> Expander:
    """The fast engine's expander on numpy, fingerprinting with ``bits``;
    under symmetry every successor it returns is already its orbit's
    representative, as in the fast engine."""
    model = load_model(model_key)
    return Expander(model, check_deadlock, canonical=canonicaliser(model_key) if symmetric else None,
                    packing=Packing(model.schema, bits))


_compiled_expanders: dict[tuple, Expander] = {}


class Kernels(NamedTuple):
    """What a task expands and checks states with."""

    expand: Expander
    check: object  # packed words -> {predicate name: values}
    numpy_because: str  # why numpy, though the run has a C kernel ("" otherwise)
    compiled: bool = False


def kernels_for(config, names: tuple[str, ...]) -> Kernels:
    """The task's expander and predicates ``names``: on the run's C kernel
    when the config names one and this worker has it, else on numpy."""
    base = numpy_expander(config.model_key, config.check_deadlock, config.symmetric, config.fingerprint_bits)
    compiled, why = (None, "") if config.kernel is None else load(base.model, config.model_key, config.kernel,
                                                                  base.packing)
    if compiled is None:
        return Kernels(base, predicates_of(None, predicates(config.model_key, names), base.packing), why)
    key = (config.model_key, config.check_deadlock, config.symmetric, config.kernel.digest)
    if key not in _compiled_expanders:
        _compiled_expanders[key] = Expander(base.model, config.check_deadlock, canonical=base.canonical,
                                            compiled=compiled, packing=base.packing)
    return Kernels(_compiled_expanders[key], compiled.predicates, "", True)


@lru_cache(maxsize=8)
def canonicaliser(model_key: tuple):
    from modelcheck.search.canonical import Canonicaliser
    return Canonicaliser(load_model(model_key), workers=1)  # Spark runs the tasks side by side already


@lru_cache(maxsize=8)
def predicates(model_key: tuple, names: tuple[str, ...]):
    from modelcheck.backends.numpy_codegen import compile_numpy
    return compile_numpy(load_model(model_key), list(names)).predicates



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


class DriverKernel:
    """The run's C kernel, as the driver has it: built (or loaded from its
    cache) before the search with ``--kernels compiled``, on a thread of its
    own beside the first levels with ``auto`` (levels on numpy until then),
    never with ``numpy``. Executors on this machine then load it from the
    cache; others build it from the source the driver broadcasts."""

    def __init__(self, model, names: tuple[str, ...], setting: str, bits: int, source_of):
        # source_of(model, packing, names, stopped): the kernel's C, generated while Ctrl-C is listened for
        self.model, self.names, self.setting, self.bits, self.source_of = model, names, setting, bits, source_of
        self._plan = None
        self._why_not: str | None = None
        self._seconds = 0.0
        self._thread: threading.Thread | None = None

    def start(self, stopped) -> None:
        if self.setting == "numpy":
            return
        if self.setting == "compiled":  # before the search, Ctrl-C heard while the source is generated
            packing = Packing(self.model.schema, self.bits)
            self._build(self.source_of(self.model, packing, list(self.names), stopped))
            return
        self._thread = threading.Thread(target=self._build, name="modelcheck-spark-kernel", daemon=True)
        self._thread.start()

    def _build(self, source: str | None = None) -> None:
        started = time.perf_counter()
        packing = Packing(self.model.schema, self.bits)
        try:
            if source is None:
                source = kernel_source_of(self.model, packing, list(self.names))
            compiled = compile_kernel(self.model, packing, list(self.names), workers=1, source=source)
        except LibraryUnavailable as e:
            self._why_not = str(e)
            return
        built = plan(self.names, source)
        adopt(self.model.key(), built, compiled)
        self._seconds = time.perf_counter() - started
        self._plan = built

    def plan(self):
        """The kernel's plan once it is built, else None."""
        return self._plan

    def notes(self, on_executors: bool, compiled_from: int | None) -> list[str]:
        """What the report says of the kernels: which levels ran on C."""
        if self.setting == "numpy":
            return []
        if self._why_not is not None:
            return [f"the levels ran on numpy: the C kernel is unavailable ({self._why_not})"]
        if self._plan is None:
            return ["the search ended before the C kernel was built: every level ran on numpy"]
        if on_executors and compiled_from is not None:
            built = f", built in {self._seconds:.1f} s" if self._seconds >= 0.5 else ""
            since = "every level" if compiled_from == 1 else f"levels {compiled_from} on"
            return [f"the executors expanded {since} with the C kernel{built}"]
        return []
