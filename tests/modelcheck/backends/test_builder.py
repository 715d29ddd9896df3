"""Detached builds: one builder per library, stopped cleanly by SIGTERM
(its compiler's passes too, nothing left behind), out of the terminal's
reach, and a failure remembered."""

import os
import signal
import time

import pytest

from modelcheck.backends import builder, native


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("MODELCHECK_KERNEL_CACHE", str(tmp_path / "kernels"))
    return tmp_path / "kernels"


def _gone(pid: int) -> bool:
    """Whether no process ``pid`` is left, a zombie awaiting its reaper aside."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _wait(condition, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.fixture
def slow_compiler(monkeypatch, tmp_path):
    """A compiler whose driver runs a pass of its own (as cc runs cc1) that
    takes a minute, and writes both their ids."""
    slow = tmp_path / "slow-cc"
    pids = tmp_path / "pids"
    slow.write_text(f"#!/bin/sh\nsleep 60 &\necho $$ $! > {pids}.part\nmv {pids}.part {pids}\nwait\n")
    slow.chmod(0o755)
    monkeypatch.setenv("CC", str(slow))
    return pids


def test_a_stopped_background_build_leaves_nothing_behind_and_the_next_run_builds_it(cache, slow_compiler,
                                                                                    monkeypatch):
    """A SIGTERM to the builder stops the compiler's passes too, removes its
    scratch, frees the lock and records no failure; a Ctrl-C at the terminal
    never reaches it (a session of its own)."""
    source = "int answer(void) { return 42; }"
    status, pid = builder.start_detached(source, "test", ("-shared", "-fPIC"))
    assert status == "started"
    assert os.getsid(pid) == pid != os.getsid(0)
    assert _wait(slow_compiler.exists)
    driver, compiler_pass = map(int, slow_compiler.read_text().split())
    assert native.is_building(source, "test", ("-shared", "-fPIC"), native.compiler())
    assert builder.start_detached(source, "test", ("-shared", "-fPIC")) == ("building", None)  # never two builders
    os.kill(pid, signal.SIGTERM)
    assert _wait(lambda: _gone(pid) and _gone(driver) and _gone(compiler_pass), 10)
    assert not native.is_building(source, "test", ("-shared", "-fPIC"), native.compiler())
    assert sorted(name for name in os.listdir(cache) if not name.endswith(".lock")) == []
    monkeypatch.delenv("CC")
    status, pid = builder.start_detached(source, "test", ("-shared", "-fPIC"))
    assert status == "started"
    assert _wait(lambda: native.is_cached(source, "test", ("-shared", "-fPIC"), str(cache)))
    assert native.load(source, "test", ("-shared", "-fPIC"), str(cache)).library.answer() == 42


def test_a_builder_finding_the_lock_held_builds_nothing(cache, tmp_path):
    source = "int answer(void) { return 42; }"
    flags = ("-shared", "-fPIC")
    cc = native.compiler()
    identity = native.identity_of(cc, flags, source)
    path = os.path.join(native.cache_dir(), f"test_{identity[:24]}.so")
    pending = tmp_path / "pending.c"
    pending.write_text(native.with_identity(source, identity))
    held = native._lock(path)
    try:
        assert builder.build_detached(str(pending), identity, path, cc, flags) == 0
    finally:
        os.close(held)
    assert not pending.exists() and not os.path.exists(path)


def test_a_failed_background_build_is_said_once_and_not_tried_again(cache, tmp_path, monkeypatch):
    broken = tmp_path / "broken-cc"
    broken.write_text("#!/bin/sh\necho 'error: no such thing' >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setenv("CC", str(broken))
    source = "int answer(void) { return 42; }"
    status, pid = builder.start_detached(source, "test", ("-shared",))
    assert status == "started"
    assert _wait(lambda: _gone(pid))
    status, pid = builder.start_detached(source, "test", ("-shared",))
    assert pid is None and "failed: error: no such thing" in status
