"""A Spark standalone cluster on this machine: a master and workers bound to
127.0.0.1, started from the pyspark installation's own ``spark-class``.

Everything started is recorded in a state directory: ``cluster.json`` (the
master URL and, for every process, its PID, its start time and its log) and
one log file per process. ``stop`` ends exactly the recorded processes, and
only while they are still the processes that were started (a PID the system
has since given to another program is left alone).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from dataclasses import asdict, dataclass, field

import psutil

from modelcheck.runtime.atomic import write_atomically
from modelcheck.runtime.destinations import make_writable_dir
from modelcheck.errors import InputError
from modelcheck.spark.java import require_java

STATE_FILE = "cluster.json"
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
_MEMORY = re.compile(r"^[1-9][0-9]*[mMgG]$")
_MASTER_URL = re.compile(r"Starting Spark master at (spark://\S+)")
_MASTER_UI = re.compile(r"MasterWebUI.*started at (http://\S+)")
_REGISTERED = "Successfully registered with master"


@dataclass(frozen=True)
class ClusterSettings:
    workers: int = 2
    cores: int = 1
    memory: str = "1g"
    port: int = 7077
    webui_port: int = 8080
    host: str = "127.0.0.1"
    start_timeout: float = 90.0

    def __post_init__(self):
        if not 1 <= self.workers <= 64:
            raise InputError(f"--workers must be between 1 and 64, got {self.workers}")
        if not 1 <= self.cores <= 1024:
            raise InputError(f"--cores must be between 1 and 1024, got {self.cores}")
        if not _MEMORY.match(self.memory):
            raise InputError(f"--memory {self.memory}: expected a size such as 1g or 512m")
        for name, port in (("--port", self.port), ("--webui-port", self.webui_port)):
            if not 0 <= port < 65536:
                raise InputError(f"{name} must be between 0 and 65535, got {port}")


@dataclass
class ProcessRecord:
    role: str  # "master", "worker-1", ...
    pid: int
    started: float  # the process' start time, as psutil reports it
    log: str

    def running(self) -> bool:
        """Still alive, and still the process that was started."""
        try:
            p = psutil.Process(self.pid)
            return abs(p.create_time() - self.started) < 1.0 and p.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False


@dataclass
class ClusterState:
    master_url: str
    web_ui: str | None
    processes: list[ProcessRecord] = field(default_factory=list)
    started_at: float = field(default_factory=time.time)

    def workers(self) -> list[ProcessRecord]:
        return [p for p in self.processes if p.role.startswith("worker")]

    def save(self, state_dir: str) -> None:
        path = os.path.join(state_dir, STATE_FILE)
        write_atomically(path, lambda f: json.dump(asdict(self), f, indent=1), replace=True)

    @classmethod
    def load(cls, state_dir: str) -> "ClusterState | None":
        path = os.path.join(state_dir, STATE_FILE)
        try:
            with open(path) as f:
                data = json.load(f)
            data["processes"] = [ProcessRecord(**p) for p in data["processes"]]
            return cls(**data)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError, KeyError) as e:
            raise InputError(f"cannot read {path}: {e}") from None


def spark_class() -> str:
    from modelcheck.spark.session import import_pyspark
    pyspark = import_pyspark()
    path = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-class")
    if not os.access(path, os.X_OK):
        raise InputError(f"the pyspark installation has no runnable bin/spark-class ({path})")
    return path


def _daemon_env(host: str) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("SPARK_LOCAL_IP", host)
    env.pop("PYSPARK_GATEWAY_PORT", None)
    return env


def _launch(command: list[str], role: str, log_path: str, env: dict[str, str]) -> ProcessRecord:
    with open(log_path, "ab") as log:
        # a session of its own: a Ctrl-C in the user's terminal must not reach the cluster
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, start_new_session=True)
    return ProcessRecord(role, proc.pid, psutil.Process(proc.pid).create_time(), log_path)


def _wait_for_log(record: ProcessRecord, pattern: re.Pattern | str, deadline: float) -> re.Match | str:
    """Wait until the process' log shows ``pattern``; fail if it exits first."""
    while True:
        try:
            with open(record.log, errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        found = pattern.search(text) if isinstance(pattern, re.Pattern) else (pattern if pattern in text else None)
        if found:
            return found
        if not record.running():
            raise InputError(f"the Spark {record.role} exited while starting: {_last_line(text)} (log: {record.log})")
        if time.monotonic() > deadline:
            raise InputError(f"the Spark {record.role} did not start in time (log: {record.log})")
        time.sleep(0.2)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if "ERROR" in line or "Exception" in line]
    return (errors or lines or ["no output"])[-1][:300]


def check_startable(state_dir: str) -> None:
    """Java is there, ``state_dir`` can hold the cluster's records, and no
    cluster recorded there still runs."""
    require_java()
    make_writable_dir(state_dir, "--state-dir")
    existing = ClusterState.load(state_dir)
    if existing is not None and any(p.running() for p in existing.processes):
        raise InputError(f"a cluster recorded in {state_dir} is still running ({existing.master_url}); "
                         f"stop it first with `modelcheck cluster stop`")


def start_cluster(settings: ClusterSettings, state_dir: str) -> ClusterState:
    """Start a master and ``settings.workers`` workers; wait until every
    worker has registered. On any failure, stop what was started."""
    check_startable(state_dir)
    os.makedirs(state_dir, exist_ok=True)
    command = spark_class()
    env = _daemon_env(settings.host)
    logs = os.path.join(state_dir, "logs")
    os.makedirs(logs, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    deadline = time.monotonic() + settings.start_timeout
    started: list[ProcessRecord] = []
    try:
        master = _launch([command, MASTER_CLASS, "--host", settings.host, "--port", str(settings.port),
                          "--webui-port", str(settings.webui_port)],
                         "master", os.path.join(logs, f"master-{stamp}.log"), env)
        started.append(master)
        url = _wait_for_log(master, _MASTER_URL, deadline).group(1)
        state = ClusterState(url, None, started)
        state.save(state_dir)
        for i in range(1, settings.workers + 1):
            work_dir = os.path.join(state_dir, f"work-{i}")
            os.makedirs(work_dir, exist_ok=True)
            worker = _launch([command, WORKER_CLASS, "--host", settings.host, "--cores", str(settings.cores),
                              "--memory", settings.memory, "--webui-port", "0", "--work-dir", work_dir, url],
                             f"worker-{i}", os.path.join(logs, f"worker-{i}-{stamp}.log"), env)
            started.append(worker)
            state.save(state_dir)
        for worker in state.workers():
            _wait_for_log(worker, _REGISTERED, deadline)
        with open(master.log, errors="replace") as f:
            ui = _MASTER_UI.search(f.read())
        state.web_ui = ui.group(1) if ui else None
        state.save(state_dir)
        return state
    except BaseException:
        stop_processes(started)
        try:
            os.remove(os.path.join(state_dir, STATE_FILE))
        except FileNotFoundError:
            pass
        raise


def stop_processes(records: list[ProcessRecord], grace: float = 15.0) -> list[tuple[ProcessRecord, str]]:
    """End the recorded processes, workers before the master: SIGTERM, then
    SIGKILL for any still running after ``grace`` seconds. Returns what
    happened to each."""
    outcome = []
    live = []
    for record in sorted(records, key=lambda r: r.role == "master"):
        if not record.running():
            outcome.append((record, "not running"))
            continue
        try:
            os.kill(record.pid, signal.SIGTERM)
            live.append(record)
        except ProcessLookupError:
            outcome.append((record, "not running"))
    deadline = time.monotonic() + grace
    for record in live:
        while record.running() and time.monotonic() < deadline:
            time.sleep(0.1)
        if record.running():
            try:
                os.kill(record.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            outcome.append((record, "killed"))
        else:
            outcome.append((record, "stopped"))
    return outcome


def stop_cluster(state_dir: str) -> list[tuple[ProcessRecord, str]] | None:
    """Stop the cluster recorded in ``state_dir``; None if none is recorded."""
    state = ClusterState.load(state_dir)
    if state is None:
        return None
    outcome = stop_processes(state.processes)
    os.remove(os.path.join(state_dir, STATE_FILE))
    return outcome
