"""Which kernels the fast engine expands and checks states with.

``--kernels compiled`` (the default) builds the model's C kernel
(``modelcheck.backends.compiled``) and runs it on ``--workers`` threads;
``--kernels numpy`` keeps the numpy kernel, the reference the compiled one
is tested against. Both find the same successors in the same order, so the
choice changes only the speed.

Where no C compiler works, the search falls back to numpy and says so on
stderr, once per process: the answer is the same, only slower.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from modelcheck.backends.compiled import CompiledKernel, CompilerUnavailable, compile_kernel, default_workers

COMPILED, NUMPY = "compiled", "numpy"
KERNELS = (COMPILED, NUMPY)

_told: set[str] = set()  # fallback reasons already said in this process


@dataclass
class KernelChoice:
    """The compiled kernel, or None for numpy, and a line saying how it was
    obtained (for the progress stream: the report stays the same either way)."""

    compiled: CompiledKernel | None
    told: str | None = None

    def close(self) -> None:
        if self.compiled is not None:
            self.compiled.close()


def fall_back(reason: str) -> None:
    """Say once per process that the search runs on numpy, and why."""
    if reason not in _told:
        _told.add(reason)
        sys.stderr.write(f"modelcheck: compiled kernels unavailable ({reason}); searching with numpy\n")


def choose(model, packing, predicate_names: list[str], kernels: str, workers: int | None) -> KernelChoice:
    """The kernels the settings ask for, falling back to numpy when compiling fails."""
    if kernels == NUMPY:
        return KernelChoice(None)
    try:
        compiled = compile_kernel(model, packing, predicate_names, workers or default_workers())
    except CompilerUnavailable as e:
        fall_back(str(e))
        return KernelChoice(None)
    how = "loaded the compiled kernels from" if compiled.built.cached else "compiled the kernels into"
    return KernelChoice(compiled, f"{how} {compiled.built.path} in {compiled.built.seconds:.2f} s")
