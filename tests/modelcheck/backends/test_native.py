"""Shared libraries are loaded only once checked: their identity (compiler,
flags, source) and their bytes, before the system loads them, and the
identity compiled into them after. Real builds with the system compiler,
into real cache directories."""

import ctypes
import os
import shutil

import pytest

from modelcheck.backends import native

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler")

FLAGS = ("-O1", "-shared", "-fPIC")
ONE = "int mc_value(void) { return 1; }\n"
TWO = "int mc_value(void) { return 2; }\n"


def value(built) -> int:
    return built.library.mc_value()


@pytest.fixture
def cache(tmp_path):
    directory = tmp_path / "cache"
    directory.mkdir(mode=0o700)
    return str(directory)


def test_a_library_carries_its_identity_in_itself_and_in_its_trailer(cache):
    built = native.load(ONE, "test", FLAGS, cache)
    identity = native.identity_of(native.compiler(), FLAGS, ONE)
    assert (value(built), built.cached) == (1, False)
    assert (ctypes.c_char * 65).in_dll(built.library, native.IDENTITY_SYMBOL).value.decode() == identity
    with open(built.path, "rb") as f:
        data = f.read()
    trailer = data[-native.TRAILER_SIZE:]
    assert trailer.startswith(native.MAGIC) and identity.encode() in trailer
    assert os.stat(built.path).st_mode & 0o777 == 0o600
    again = native.load(ONE, "test", FLAGS, cache)
    assert (again.path, again.cached, value(again)) == (built.path, True, 1)


def test_a_library_copied_over_another_name_is_built_again(cache):
    one, two = native.load(ONE, "swap", FLAGS, cache), native.load(TWO, "swap", FLAGS, cache)
    shutil.copyfile(one.path, two.path)
    assert not native.is_cached(TWO, "swap", FLAGS, cache)
    # a new process: this one has the library at that path loaded already (the system would hand it back)
    from support import ROOT
    import subprocess
    import sys
    code = (f"from modelcheck.backends import native; b = native.load({TWO!r}, 'swap', {FLAGS!r}, {cache!r}); "
            f"print(b.library.mc_value(), b.cached)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.split() == ["2", "False"], done.stderr
    assert "was built from another source; it was built again" in done.stderr
    assert native.is_cached(TWO, "swap", FLAGS, cache)


@pytest.mark.parametrize("damage", ["truncated", "flipped", "no-trailer", "empty"])
def test_a_damaged_library_is_never_loaded(cache, damage):
    built = native.load(ONE, "damaged", FLAGS, cache)
    identity = native.identity_of(native.compiler(), FLAGS, ONE)
    with open(built.path, "r+b") as f:
        data = f.read()
        if damage == "truncated":
            f.truncate(len(data) // 2)
        elif damage == "flipped":
            f.seek(len(data) // 3)
            f.write(bytes([data[len(data) // 3] ^ 0xFF]))
        elif damage == "no-trailer":
            f.truncate(len(data) - native.TRAILER_SIZE)
        else:
            f.truncate(0)
    with pytest.raises(native.Unusable):
        native._checked_library(built.path, identity)


def test_a_library_of_another_user_is_not_loaded(cache):
    if os.geteuid() != 0:
        pytest.skip("needs root to give a file to another user")
    built = native.load(ONE, "owned", FLAGS, cache)
    os.chown(built.path, 1, 1)
    with pytest.raises(native.Unusable, match="another user"):
        native._checked_library(built.path, native.identity_of(native.compiler(), FLAGS, ONE))


def test_a_library_is_synced_before_it_takes_its_name(cache, monkeypatch):
    """A crash right after the rename must not leave a name on a library
    whose bytes never reached the disk."""
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src, dst):
        events.append(("replace", src, dst))
        real_replace(src, dst)

    monkeypatch.setattr(native.os, "fsync", fsync)
    monkeypatch.setattr(native.os, "replace", replace)
    built = native.load(ONE, "synced", FLAGS, cache)
    renamed = next(k for k, e in enumerate(events) if e[0] == "replace")
    temporary = events[renamed][1]
    assert ("fsync", temporary) in events[:renamed]
    assert ("fsync", cache) in events[renamed:] and events[renamed][2] == built.path


def test_a_cache_directory_others_can_write_to_is_not_used(tmp_path, capfd):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    chosen = native.cache_dir(str(shared))
    assert chosen != str(shared) and os.stat(chosen).st_mode & 0o777 == 0o700
    assert "can be written by other users" in capfd.readouterr().err


def test_a_compiler_that_fails_or_is_missing_is_said_plainly(cache, monkeypatch):
    monkeypatch.setenv("CC", os.path.join(cache, "no-such-cc"))
    with pytest.raises(native.LibraryUnavailable, match="no-such-cc"):
        native.load("int x;\n", "cc", FLAGS, cache)
    monkeypatch.setenv("CC", "false")
    with pytest.raises(native.LibraryUnavailable, match="failed"):
        native.load("int y;\n", "cc", FLAGS, cache)
