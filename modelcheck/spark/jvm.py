"""The driver JVM's console: Spark's log configuration, and the JVM's output
piped through this process.

By default Spark logs its errors only: its warnings ("Skipping onDisconnected
RemoveExecutor call ..." as a local run stops) are its own bookkeeping, and
what a user must know modelcheck says itself; ``--verbose`` gives its INFO log. The JVM's stdout and stderr are forwarded to this
process' stderr, so ``--json`` output on stdout stays one JSON object.

Without ``--verbose`` the forwarded log is also cut down to what a user can
read: no Java stack traces (a lost worker, or a port that answers but is not
a Spark master, each printed a hundred lines or more), no connection-level
chatter, and a lost executor said once, in one line.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading

# Spark's errors only (its warnings, such as those every run on a laptop
# prints, no native Hadoop library or the loopback hostname, are not for a
# user to act on). --verbose gives Spark's INFO log instead. pyspark starts the JVM as a shell, and a
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
    text = LOG4J.replace("LEVEL", "info" if verbose else "error")
    text += VERBOSE_LOGGERS if verbose else QUIET_LOGGERS
    if same_machine:
        text += SHARED_DISK_FILTER
    return text


# What the JVM prints on every start that says nothing to a user (a shell's
# banner, as Spark sees pyspark, when its console level is not WARN: a
# modelcheck run sets the level itself).
JVM_NOISE = ("WARNING: Using incubator modules", 'Setting default log level to "',
             "To adjust logging level use sc.setLogLevel(newLevel).")


def launch_gateway(conf, verbose: bool):
    """Start the driver JVM with its output piped through this process: its
    stdout must not mix with ``--json`` output, and the line the JVM prints
    on every start is dropped unless ``verbose``. None when this process
    already has a JVM (pyspark starts one per process and reuses it)."""
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return None
    # In a session of its own, the JVM (and the Python workers it starts) is
    # not ended by a SIGTERM sent to this process's group: this process
    # handles it as Ctrl-C, finishing the level and stopping the context
    # itself. Should this process die, the JVM ends when its stdin closes.
    gateway = launch_gateway(conf, popen_kwargs={"stdout": subprocess.PIPE, "stderr": subprocess.PIPE,
                                                 "start_new_session": True})
    for stream in (gateway.proc.stdout, gateway.proc.stderr):
        threading.Thread(target=_forward, args=(stream, sys.stderr, () if verbose else JVM_NOISE, verbose),
                         daemon=True).start()
    return gateway


# Set when the user aborts a run (a second Ctrl-C): what the JVM says while
# its jobs are torn down (Python workers "crashed", blocks not found) is
# only noise then. One per process, as the JVM is.
_ABORTED = threading.Event()


def abandon_output() -> None:
    """Stop forwarding the JVM's output: the run was aborted."""
    _ABORTED.set()


def _forward(source, target, drop: tuple[str, ...], verbose: bool = True) -> None:
    lines = DaemonShutdownFilter(drop)
    log = None if verbose else SparkLogSummary()
    for raw in iter(source.readline, b""):
        if _ABORTED.is_set():
            continue  # keep draining, so the JVM never blocks on a full pipe
        passed = lines.feed(raw.decode("utf-8", "replace"))
        for line in (passed if log is None else [out for line in passed for out in log.feed(line)]):
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
            # two workers may print their tracebacks interleaved: hold every
            # frame, header and broken-pipe line until something else comes
            if line[:1].isspace() or line.startswith((TRACEBACK, *BROKEN_PIPE)):
                self.held.append(line)
                return []
            held, self.held = self.held, []
            return self._judged(held) + self.feed(line)
        if line.startswith(TRACEBACK):
            self.held = [line]
            return []
        return [] if self.drop and line.startswith(self.drop) else [line]

    @staticmethod
    def _judged(held: list[str]) -> list[str]:
        """Held lines, or none if they are only the daemon's broken-pipe tracebacks."""
        ends = [h for h in held if not h[:1].isspace() and not h.startswith(TRACEBACK)]
        harmless = (ends and all(h.startswith(BROKEN_PIPE) for h in ends)
                    and any("pyspark/daemon.py" in h for h in held))
        return [] if harmless else held


TRACEBACK = "Traceback (most recent call last):"
BROKEN_PIPE = ("BrokenPipeError", "ConnectionResetError")


# Loggers whose warnings are connection-level detail of a failure that
# modelcheck reports itself in one line (a master that does not answer as
# one, a worker gone).
CHATTY = ("TransportChannelHandler", "TransportResponseHandler", "TransportClient", "NettyRpcEnv",
          "TransportClientFactory", "OneForOneBlockFetcher", "RetryingBlockTransferor", "BlockManagerMasterEndpoint")
LOG_LINE = re.compile(r"spark: (?P<level>[A-Z]+) (?P<logger>[\w$.]+): (?P<message>.*)")
LOST_EXECUTOR = re.compile(r"Lost executor (?P<id>\S+) on ")
# What follows a lost executor: its tasks failing and being resubmitted.
AFTER_A_LOSS = ("Lost task", "FetchFailed", "MetadataFetchFailedException", "Missing an output location",
                "Resubmitted", "Resubmitting", "Executor lost", "Removing executor", "non-existent executor",
                # a task that finished on the executor as it was lost
                "Ignoring update with state", "Ignored task status update")


class SparkLogSummary:
    """Spark's log as a user needs it (the default; --verbose shows all):
    lines of the log without the stack traces under them, connection
    chatter dropped, and each lost executor said in one line instead of the
    cascade of failed fetches and retried tasks that follows."""

    def __init__(self):
        self.in_log_entry = False  # the last line was a log line or its continuation
        self.lost: list[str] = []

    def feed(self, line: str) -> list[str]:
        entry = LOG_LINE.match(line)
        if entry is None:
            if self.in_log_entry and _continues_an_entry(line):
                return []  # a stack trace, or the rest of a multi-line message
            self.in_log_entry = False
            return [line]
        self.in_log_entry = True
        logger, message = entry.group("logger"), entry.group("message")
        lost = LOST_EXECUTOR.search(message)
        if lost:
            if lost.group("id") in self.lost:
                return []
            self.lost.append(lost.group("id"))
            return [f"spark: lost executor {lost.group('id')}; its tasks were re-run\n"]
        if logger.split(".")[-1] in CHATTY:
            return []
        if self.lost and any(marker in message for marker in AFTER_A_LOSS):
            return []
        return [line]


def _continues_an_entry(line: str) -> bool:
    """A line of a Java stack trace, or of an exception's message."""
    return (line[:1].isspace() or line.startswith(("Caused by", "Suppressed:", "...", ")"))
            or re.match(r"[a-zA-Z_$][\w$]*(\.[\w$]+)+(: |$)", line.rstrip("\n")) is not None)
