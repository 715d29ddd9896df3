"""Directories code is loaded from: only the user's own, closed to others,
in directories others cannot rename them out of."""

import os
import subprocess
import sys

import pytest

from modelcheck.runtime import private
from support import ROOT


@pytest.fixture
def closed(tmp_path):
    """A directory of this user's, open to nobody else (as pytest's own are)."""
    path = tmp_path / "mine"
    path.mkdir(mode=0o700)
    return path


def test_a_private_directory_passes(closed):
    assert private.problem_with(str(closed)) is None


def test_a_directory_others_can_write_to_fails(closed):
    closed.chmod(0o770)
    assert private.problem_with(str(closed)) == "can be written by other users"


def test_a_directory_in_one_others_can_write_to_fails_unless_it_is_sticky(closed):
    inner = closed / "cache"
    inner.mkdir(mode=0o700)
    closed.chmod(0o777)
    assert "which other users can write to" in private.problem_with(str(inner))
    closed.chmod(0o1777)  # as /tmp: others cannot rename what is not theirs
    assert private.problem_with(str(inner)) is None


def test_a_symbolic_link_is_judged_by_where_it_leads_and_where_it_is(closed):
    open_dir = closed / "open"
    open_dir.mkdir(mode=0o777)
    open_dir.chmod(0o777)
    (closed / "link").symlink_to(open_dir)
    assert private.problem_with(str(closed / "link")) == "can be written by other users"


def test_a_directory_of_another_user_fails(closed):
    if os.geteuid() != 0:
        pytest.skip("needs root to give a directory to another user")
    os.chown(closed, 1, 1)
    assert private.problem_with(str(closed)) == "belongs to another user (uid 1)"


def test_choose_falls_back_to_a_directory_of_the_users_own_then_to_a_new_one(tmp_path, monkeypatch, capfd):
    monkeypatch.setattr(private.tempfile, "tempdir", str(tmp_path))
    taken = tmp_path / "taken"
    taken.mkdir(mode=0o777)
    taken.chmod(0o777)
    first = private.choose(str(taken), "test", "the test cache")
    assert first.path == str(tmp_path / f"modelcheck-test-{os.geteuid()}")
    assert os.stat(first.path).st_mode & 0o777 == 0o700
    assert "the test cache" in capfd.readouterr().err
    os.chmod(first.path, 0o777)  # someone opened it up: it is not used again
    second = private.choose(str(taken), "test", "the test cache")
    assert second.path not in (first.path, str(taken)) and "private to this run" in second.note
    assert os.stat(second.path).st_mode & 0o777 == 0o700


def test_a_directory_private_to_a_run_is_removed_when_it_ends(tmp_path):
    code = ("import sys; from modelcheck.runtime import private; "
            f"print(private.choose({str(tmp_path / 'nowhere' / 'x')!r}, 't', 'the test cache').path)")
    os.chmod(tmp_path, 0o700)
    (tmp_path / "nowhere").mkdir(mode=0o777)
    os.chmod(tmp_path / "nowhere", 0o777)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, TMPDIR=str(tmp_path / "nowhere")))
    made = done.stdout.strip()
    assert made.startswith(str(tmp_path / "nowhere")) and not os.path.exists(made), done.stderr
