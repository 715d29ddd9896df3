"""Traces, .cfg files and checkpoints are read only from regular files of a
bounded size: a device that never ends, a FIFO that may never deliver, a
directory or an oversized file is one line, exit 2, at once (the processes
here run under a memory limit and a timeout, so a regression fails rather
than hangs or fills the memory)."""

import os
import resource
import subprocess
import sys

import pytest

from support import ROOT, invoke, one_error_line
from modelcheck.runtime.reading import CONFIG_CAP, TRACE_CAP


def refused_in_a_process(*args, cwd) -> str:
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    proc = subprocess.run([sys.executable, "-c", "from cli import main; main()", *args], cwd=cwd,
                          env={"PYTHONPATH": ROOT, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                          timeout=30, preexec_fn=limit)
    assert proc.returncode == 2, proc.stderr[-500:]
    return one_error_line(proc.stderr)


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return str(path)


COMMANDS = {"show": ("show",), "replay": ("replay", "kip320"), "--config": ("run", "kip320", "--config")}


def test_a_fifo_as_config_is_refused_without_waiting(tmp_path, fifo):
    assert "--config" in refused_in_a_process(*COMMANDS["--config"], fifo, cwd=tmp_path)


@pytest.mark.parametrize("command", ["show", "replay"])
def test_a_fifo_as_trace_is_refused_without_waiting(tmp_path, fifo, command):
    assert "is not a regular file (a FIFO)" in refused_in_a_process(*COMMANDS[command], fifo, cwd=tmp_path)


def test_dev_zero_as_a_trace_is_refused_at_once(tmp_path):
    assert "/dev/zero is not a regular file (a character device)" in \
        refused_in_a_process("show", "/dev/zero", cwd=tmp_path)


@pytest.mark.parametrize("command, device", [("--config", "/dev/urandom"), ("replay", "/dev/zero")])
def test_an_endless_device_is_refused_at_once(tmp_path, command, device):
    assert "is not a regular file (a character device)" in \
        refused_in_a_process(*COMMANDS[command], device, cwd=tmp_path)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_directory_is_refused(in_tmp, command):
    code, _, err = invoke(*COMMANDS[command], str(in_tmp))
    assert code == 2 and "is not a regular file (a directory)" in one_error_line(err)


@pytest.mark.parametrize("command, cap, said", [("show", TRACE_CAP, "256 MiB"), ("--config", CONFIG_CAP, "1 MiB")])
def test_a_file_over_the_cap_is_refused_before_it_is_read(in_tmp, command, cap, said):
    with open("big", "wb") as f:
        f.truncate(cap + 1)  # sparse: nothing is written
    code, _, err = invoke(*COMMANDS[command], "big")
    assert code == 2 and f"big is larger than {said}" in one_error_line(err)


def test_a_checkpoint_that_is_a_fifo_is_refused_without_waiting(tmp_path):
    os.makedirs(tmp_path / "ck")
    os.mkfifo(tmp_path / "ck" / "checkpoint.json")
    line = refused_in_a_process("run", "kip320", "--engine", "fast", "--resume", "ck", cwd=tmp_path)
    assert "checkpoint.json is not a regular file (a FIFO)" in line
