"""The check that the suite leaves the repository clean (clean_tree.py)."""

import os
import subprocess

from clean_tree import left_behind, tree_state


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_a_file_left_in_an_ignored_folder_is_seen(tmp_path):
    git("init", "-q", cwd=tmp_path)
    (tmp_path / ".gitignore").write_text("modelcheck-out/\n")
    (tmp_path / "kept.txt").write_text("a\n")
    git("add", ".", cwd=tmp_path)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start", cwd=tmp_path)
    (tmp_path / "modelcheck-out").mkdir()
    (tmp_path / "modelcheck-out" / "old.itf.json").write_text("{}")  # there before the session: not the tests'
    (tmp_path / ".venv").mkdir()
    before = tree_state(str(tmp_path))
    (tmp_path / "modelcheck-out" / "kip320-WrittenLeadsToCommitted.itf.json").write_text("{}")
    (tmp_path / "kept.txt").write_text("b\n")
    (tmp_path / ".venv" / "cache").write_text("")  # a tool's own cache is left out
    assert left_behind(before, tree_state(str(tmp_path))) == [
        " M kept.txt", "!! modelcheck-out/kip320-WrittenLeadsToCommitted.itf.json"]


def test_the_tests_run_outside_the_repository():
    assert not os.path.abspath(os.getcwd()).startswith(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
