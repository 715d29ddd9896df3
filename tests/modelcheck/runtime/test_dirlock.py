"""A checkpoint directory is held by the run that uses it: a second run is
refused with one line (exit 2), a lock left by a dead process is taken over,
and the lock file goes when its run ends."""

import os
import signal
import subprocess
import sys
import time

import pytest

from support import ROOT, invoke, one_error_line
from modelcheck.runtime.dirlock import FILE, DirectoryLock
from modelcheck.errors import InputError


def test_a_held_directory_is_refused_and_released_on_exit(tmp_path):
    with DirectoryLock(str(tmp_path), "--checkpoint"):
        assert open(tmp_path / FILE).read() == f"{os.getpid()}\n"
        with pytest.raises(InputError, match=f"is in use by another modelcheck run \\(process {os.getpid()}\\)"):
            DirectoryLock(str(tmp_path), "--checkpoint").acquire()
    assert not (tmp_path / FILE).exists()
    with DirectoryLock(str(tmp_path), "--checkpoint"):  # free again
        pass


def test_a_directory_where_no_lock_can_be_made_is_one_line(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="--checkpoint-dir .*file/ck: cannot lock it"):
        DirectoryLock(str(tmp_path / "file" / "ck"), "--checkpoint-dir").acquire()


def dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_a_lock_left_by_a_dead_process_is_taken_over(in_tmp):
    os.makedirs("ck")
    (in_tmp / "ck" / FILE).write_text(f"{dead_pid()}\n")
    code, out, err = invoke("run", "kip320", "--const", "Replicas=2", "--engine", "fast", "--checkpoint", "ck",
                            "--max-states", "100")
    assert code == 0, err
    assert not (in_tmp / "ck" / FILE).exists()


def test_a_second_run_on_a_spark_checkpoint_in_use_is_refused_before_spark_starts(in_tmp):
    pytest.importorskip("pyspark")
    with DirectoryLock("ck", "--checkpoint-dir"):
        code, _, err = invoke("run", "kip320", "--const", "Replicas=2", "--engine", "spark", "--checkpoint-dir", "ck")
    assert code == 2 and "--checkpoint-dir ck is in use by another modelcheck run" in one_error_line(err)


def test_two_real_runs_into_one_checkpoint_directory(tmp_path):
    """The first run holds the directory; the second (other invariants) is
    refused at once with one line; once the first is stopped, the
    directory is free and its checkpoint resumes. The first run is one
    that lasts (4 replicas, about a minute), so that it still holds the
    directory when the second starts."""
    command = [sys.executable, "-c", "from cli import main; main()", "run", "kip320", "--const", "Replicas=4",
               "--engine", "fast", "--kernels", "numpy",  # no C compiler beside it: the lock is the point here
               "--checkpoint", "ck", "--checkpoint-every", "1000"]
    env = dict(os.environ, PYTHONPATH=ROOT)
    first = subprocess.Popen(command, cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        lock, deadline = tmp_path / "ck" / FILE, time.monotonic() + 60
        while not (lock.exists() and lock.read_text().strip() == str(first.pid)):
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        second = subprocess.run(command + ["--inv", "TypeOk"], cwd=str(tmp_path), env=env, capture_output=True,
                                text=True, timeout=60)
        assert second.returncode == 2, second.stderr
        assert f"--checkpoint ck is in use by another modelcheck run (process {first.pid})" in \
            one_error_line(second.stderr)
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 130
    assert not lock.exists()
    assert (tmp_path / "ck" / "checkpoint.json").exists()
    again = subprocess.run(command[:-4] + ["--resume", "ck", "--max-states", "1"], cwd=str(tmp_path), env=env,
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr


@pytest.mark.parametrize("kind", ["symlink", "dangling-symlink", "fifo", "hard-link"])
def test_a_lock_file_that_is_not_a_plain_file_of_its_own_is_refused_and_left_alone(tmp_path, kind):
    """A shared checkpoint directory: anyone who can write there could put
    a link named like the lock file to a file of the user's, which taking
    the lock would truncate."""
    precious = tmp_path / "precious"
    precious.write_text("the user's own data\n")
    directory = tmp_path / "ck"
    directory.mkdir()
    lock = directory / FILE
    if kind == "symlink":
        lock.symlink_to(precious)
    elif kind == "dangling-symlink":
        lock.symlink_to(tmp_path / "created-through-the-link")
    elif kind == "fifo":
        os.mkfifo(lock)
    else:
        os.link(precious, lock)
    with pytest.raises(InputError, match=f"--checkpoint {directory}: its lock file .* remove it"):
        DirectoryLock(str(directory), "--checkpoint").acquire()
    assert precious.read_text() == "the user's own data\n"
    assert not (tmp_path / "created-through-the-link").exists()
    assert os.path.lexists(lock)  # not removed either: it is not the run's
