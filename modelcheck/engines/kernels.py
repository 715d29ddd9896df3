"""Which kernels the fast engine expands and checks states with.

``--kernels auto`` (the default) uses the model's C kernel
(``modelcheck.backends.compiled``), built before the search starts when it
is small (about a second, once: later runs load it from the kernel cache)
or found in the cache. A large kernel (the KRaft specs', several seconds of
compiling) that is not in the cache is built beside the search instead: the
search starts on numpy, and if it is still running after ``BUILD_AFTER``
seconds the compiler builds the kernel on a thread of its own; the search
takes the compiled kernel up between two levels once it is built. A short
search so never waits for the compiler, and a long one is not held up by it.

``--kernels compiled`` builds the kernel before the search starts;
``--kernels numpy`` keeps the numpy kernel, the reference the compiled one
is tested against. Every choice finds the same successors in the same
order, so the choice changes only the speed.

Where no kernel can be had (no C compiler, a compiler error, a full or
unwritable kernel cache), the search runs on numpy and says so on stderr in
one line, once per process: the answer is the same, only slower. A cached
kernel is loaded only once checked (``modelcheck.backends.native``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

from modelcheck.runtime.limits import INTERRUPTED, SearchStopped

from modelcheck.backends.compiled import (CompiledKernel, LibraryUnavailable, compile_kernel, default_workers,
                                          is_built, kernel_source_of)
from modelcheck.backends.native import fall_back

AUTO, COMPILED, NUMPY = "auto", "compiled", "numpy"
KERNELS = (AUTO, COMPILED, NUMPY)
BUILD_AFTER = 1.0  # seconds of search on numpy before an uncached kernel is built beside it
BUILD_FIRST_BELOW = 400_000  # characters of C: a smaller kernel (kip320's: ~100,000) builds in about a second

builder_thread = threading.Thread  # what runs a build beside the search

def _told_line(compiled: CompiledKernel, background: bool = False) -> str:
    how = "loaded the compiled kernels from" if compiled.built.cached else "compiled the kernels into"
    when = " beside the search; taken up from the next level on" if background else ""
    return f"{how} {compiled.built.path} in {compiled.built.seconds:.2f} s{when}"


@dataclass
class KernelChoice:
    """The compiled kernel, or None for numpy, and a line saying how it was
    obtained (for the progress stream: the report stays the same either
    way). Under ``auto``, ``build`` makes the kernel when the search asks
    for it (``ready``)."""

    compiled: CompiledKernel | None
    told: str | None = None
    build: object = None  # (started_compiler) -> CompiledKernel, run on a thread of its own
    _thread: threading.Thread | None = field(default=None, repr=False)
    _result: list = field(default_factory=list, repr=False)
    _compiler: list = field(default_factory=list, repr=False)  # the compiler's CompilerRun, once started
    _stopping: bool = field(default=False, repr=False)

    def built_here(self) -> str | None:
        """When the C compiler built the kernel in this run: how long it took,
        and whether the search waited for it ("before the search") or went
        on with numpy meanwhile ("beside the search"); else None."""
        if self.compiled is None or self.compiled.built.cached:
            return None
        return f"{self.compiled.built.seconds:.2f} s, {'beside' if self._thread is not None else 'before'} the search"

    def ready(self, searched: float) -> CompiledKernel | None:
        """The kernel built beside a search that has run ``searched`` seconds,
        once it is there (None until then, and always without ``build``)."""
        if self.build is None or self.compiled is not None:
            return None
        if self._thread is None:
            if searched < BUILD_AFTER:
                return None
            self._thread = builder_thread(target=self._run, name="modelcheck-kernel-build", daemon=True)
            self._thread.start()
        if self._thread.is_alive() or not self._result:
            return None
        found = self._result.pop()
        self.build = None
        if isinstance(found, LibraryUnavailable):
            fall_back(str(found))
            return None
        self.compiled, self.told = found, _told_line(found, background=True)
        return found

    def _started(self, compiler) -> None:
        self._compiler.append(compiler)
        if self._stopping:
            compiler.stop()

    def _run(self) -> None:
        try:
            self._result.append(self.build(self._started))
        except LibraryUnavailable as e:
            self._result.append(e)
        except Exception as e:  # whatever stops the build, the search goes on with numpy
            self._result.append(LibraryUnavailable(f"{type(e).__name__}: {e}"))

    def close(self) -> None:
        """Free the kernel's threads; stop a build the search no longer needs
        (its compiler's processes, stopped by their process group)."""
        if self.compiled is not None:
            self.compiled.close()
        if self._thread is not None and self._thread.is_alive():
            self._stopping = True
            for compiler in self._compiler:
                compiler.stop()
            self._thread.join()


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

    def build(started_compiler=None) -> CompiledKernel:
        return compile_kernel(model, packing, predicate_names, workers or default_workers(), source=source,
                              started_compiler=started_compiler)

    try:
        if kernels == AUTO and len(source) > BUILD_FIRST_BELOW and not is_built(source):
            return KernelChoice(None, build=build)
        if progress is not None:
            if is_built(source):
                progress.status("loading the C kernel from the cache")
            else:
                progress.announce(BUILDING)
        compiled = build()
    except LibraryUnavailable as e:
        fall_back(str(e))
        return KernelChoice(None)
    return KernelChoice(compiled, _told_line(compiled))
