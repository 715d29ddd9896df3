"""Helpers shared by the tests: building models, crafting states, running the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import lru_cache

from click.testing import CliRunner

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from modelcheck.specs import all_specs  # noqa: E402

# The example specs, written as a user writes a spec (outside the package),
# run from their paths; the tests over every spec run over them too.
EXAMPLES = {"two-phase": os.path.join(ROOT, "examples", "two_phase", "two_phase.py"),
            "paxos": os.path.join(ROOT, "examples", "paxos", "paxos.py"),
            "chang-roberts": os.path.join(ROOT, "examples", "chang_roberts", "chang_roberts.py")}


@lru_cache(maxsize=None)
def get_spec(name: str):
    """A built-in spec, or one of the examples (loaded from its file, as the command line loads it)."""
    if name in EXAMPLES:
        from modelcheck.loading.registry import load_file
        return load_file(EXAMPLES[name])
    from modelcheck.specs import get_spec as built_in
    return built_in(name)


def every_spec() -> list[str]:
    """The names of every spec the repository holds, built in or example:
    what the tests over every spec run over (each in its own small model)."""
    return sorted(all_specs()) + sorted(EXAMPLES)


def small_constants(name: str) -> dict[str, str]:
    """The constants of a spec's own first small model (its defaults if it declares none)."""
    spec = get_spec(name)
    return dict(spec.small_models[0]) if spec.small_models else {}


@lru_cache(maxsize=None)
def _model(name: str, consts: tuple):
    spec = get_spec(name)
    return spec.instantiate(spec.resolve_constants(dict(consts)))


def model(name: str, **consts):
    """A model of spec ``name`` with constants given as strings or ints."""
    return _model(name, tuple(sorted((k, str(v)) for k, v in consts.items())))



def small_model(name: str):
    """A small model of any spec (built in or example): the constants of
    its own first small model (``SpecDefinition.small_models``), which the
    tests over every spec explore whole."""
    return model(name, **small_constants(name))


def reachable(m, limit: int | None = None) -> list[tuple]:
    """The reachable states of ``m`` in breadth-first order (the first
    ``limit`` or so of them, when given), found by the explicit successors."""
    from modelcheck.language.fingerprint import fingerprinter
    fp = fingerprinter(m.schema)
    seen, frontier, out = set(), list(m.init_states), []
    while frontier and (limit is None or len(out) < limit):
        nxt = []
        for s in frontier:
            if fp(s) not in seen:
                seen.add(fp(s))
                out.append(s)
                nxt.extend(t for _, t in m.successors(s))
        frontier = nxt
    return out


def crafted(m, base: tuple | None = None, **fields) -> tuple:
    """A state: ``base`` (default: the initial state) with fields replaced.

    A field value is a scalar, or a dict from index (or index tuple) to value.
    Replica names are accepted wherever a replica index is stored.
    """
    state = list(base if base is not None else m.init_states[0])
    names = list(getattr(m.constants, "Replicas", ()))

    def idx(i):
        return names.index(i) if isinstance(i, str) else i

    def val(v):
        if isinstance(v, str):
            return -1 if v == "NONE" else names.index(v)
        if isinstance(v, (set, frozenset)):
            return sum(1 << names.index(x) for x in v)
        return int(v)

    for name, value in fields.items():
        if isinstance(value, dict):
            for k, v in value.items():
                key = tuple(idx(x) for x in k) if isinstance(k, tuple) else (idx(k),)
                state[m.schema.slot(name, *key)] = val(v)
        else:
            state[m.schema.slot(name)] = val(value)
    return tuple(state)


def enabled(m, state: tuple) -> dict[str, tuple]:
    """Enabled action instances, by label, with the state each leads to."""
    return {m.instances[i].label(): t for i, t in m.successors(state)}


def field(m, state: tuple, name: str, *index):
    names = list(getattr(m.constants, "Replicas", ()))
    key = tuple(names.index(i) if isinstance(i, str) else i for i in index)
    return state[m.schema.slot(name, *key)]


def invoke(*args):
    """Run the CLI in-process; returns (exit code, stdout, stderr)."""
    from cli import main
    runner = CliRunner()
    result = runner.invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def invoke_json(*args):
    code, out, err = invoke(*args, "--json")
    return code, json.loads(out), err


def one_error_line(err: str) -> str:
    """The single line a bad input prints on stderr (asserted to be one,
    prefixed, with no traceback)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("modelcheck: error: "), err
    assert "Traceback" not in err
    return lines[0]


def async_isr_ignoring_the_pending_isr(monkeypatch):
    """AsyncIsr with its high watermark computed over the current ISR alone,
    ignoring the pending one: a mutation that breaks ValidHighWatermark."""
    import modelcheck.specs.async_isr as async_isr
    from modelcheck.language.expr import ite, member, min_

    def current_isr_only(s):
        lowest = s.c.MaxOffset
        for r in range(len(s.c.Replicas)):
            lowest = ite(member(s.leader_isr, r), min_(lowest, s.offsets[r]), lowest)
        return lowest

    monkeypatch.setattr(async_isr, "high_watermark", current_isr_only)
    return async_isr.SPEC.instantiate(async_isr.SPEC.resolve_constants({}))


def read_terminal(master: int, into: bytearray) -> None:
    """Append what the terminal ``master`` shows until the process behind it ends."""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closes when the process ends
            return
        if not chunk:
            return
        into.extend(chunk)


def terminal_lines(seen: str) -> list[str]:
    """What a terminal shows of ``seen`` once it is all written: each line
    as its last carriage return left it (a status or progress line rewritten
    in place leaves only what followed it), the line-clearing escapes removed."""
    return [line.rsplit("\r", 1)[-1].replace("\x1b[2K", "") for line in seen.split("\n")]


def run_on_terminal(*args, cwd, stream="stderr", timeout=300):
    """Run the CLI in a fresh process with ``stream`` ("stderr" or "stdout")
    on a pseudo-terminal, as a user at a terminal sees it. Returns (exit
    code, what the terminal got, the other stream)."""
    import pty
    master, slave = pty.openpty()
    on_terminal = {stream: slave}
    other = "stdout" if stream == "stderr" else "stderr"
    proc = subprocess.Popen([sys.executable, "-c", "from cli import main; main()", *args], cwd=cwd,
                            env=dict(os.environ, PYTHONPATH=ROOT), **on_terminal, **{other: subprocess.PIPE})
    os.close(slave)
    seen = bytearray()
    read_terminal(master, seen)
    proc.wait(timeout=timeout)
    os.close(master)
    return proc.returncode, seen.decode(errors="replace"), getattr(proc, other).read().decode()


def run_subprocess(*args, cwd=None, env=None, timeout=600):
    """Run the CLI as users do, in a fresh process."""
    full_env = dict(os.environ, **(env or {}))
    full_env["PYTHONPATH"] = ROOT + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", "from cli import main; main()", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


class Interrupted:
    """What a run interrupted by ``interrupt`` printed and returned."""

    def __init__(self, code: int, stdout: str, terminal: str, seconds_after: float = 0.0):
        self.code, self.stdout, self.terminal = code, stdout, terminal
        self.seconds_after = seconds_after  # from the last signal to the end of the process


def interrupt(*args, cwd, marker: str, signals: int = 1, delay: float = 0.0, gap: float = 0.3,
              timeout: float = 300, sig: int | None = None, env: dict | None = None) -> Interrupted:
    """Run the CLI in a fresh process group with stderr on a pseudo-terminal
    (so it shows progress, as at a terminal) and press Ctrl-C as a terminal
    does: SIGINT to the whole group, ``signals`` times ``gap`` seconds apart,
    starting ``delay`` seconds after ``marker`` (a regular expression) first
    appears on stderr. Fails if the run ends before the marker. ``sig``
    sends another signal instead (SIGTERM, as a service manager stops a
    process group); ``env`` adds to the environment."""
    import pty
    import re
    import signal
    import threading
    import time

    sig = signal.SIGINT if sig is None else sig
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", "from cli import main; main()", *args], cwd=cwd,
                            env=dict(os.environ, PYTHONPATH=ROOT, **(env or {})), stdout=subprocess.PIPE,
                            stderr=slave, start_new_session=True)
    os.close(slave)
    seen = bytearray()
    reader = threading.Thread(target=read_terminal, args=(master, seen), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + timeout
        while not re.search(marker, seen.decode(errors="replace")):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the run ended or stalled before {marker!r}:\n{seen.decode(errors='replace')}")
            time.sleep(0.02)
        time.sleep(delay)
        for k in range(signals):
            if k:
                time.sleep(gap)
            if proc.poll() is None:
                os.killpg(proc.pid, sig)
        signalled = time.monotonic()
        out, _ = proc.communicate(timeout=timeout)
        after = time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    reader.join(timeout=10)
    os.close(master)
    return Interrupted(proc.returncode, out.decode(), seen.decode(errors="replace"), after)


def checkpoint_contents(directory) -> dict[str, bytes]:
    """Every file of a fast checkpoint's directory, by its path in it, with
    its bytes (the lock file a run holds while it runs left out)."""
    out = {}
    for root, _, files in os.walk(directory):
        for name in files:
            full = os.path.join(root, name)
            if name != ".modelcheck.lock":
                with open(full, "rb") as f:
                    out[os.path.relpath(full, directory)] = f.read()
    return out


def checkpoint_layout(directory) -> list[str]:
    """A fast checkpoint's files, the data directory's name reduced to its prefix."""
    import re
    return sorted(re.sub(r"^checkpoint-data-[^/]+", "checkpoint-data-*", p) for p in checkpoint_contents(directory))


# what a fast checkpoint's directory holds once a save is done
CHECKPOINT_LAYOUT = sorted(["checkpoint.json"] + [f"checkpoint-data-*/{name}" for name in
                                                  ("level_sizes", "parents", "actions", "visited", "frontier")])


def kernel_builds_done(cache: str, seconds: float = 600.0) -> None:
    """Waits until no kernel build is under way in the kernel cache ``cache``
    (the optimised build that a first run leaves going in the background):
    no source waits for a builder and every library's lock is free."""
    import fcntl
    import glob
    import time
    deadline = time.monotonic() + seconds
    while True:
        busy = bool(glob.glob(os.path.join(cache, ".pending-*")))
        for lock in glob.glob(os.path.join(cache, ".*.lock")):
            with open(lock) as f:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    busy = True
        if not busy:
            return
        assert time.monotonic() < deadline, f"a kernel build in {cache} is still going after {seconds:.0f} s"
        time.sleep(0.1)
