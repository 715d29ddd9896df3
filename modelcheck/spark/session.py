"""Starting and stopping the SparkContext a search runs in.

What this adds to a plain ``SparkContext(conf)``:

* the checks that turn the usual ways of failing into one clear line: no
  pyspark, no Java 17, a master that does not answer, a cluster on which no
  executor ever registers (each bounded in time, so nothing hangs);
* Spark's own logging held at WARN (``--verbose`` gives its full log);
* this project's code, zipped at start and shipped with ``addPyFile``, so the
  executors run exactly the code the driver runs, wherever they are: an
  installed copy of modelcheck on a worker (or none) does not matter;
* a checkpoint directory: a temporary one, removed afterwards, unless the
  user named one, which is kept.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass
from typing import Callable, Iterator

from modelcheck.errors import InputError
from modelcheck.spark.java import require_java
from modelcheck.spark.aborts import keeping_sigint, quiet_aborts
from modelcheck.spark.jvm import launch_gateway, log4j_config
from modelcheck.spark.settings import (DEFAULT_MASTER, SparkSettings, is_loopback_master,
                                       standalone_addresses)
from modelcheck.spark.shipping import build_code_zip, lasting_code_dir


@dataclass
class SparkRun:
    """An open SparkContext with what one search needs from it."""

    sc: object  # pyspark.SparkContext
    master: str
    partitions: int
    checkpoint_dir: str
    code_zip: str  # the file name executors must import modelcheck from
    startup_seconds: float


def import_pyspark():
    try:
        import pyspark  # noqa: F401
    except ImportError:
        from modelcheck.runtime.extras import install_command
        raise InputError(f"the spark engine needs pyspark: {install_command('spark', ('pyspark', 'psutil'))}") from None
    return pyspark


def check_master_reachable(master: str, timeout: float) -> None:
    """Fail fast when no address of a spark:// master accepts a connection."""
    addresses = standalone_addresses(master)
    if not addresses:
        return
    problems = []
    for host, port in addresses:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                return
        except OSError as e:
            reason = "timed out" if isinstance(e, TimeoutError) else (e.strerror or str(e))
            problems.append(f"{host}:{port}: {reason}")
    raise InputError(f"cannot reach the Spark master {master} ({'; '.join(problems)}); is it running? "
                     f"`modelcheck cluster start` starts one and prints its URL")


def spark_conf_pairs(settings: SparkSettings, master: str | None, app_name: str, log_config: str | None,
                     under_submit: bool) -> list[tuple[str, str]]:
    """The Spark settings for a run; the user's ``--spark-conf`` win."""
    # PYTHONSAFEPATH: a Python worker started in a directory holding a
    # modelcheck/ (a checkout, say) would import that before the shipped zip.
    # Unix sockets between executors and their Python workers: over local
    # TCP each Python task waited about 40 ms for its first input records
    # (timed inside the tasks while developing this engine; nothing over a
    # Unix socket), which dominated the short levels of a search.
    pairs = [("spark.app.name", app_name), ("spark.ui.showConsoleProgress", "false"),
             ("spark.executorEnv.PYTHONSAFEPATH", "1"), ("spark.python.unix.domain.socket.enabled", "true")]
    if master is not None:
        pairs.append(("spark.master", master))
    given = dict(settings.conf)
    if not under_submit:
        pairs.append(("spark.ui.enabled", "false"))
        if master is not None and is_loopback_master(master):
            pairs += [("spark.driver.host", "127.0.0.1"), ("spark.driver.bindAddress", "127.0.0.1")]
        # The driver JVM's C2 compiler cost about as much CPU as the search's
        # own Python in a local run: on kip320, 19.3 s of JVM CPU with C2 and
        # 10.1 s with C1 only (bench/cpu_split.py, local[2]). The JVM's work
        # here is moving bytes, for which C1 code is good enough. The user's
        # own options come after ours, so they can turn C2 back on.
        # The same holds for a cluster's executor JVMs: on kip320 with
        # MaxLeaderEpoch=3 on a 2-worker cluster of this machine, 49.6 s
        # with C2, 36.1 s with C1 only.
        # (A user's own executor options replace these whole.)
        options = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]
        pairs.append(("spark.executor.extraJavaOptions", " ".join(options)))
        if log_config is not None:
            options.insert(0, f"-Dlog4j2.configurationFile=file:{log_config}")
        if "spark.driver.extraJavaOptions" in given:
            options.append(given.pop("spark.driver.extraJavaOptions"))
        pairs.append(("spark.driver.extraJavaOptions", " ".join(options)))
    return [(k, v) for k, v in pairs if k not in given] + list(given.items())


@contextlib.contextmanager
def _environment(**values: str) -> Iterator[None]:
    """Set environment variables that are unset, for the launch of the JVM
    (pyspark reads them from this process' environment), then restore."""
    added = [k for k, v in values.items() if v is not None and k not in os.environ]
    for k in added:
        os.environ[k] = values[k]
    try:
        yield
    finally:
        for k in added:
            os.environ.pop(k, None)


def executor_count(sc) -> int:
    """Executors registered with the driver (the driver itself not counted,
    except in local mode, where it is the executor)."""
    if sc.master.startswith("local"):
        return 1
    return int(sc._jsc.sc().getExecutorMemoryStatus().size()) - 1


def wait_for_executors(sc, master: str, limit: float, given_up: Callable[[], bool] = lambda: False) -> None:
    """Wait (at most ``limit`` seconds) for the first executor, so that a
    cluster without usable workers fails now instead of hanging the first
    job; not at all once ``given_up()`` (the run no longer needs them)."""
    deadline = time.monotonic() + limit
    while not given_up():
        try:
            stopped = sc._jsc.sc().isStopped()
            if not stopped and executor_count(sc) >= 1:
                return
        except Exception:  # the context stopped between the two calls
            stopped = True
        if stopped:
            raise InputError(f"the Spark master {master} did not take the application (is it a Spark master, "
                             f"of a compatible version?)")
        if time.monotonic() > deadline:
            raise InputError(f"no Spark executor registered with {master} within {limit:.0f} s: does the cluster "
                             f"have a worker with free cores and enough memory for an executor?")
        time.sleep(0.1)


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


@contextlib.contextmanager
def spark_run(settings: SparkSettings, app_name: str, context=None) -> Iterator[SparkRun]:
    """A SparkContext ready for a search. With ``context`` (an existing
    SparkContext) that one is used and left running; otherwise one is
    started here and stopped on the way out, whatever happens."""
    with spark_launch(settings, app_name, context) as launch:
        yield launch.result()


@contextlib.contextmanager
def spark_launch(settings: SparkSettings, app_name: str, context=None, then=None) -> Iterator["Launch"]:
    """Like ``spark_run``, but the context starts in a background thread (and
    the cluster's first executor is waited for there), so that the caller
    can work meanwhile; ``Launch.result()`` waits for it. ``then(run)``, if
    given, runs in that thread once the context is open (the Spark engine
    warms its executors up with it)."""
    import_pyspark()
    stopped_beside()  # one context at a time: an earlier run's, stopping beside, goes first
    started = time.perf_counter()
    scratch = tempfile.mkdtemp(prefix="modelcheck-spark-")
    with quiet_aborts(settings.verbose) as abort:
        launch = None
        beside = False
        try:
            if context is None:  # the quick checks fail here, before anything runs in the background
                preflight(settings)
            launch = Launch(settings, app_name, context, scratch, started, then)
            yield launch
        except BaseException:
            if abort.requested:  # whatever broke after a second Ctrl-C (or SIGTERM), it is that abort
                raise abort.error() from None
            raise
        finally:
            try:
                if launch is not None:
                    beside = launch.close(abort)
            finally:
                if not beside:  # else the thread stopping the context removes it once it is done
                    shutil.rmtree(scratch, ignore_errors=True)


_STOPPING: list[threading.Thread] = []  # contexts a run no longer needed, stopping once they are up


def stopped_beside() -> None:
    """Wait for the contexts being stopped beside earlier runs of this
    process: pyspark allows one SparkContext at a time, and a process that
    ends must leave no context starting (nor its files) behind."""
    while _STOPPING:
        _STOPPING.pop().join()


atexit.register(stopped_beside)


class Launch:
    """A SparkContext on its way up, in a background thread.

    The checkpoint directory is known at once; ``opened()`` says whether the
    context is up with its first executor, ``result()`` waits until it is
    (raising what stopped it), and ``settled()`` whether ``then`` has
    finished too."""

    def __init__(self, settings: SparkSettings, app_name: str, context, scratch: str, started: float, then=None):
        self.settings, self.app_name, self.context, self.scratch = settings, app_name, context, scratch
        self.started, self.then = started, then
        # a mounted path (settings refuse URLs): executors open the visited runs in it
        self.checkpoint_dir = os.path.abspath(settings.checkpoint_dir or os.path.join(scratch, "checkpoints"))
        os.makedirs(self.checkpoint_dir, exist_ok=True)
        self._sc = None  # the context this launch started (and so stops)
        self._run: SparkRun | None = None
        self._error: BaseException | None = None
        self._opened, self._settled = threading.Event(), threading.Event()
        self._unneeded = threading.Event()  # the search is done without Spark (``not_needed``)
        self._thread = threading.Thread(target=self._start, name="modelcheck-spark-start", daemon=True)
        self._thread.start()

    def _start(self) -> None:
        try:
            self._run = self._open()
        except BaseException as e:  # handed to whoever waits for the result
            self._error = e
        finally:
            self._opened.set()
        try:
            if self._run is not None and self.then is not None and not self._unneeded.is_set():
                self._run.sc.setJobGroup("modelcheck-warm-up", "warming the executors up", False)
                self.then(self._run)
        except BaseException:  # noqa: S110  (a failed warm-up only means the first level warms up itself)
            pass
        finally:
            self._settled.set()

    def _open(self) -> SparkRun:
        if self.context is None:
            self._sc = start_context(self.settings, self.app_name, self.scratch, checked=True,
                                     given_up=self._unneeded.is_set)
        sc = self._sc or self.context
        # Spark fetches an added file lazily and keeps it registered for the
        # context's life, so a zip added to a context that outlives this run
        # must outlive it too: it goes to a lasting, content-named place.
        code_zip = build_code_zip(self.scratch if self.context is None else lasting_code_dir())
        sc.addPyFile(code_zip)  # the same path twice is ignored
        sc.setCheckpointDir(self.checkpoint_dir)
        partitions = self.settings.partitions or max(1, int(sc.defaultParallelism))
        return SparkRun(sc, sc.master, partitions, self.checkpoint_dir, os.path.basename(code_zip),
                        time.perf_counter() - self.started)

    def opened(self) -> bool:
        return self._opened.is_set()

    def settled(self) -> bool:
        return self._settled.is_set()

    def result(self) -> SparkRun:
        self._opened.wait()
        if self._error is not None:
            raise self._error
        return self._run

    def not_needed(self) -> None:
        """The search is done without Spark: a context still starting is not
        waited for, and its executors are not waited for at all."""
        self._unneeded.set()

    def close(self, abort) -> bool:
        """Stop what this launch started, once it is up (starting is bounded
        in time: the executor wait is); stopping a context ends its warm-up.
        After an abort nothing is waited for: the process is ending, and the
        driver JVM ends with it (it stops when its stdin closes). A context
        the search turned out not to need, still starting, is stopped by a
        thread of its own once it is up, without waiting for executors (True:
        the scratch directory is that thread's to remove); the report comes
        meanwhile, and the process waits for that thread as it ends, so that
        Spark leaves nothing behind."""
        if abort.requested and not self._opened.is_set():
            return False
        if self._unneeded.is_set() and self.context is None and not self._opened.is_set():
            stopper = threading.Thread(target=self._stop_beside, name="modelcheck-spark-stop", daemon=True)
            stopper.start()
            _STOPPING.append(stopper)
            return True
        self._opened.wait()
        sc = self._sc
        if self.context is not None:
            # the shared context runs on: let its warm-up end (it is short on a
            # context that is up) before handing it back
            self._settled.wait(30)
        if sc is not None:
            try:
                with warnings.catch_warnings():
                    if abort.requested:  # the JVM may be gone already: pyspark warns so, and nobody can act on it
                        warnings.filterwarnings("ignore", "Unable to cleanly shutdown Spark JVM", RuntimeWarning)
                    sc.stop()
            except Exception:
                if not abort.requested:  # after an abort py4j's connection may be broken
                    raise
        return False

    def _stop_beside(self) -> None:
        self._opened.wait()
        try:
            if self._sc is not None:
                self._sc.stop()
        except Exception:  # noqa: S110  (nothing waits for this context: the run is reported)
            pass
        finally:
            shutil.rmtree(self.scratch, ignore_errors=True)


def run_master(settings: SparkSettings) -> str | None:
    """The master to start with: None under spark-submit, which has set one."""
    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ
    return settings.master or (None if under_submit else DEFAULT_MASTER)


def preflight(settings: SparkSettings) -> None:
    """The checks that fail in well under a second: Java, and a master that answers."""
    require_java()
    master = run_master(settings)
    if master is not None:
        check_master_reachable(master, settings.connect_timeout)


def start_context(settings: SparkSettings, app_name: str, scratch: str, checked: bool = False,
                  given_up: Callable[[], bool] = lambda: False):
    """Start a SparkContext and wait for its first executor, or fail with
    one line saying why (``checked``: ``preflight`` has passed already);
    ``given_up``: see ``wait_for_executors``."""
    from pyspark import SparkConf, SparkContext

    if not checked:
        preflight(settings)
    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ
    master = run_master(settings)
    loopback = master is not None and is_loopback_master(master)
    log_config = os.path.join(scratch, "log4j2.properties")
    with open(log_config, "w") as f:
        f.write(log4j_config(settings.verbose, loopback))
    conf = SparkConf(loadDefaults=False).setAll(spark_conf_pairs(settings, master, app_name, log_config,
                                                                 under_submit))
    try:
        with _environment(PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1" if loopback else None), \
                keeping_sigint():
            sc = SparkContext(conf=conf, gateway=launch_gateway(conf, settings.verbose))
    except InputError:
        raise
    except Exception as e:  # the JVM did not start, or refused the settings
        raise InputError(f"Spark did not start: {_first_line(e)}") from None
    try:
        sc.setLogLevel("INFO" if settings.verbose else "ERROR")
        wait_for_executors(sc, sc.master, settings.executor_wait, given_up)
    except BaseException:
        sc.stop()
        raise
    return sc
