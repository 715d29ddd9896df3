"""Files written whole or not at all (modelcheck/runtime/atomic.py)."""

import os
import stat

import pytest

from modelcheck.runtime.atomic import write_atomically, write_first_free


class Broken(Exception):
    pass


def half_then_fail(f):
    f.write("half of it")
    raise Broken


def test_a_failed_write_leaves_no_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.json"
    with pytest.raises(Broken):
        write_atomically(str(target), half_then_fail)
    assert os.listdir(tmp_path) == []


def test_a_failed_replacement_keeps_the_old_file_whole(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    with pytest.raises(Broken):
        write_atomically(str(target), half_then_fail, replace=True)
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["out.json"]


def test_without_replace_an_existing_file_is_never_touched(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    with pytest.raises(FileExistsError):
        write_atomically(str(target), lambda f: f.write("new"))
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["out.json"]


def test_replace_puts_the_whole_new_content_in_place(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    write_atomically(str(target), lambda f: f.write("new"), replace=True)
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["out.json"]


def test_the_first_free_name_is_taken_and_the_file_has_ordinary_permissions(tmp_path):
    (tmp_path / "a").write_text("taken")
    names = (str(tmp_path / n) for n in ("a", "b", "c"))
    old = os.umask(0o022)
    try:
        written = write_first_free(names, lambda f: f.write(b"bytes"), binary=True)
    finally:
        os.umask(old)
    assert written == str(tmp_path / "b") and (tmp_path / "b").read_bytes() == b"bytes"
    assert stat.S_IMODE(os.stat(written).st_mode) == 0o644
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]


def test_every_name_taken_is_file_exists(tmp_path):
    (tmp_path / "a").write_text("taken")
    with pytest.raises(FileExistsError):
        write_first_free([str(tmp_path / "a")], lambda f: f.write("x"))
    assert os.listdir(tmp_path) == ["a"]


def test_replacing_never_destroys_what_is_not_a_regular_file(tmp_path):
    import errno
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as raised:
        write_atomically(str(fifo), lambda f: f.write("x"), replace=True)
    assert raised.value.errno == errno.EINVAL
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(tmp_path) == ["fifo"]
