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

import contextlib
import hashlib
import io
import os
import py_compile
import shutil
import socket
import subprocess
import sys
import threading
import tempfile
import time
import zipfile
from dataclasses import dataclass
from typing import Iterator

from modelcheck.errors import InputError
from modelcheck.spark.java import require_java
from modelcheck.spark.settings import (DEFAULT_MASTER, SparkSettings, is_loopback_master, is_url,
                                       standalone_addresses)

# Spark at WARN, less the warnings every run on a laptop prints and no user
# can act on (no native Hadoop library, the loopback hostname). --verbose
# gives Spark's INFO log instead. pyspark starts the JVM as a shell, and a
# shell's console level is that of the SparkSubmit logger: set it too.
LOG4J = """\
rootLogger.level = LEVEL
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark: %p %c{1}: %m%n%ex
logger.shell.name = org.apache.spark.deploy.SparkSubmit
logger.shell.level = LEVEL
"""
QUIET_LOGGERS = """\
logger.nativecode.name = org.apache.hadoop.util.NativeCodeLoader
logger.nativecode.level = error
logger.utils.name = org.apache.spark.util.Utils
logger.utils.level = error
"""


# Spark warns that checkpoints on a local path are unsafe off local mode: a
# cluster on this machine shares that path, so there it is noise.
SHARED_DISK_FILTER = """\
filter.localcheckpoint.type = RegexFilter
filter.localcheckpoint.regex = .*checkpoint directory must not be on the local filesystem.*
filter.localcheckpoint.onMatch = DENY
filter.localcheckpoint.onMismatch = NEUTRAL
"""


# Spark's shell console filter passes what is below its threshold only for
# loggers configured on their own, so --verbose names Spark's.
VERBOSE_LOGGERS = """\
logger.spark.name = org.apache.spark
logger.spark.level = info
"""


def log4j_config(verbose: bool, same_machine: bool) -> str:
    text = LOG4J.replace("LEVEL", "info" if verbose else "warn")
    text += VERBOSE_LOGGERS if verbose else QUIET_LOGGERS
    if same_machine:
        text += SHARED_DISK_FILTER
    return text

PACKAGES = ("modelcheck", "specs")


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
        raise InputError("the spark engine needs pyspark: pip install 'modelcheck[spark]'") from None
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


def build_code_zip(directory: str) -> str:
    """Zip the packages the driver imported (not whatever is installed) into
    ``directory``; the name carries a digest of the content.

    Each module goes in as source and as bytecode for this interpreter
    (unchecked hash-based .pyc): every Python worker Spark starts imports
    the whole package, and compiling it each time costs a noticeable part of
    a short run. An executor on another Python version ignores the bytecode.
    """
    import modelcheck
    import specs

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for package in (modelcheck, specs):
            root = os.path.dirname(os.path.abspath(package.__file__))
            base = os.path.dirname(root)
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(files):
                    if name.endswith(".py"):
                        path = os.path.join(folder, name)
                        inner = os.path.relpath(path, base)
                        with open(path, "rb") as f:
                            z.writestr(_zip_entry(inner), f.read())
                        z.writestr(_zip_entry(inner + "c"), _bytecode(path, inner))
    data = buffer.getvalue()
    path = os.path.join(directory, f"modelcheck-code-{hashlib.blake2b(data, digest_size=6).hexdigest()}.zip")
    if not os.path.exists(path):
        # written whole under a temporary name: another run may be reading it
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    return path


def lasting_code_dir() -> str:
    path = os.path.join(tempfile.gettempdir(), f"modelcheck-code-{os.getuid()}")
    os.makedirs(path, exist_ok=True)
    return path


def _zip_entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _bytecode(path: str, shown_as: str) -> bytes:
    with tempfile.TemporaryDirectory(prefix="modelcheck-pyc-") as scratch:
        target = os.path.join(scratch, "module.pyc")
        py_compile.compile(path, cfile=target, dfile=shown_as, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        with open(target, "rb") as f:
            return f.read()


def spark_conf_pairs(settings: SparkSettings, master: str | None, app_name: str, log_config: str | None,
                     under_submit: bool) -> list[tuple[str, str]]:
    """The Spark settings for a run; the user's ``--spark-conf`` win."""
    # PYTHONSAFEPATH: a Python worker started in a directory holding a
    # modelcheck/ (a checkout, say) would import that before the shipped zip
    # Unix sockets between executors and their Python workers: over local
    # TCP, small writes stall on delayed ACKs (about 40 ms a task, measured),
    # which dominated the short levels of a search.
    pairs = [("spark.app.name", app_name), ("spark.ui.showConsoleProgress", "false"),
             ("spark.executorEnv.PYTHONSAFEPATH", "1"), ("spark.python.unix.domain.socket.enabled", "true")]
    if master is not None:
        pairs.append(("spark.master", master))
    given = dict(settings.conf)
    if not under_submit:
        pairs.append(("spark.ui.enabled", "false"))
        if master is not None and is_loopback_master(master):
            pairs += [("spark.driver.host", "127.0.0.1"), ("spark.driver.bindAddress", "127.0.0.1")]
        # The driver JVM's C2 compiler spent about as much CPU as the search's
        # own Python in a local run (measured: 18.5 s of JVM CPU against 9.8 s
        # with C1 only, on kip320); its work here is moving bytes, for which C1
        # code is good enough. The user's own options come after ours.
        options = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]
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


def wait_for_executors(sc, master: str, limit: float) -> None:
    """Wait (at most ``limit`` seconds) for the first executor, so that a
    cluster without usable workers fails now instead of hanging the first job."""
    deadline = time.monotonic() + limit
    while True:
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
    import_pyspark()
    started = time.perf_counter()
    scratch = tempfile.mkdtemp(prefix="modelcheck-spark-")
    sc = None
    try:
        if context is None:
            sc = start_context(settings, app_name, scratch)
        else:
            sc = context
        master = sc.master
        # Spark fetches an added file lazily and keeps it registered for the
        # context's life, so a zip added to a context that outlives this run
        # must outlive it too: it goes to a lasting, content-named place.
        code_zip = build_code_zip(scratch if context is None else lasting_code_dir())
        sc.addPyFile(code_zip)  # the same path twice is ignored
        checkpoint_dir = settings.checkpoint_dir or os.path.join(scratch, "checkpoints")
        if not is_url(checkpoint_dir):
            os.makedirs(checkpoint_dir, exist_ok=True)
            checkpoint_dir = os.path.abspath(checkpoint_dir)
        sc.setCheckpointDir(checkpoint_dir)
        partitions = settings.partitions or max(1, int(sc.defaultParallelism))
        yield SparkRun(sc, master, partitions, checkpoint_dir, os.path.basename(code_zip),
                       time.perf_counter() - started)
    finally:
        if sc is not None and context is None:
            sc.stop()
        shutil.rmtree(scratch, ignore_errors=True)


# What the JVM prints on every start that says nothing to a user.
JVM_NOISE = ("WARNING: Using incubator modules",)


def _launch_gateway(conf, verbose: bool):
    """Start the driver JVM with its output piped through this process: its
    stdout must not mix with ``--json`` output, and the line the JVM prints
    on every start is dropped unless ``verbose``. None when this process
    already has a JVM (pyspark starts one per process and reuses it)."""
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return None
    gateway = launch_gateway(conf, popen_kwargs={"stdout": subprocess.PIPE, "stderr": subprocess.PIPE})
    for stream in (gateway.proc.stdout, gateway.proc.stderr):
        threading.Thread(target=_forward, args=(stream, sys.stderr, () if verbose else JVM_NOISE),
                         daemon=True).start()
    return gateway


def _forward(source, target, drop: tuple[str, ...]) -> None:
    lines = DaemonShutdownFilter(drop)
    for raw in iter(source.readline, b""):
        for line in lines.feed(raw.decode("utf-8", "replace")):
            try:
                target.write(line)
                target.flush()
            except (ValueError, OSError):  # the target was closed: keep draining
                pass


class DaemonShutdownFilter:
    """Passes the JVM's output through, less lines starting with ``drop``
    and the broken-pipe tracebacks pyspark's Python worker daemon prints
    when a SparkContext stops under it (harmless, and alarming to read)."""

    def __init__(self, drop: tuple[str, ...] = ()):
        self.drop = drop
        self.held: list[str] = []

    def feed(self, line: str) -> list[str]:
        if self.held:
            self.held.append(line)
            if line[:1].isspace():
                return []
            held, self.held = self.held, []
            harmless = (line.startswith(("BrokenPipeError", "ConnectionResetError"))
                        and any("pyspark/daemon.py" in h for h in held))
            return [] if harmless else held
        if line.startswith("Traceback (most recent call last):"):
            self.held = [line]
            return []
        return [] if self.drop and line.startswith(self.drop) else [line]


def start_context(settings: SparkSettings, app_name: str, scratch: str):
    """Start a SparkContext, or fail with one line saying why."""
    from pyspark import SparkConf, SparkContext

    require_java()
    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ
    master = settings.master or (None if under_submit else DEFAULT_MASTER)
    if master is not None:
        check_master_reachable(master, settings.connect_timeout)
    loopback = master is not None and is_loopback_master(master)
    log_config = os.path.join(scratch, "log4j2.properties")
    with open(log_config, "w") as f:
        f.write(log4j_config(settings.verbose, loopback))
    conf = SparkConf(loadDefaults=False).setAll(spark_conf_pairs(settings, master, app_name, log_config,
                                                                 under_submit))
    try:
        with _environment(PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1" if loopback else None):
            sc = SparkContext(conf=conf, gateway=_launch_gateway(conf, settings.verbose))
    except InputError:
        raise
    except Exception as e:  # the JVM did not start, or refused the settings
        raise InputError(f"Spark did not start: {_first_line(e)}") from None
    try:
        sc.setLogLevel("INFO" if settings.verbose else "WARN")
        wait_for_executors(sc, sc.master, settings.executor_wait)
    except BaseException:
        sc.stop()
        raise
    return sc
