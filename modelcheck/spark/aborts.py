"""Ctrl-C (or SIGTERM) during a Spark run, as on every engine: the first
asks the search to stop at the end of the level under way (the run's own
handler, see ``modelcheck.runtime.limits``), the second aborts at once, quietly.

pyspark gets in the way of both. A new SparkContext installs its own
handler, which cancels every job and raises inside a py4j call, so the
partial report is lost: ``keeping_sigint`` undoes it. And an abort, which
raises KeyboardInterrupt inside a py4j call, makes py4j log a traceback,
leaves the py4j connection broken (so stopping the context may fail with
another error), and makes Spark log the teardown of its jobs:
``quiet_aborts`` records that an abort was asked for, so that whatever
error follows it is reported as the interrupt it is, and silences py4j's
and Spark's account of it (unless --verbose).
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from dataclasses import dataclass
from typing import Iterator

from modelcheck.runtime.limits import STOP_SIGNALS, abort_for
from modelcheck.spark.jvm import abandon_output


@contextlib.contextmanager
def keeping_sigint() -> Iterator[None]:
    """Undo the SIGINT handler a new SparkContext installs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    ours = signal.getsignal(signal.SIGINT)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, ours)


@dataclass
class Abort:
    requested: bool = False
    signum: int | None = None  # the signal of the abort (SIGINT or SIGTERM)

    def error(self) -> KeyboardInterrupt:
        """What the abort raises, whatever broke after it."""
        return abort_for(self.signum)


@contextlib.contextmanager
def quiet_aborts(verbose: bool) -> Iterator[Abort]:
    """Wrap the current handlers of Ctrl-C and SIGTERM: when one raises
    KeyboardInterrupt (an abort; ``Terminated`` for SIGTERM), note it and
    stop forwarding Spark's log."""
    abort = Abort()
    if threading.current_thread() is not threading.main_thread():
        yield abort
        return
    outer = {s: signal.getsignal(s) for s in STOP_SIGNALS}

    def handler(signum, frame):
        try:
            mine = outer[signum]
            if callable(mine):
                mine(signum, frame)
            elif mine == signal.SIG_DFL:
                raise abort_for(signum)
        except KeyboardInterrupt:
            abort.requested, abort.signum = True, signum
            if not verbose:
                abandon_output()
            raise

    for s in STOP_SIGNALS:
        signal.signal(s, handler)
    try:
        with _py4j_quiet(verbose):
            yield abort
    finally:
        for s, old in outer.items():
            signal.signal(s, old)


@contextlib.contextmanager
def _py4j_quiet(verbose: bool) -> Iterator[None]:
    """py4j reports a KeyboardInterrupt during a call on the root logger,
    configuring it for stderr first: give the root logger a handler that
    drops records, unless it has handlers already or --verbose asks for all."""
    root = logging.getLogger()
    if verbose or root.handlers:
        yield
        return
    sink = logging.NullHandler()
    root.addHandler(sink)
    try:
        yield
    finally:
        root.removeHandler(sink)
