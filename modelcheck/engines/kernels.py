"""Which kernels the fast engine expands and checks states with.

``--kernels auto`` (the default) uses the model's C kernel
(``modelcheck.backends.compiled``), optimised by the C compiler, from the
kernel cache when it is there. When it is not:

* where TinyCC (``tcc``) is installed, a first kernel is built by it
  before the search, in well under a second for any spec, and the
  optimised build starts in the background, detached: it finishes and
  lands in the cache even when the search ends first, so later runs load
  it; a search still running when it lands takes it up between two levels;
* otherwise a small kernel (kip320's: ~170,000 characters of C, a second or
  two) is built before the search; a large one (the KRaft specs': seconds
  to minutes) is built detached in the same way, while the search starts on
  numpy and takes the compiled kernel up once it is there.

A detached build (``modelcheck.backends.builder``) runs at a
low priority in a session of its own, so that a Ctrl-C or SIGTERM that ends
the search does not end it; it is bounded in time, and no two builds ever
write one library (a lock per library, which the next run sees too).

``--kernels compiled`` builds (or waits for) the optimised kernel before
the search starts; ``--kernels numpy`` keeps the numpy kernel, the
reference the compiled ones are tested against. Every choice finds the same
successors in the same order, so the choice changes only the speed.

Where no kernel can be had (no C compiler, a compiler error, a full or
unwritable kernel cache), the search runs on numpy and says so on stderr in
one line, once per process: the answer is the same, only slower. A cached
kernel is loaded only once checked (``modelcheck.backends.native``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable

from modelcheck.runtime.limits import INTERRUPTED, SearchStopped

from modelcheck.backends.compiled import (CompiledKernel, LibraryUnavailable, compile_kernel, default_workers,
                                          is_building, is_built, kernel_source_of, start_build)
from modelcheck.backends.native import fall_back, quick_compiler

AUTO, COMPILED, NUMPY = "auto", "compiled", "numpy"
KERNELS = (AUTO, COMPILED, NUMPY)
BUILD_FIRST_BELOW = 400_000  # characters of C: without tcc, a smaller kernel is built before the search
POLL_BUILT = 0.25  # seconds between two looks in the cache for the kernel built in the background


def _told_line(compiled: CompiledKernel, background: bool = False) -> str:
    if background:
        return (f"took up the optimised C kernel built beside the search ({compiled.built.path}), "
                "from the next level on")
    how = "loaded the compiled kernels from" if compiled.built.cached else "compiled the kernels into"
    by = " with tcc (the optimised kernel is being built in the background, for later runs)" if compiled.quick else ""
    return f"{how} {compiled.built.path} in {compiled.built.seconds:.2f} s{by}"


@dataclass
class KernelChoice:
    """The compiled kernel, or None for numpy, and a line saying how it was
    obtained (for the progress stream: the report stays the same either
    way). ``pending``: the make of the optimised kernel being built in the
    background, which the search takes up (``ready``) once it is cached."""

    compiled: CompiledKernel | None
    told: str | None = None
    pending: object = None  # () -> CompiledKernel, loading the optimised kernel once it is cached
    source: str | None = None
    built_before: float | None = None  # seconds the kernel the search started on took to build, if it was built
    taken_up: float | None = None  # the search's seconds when it took up the background build
    _looked: float = -1e9

    def built_here(self) -> str | None:
        """When a kernel was built in this run: how long it took and how,
        before the search; and whether the optimised one, built beside the
        search, was taken up; else None."""
        parts = []
        if self.built_before is not None:
            quick = " with tcc" if self.compiled is not None and self.compiled.quick else ""
            parts.append(f"{self.built_before:.2f} s{quick}, before the search")
        if self.taken_up is not None:
            parts.append(f"the optimised one built beside the search, taken up at {self.taken_up:.2f} s")
        return "; ".join(parts) or None

    def ready(self, searched: float) -> CompiledKernel | None:
        """The optimised kernel built in the background, once it is in the
        cache (None until then, and always without ``pending``); looked for
        every ``POLL_BUILT`` seconds of a search that has run ``searched``."""
        if self.pending is None or searched - self._looked < POLL_BUILT:
            return None
        self._looked = searched
        if not is_built(self.source):
            return None
        make, self.pending = self.pending, None
        try:
            found = make()
        except LibraryUnavailable as e:
            fall_back(str(e), "the optimised kernel", "the search goes on as it began")
            return None
        if self.compiled is not None:
            self.compiled.close()
        self.compiled, self.told, self.taken_up = found, _told_line(found, background=True), searched
        return found

    def close(self) -> None:
        """Free the kernel's threads. A build in the background goes on, and
        lands in the cache for later runs."""
        if self.compiled is not None:
            self.compiled.close()


POLL_SECONDS = 0.1  # how often a stop request is looked for while the kernel's source is generated


def generated_source(model, packing, predicate_names: list[str], stopped: Callable[[], bool] | None = None) -> str:
    """The kernel's C source. Generating it takes seconds on a wide spec (the
    KRaft .cfg's: over ten), before the search can poll for Ctrl-C; so it is
    generated on a thread of its own while this one looks for a stop request
    (``stopped``), and raises ``SearchStopped(INTERRUPTED)`` at once when
    there is one. The abandoned generation ends with the process."""
    if stopped is None:
        return kernel_source_of(model, packing, predicate_names)
    out: list = []

    def generate() -> None:
        try:
            out.append(kernel_source_of(model, packing, predicate_names))
        except BaseException as e:  # handed to the waiting thread, which raises it
            out.append(e)

    thread = threading.Thread(target=generate, name="modelcheck-kernel-source", daemon=True)
    thread.start()
    while thread.is_alive():
        if stopped():
            raise SearchStopped(INTERRUPTED)
        thread.join(POLL_SECONDS)
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


BUILDING = "modelcheck: building the C kernel for these constants (first run only: later runs load it from the cache)"
BUILDING_QUICK = ("modelcheck: building the C kernel for these constants with tcc; the optimised one is built in "
                  "the background, and later runs load it from the cache")
WAITING = "modelcheck: waiting for the C kernel's build, under way since an earlier run"


def choose(model, packing, predicate_names: list[str], kernels: str, workers: int | None,
           stopped: Callable[[], bool] | None = None, progress=None) -> KernelChoice:
    """The kernels the settings ask for, falling back to numpy when compiling
    fails; ``stopped``: whether a stop was requested (see ``generated_source``).
    ``progress`` (a ``modelcheck.runtime.progress.Progress``) says what is
    being done, and announces a build before the search waits for it."""
    if kernels == NUMPY:
        return KernelChoice(None)

    if progress is not None:
        progress.status("generating the C kernel's source")
    source = generated_source(model, packing, predicate_names, stopped)
    workers = workers or default_workers()

    def make(quick: bool = False) -> CompiledKernel:
        return compile_kernel(model, packing, predicate_names, workers, source=source, quick=quick)

    def say(line: str, announce: bool = False) -> None:
        if progress is not None:
            (progress.announce if announce else progress.status)(line)

    try:
        cached = is_built(source)
        if kernels == AUTO and not cached:
            quick = quick_compiler() is not None
            if quick or len(source) > BUILD_FIRST_BELOW:
                return _beside(make, source, quick, say)
        if cached:
            say("loading the C kernel from the cache")
        else:
            say(WAITING if is_building(source) else BUILDING, announce=True)
        compiled = make()
    except LibraryUnavailable as e:
        fall_back(str(e))
        return KernelChoice(None)
    return KernelChoice(compiled, _told_line(compiled), built_before=None if compiled.built.cached
                        else compiled.built.seconds)


def _beside(make, source: str, quick: bool, say) -> KernelChoice:
    """The optimised kernel's build started in the background; the search
    begins on tcc's kernel (``quick``), else on numpy."""
    try:
        started, _ = start_build(source)
    except LibraryUnavailable as e:
        fall_back(str(e), "the optimised kernel's build", "the search goes on without it")
        started = None
    waiting = started in ("started", "building")
    if started not in (None, "started", "building", "cached", "temporary"):  # it failed in an earlier run
        fall_back(f"its build failed: {started}", "the optimised kernel", "later runs will not try it again")
    pending = make if waiting or started == "cached" else None
    if not quick:
        return KernelChoice(None, pending=pending, source=source)
    say(BUILDING_QUICK, announce=True)
    try:
        compiled = make(quick=True)
    except LibraryUnavailable as e:
        fall_back(str(e), "the tcc kernel")
        return KernelChoice(None, pending=pending, source=source)
    return KernelChoice(compiled, _told_line(compiled), pending=pending, source=source,
                        built_before=None if compiled.built.cached else compiled.built.seconds)
