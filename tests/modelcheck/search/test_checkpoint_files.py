"""A checkpoint's array files: streamed in, mapped back, each checked
against its SHA-256, a level on file linked rather than copied."""

import errno
import hashlib
import os

import numpy as np
import pytest

from modelcheck.search import checkpoint_files
from modelcheck.search.checkpoint_files import ArrayWriter, Damaged, map_arrays
from modelcheck.runtime.reading import Refused


def written(tmp_path, frontier_rows=5, words=3):
    """Every array, written from several chunks."""
    rng = np.random.default_rng(3)
    arrays = {"level_sizes": np.array([1, 2, frontier_rows], np.int64),
              "parents": rng.integers(-1, 9, 3 + frontier_rows).astype(np.int64),
              "actions": rng.integers(-1, 9, 3 + frontier_rows).astype(np.int32),
              "visited": rng.integers(1, 2 ** 63, 3 + frontier_rows, dtype=np.uint64),
              "frontier": rng.integers(0, 2 ** 63, (frontier_rows, words), dtype=np.uint64)}
    out = ArrayWriter(str(tmp_path))
    for name, a in arrays.items():
        out.write(name, [a[:2], a[2:2], a[2:]], a.shape[1:])
    out.sync()
    return arrays, out.described


def test_arrays_written_in_chunks_map_back_equal(tmp_path):
    arrays, described = written(tmp_path)
    mapped = map_arrays(str(tmp_path), described, "--resume ck:")
    for name, a in arrays.items():
        assert mapped[name].shape == a.shape and np.array_equal(mapped[name], a), name
        assert isinstance(mapped[name], np.memmap)  # read through the page cache, not into memory


def test_a_changed_byte_fails_that_arrays_digest(tmp_path):
    _, described = written(tmp_path)
    with open(tmp_path / "actions", "r+b") as f:
        f.seek(5)
        byte = f.read(1)
        f.seek(5)
        f.write(bytes([byte[0] ^ 1]))
    with pytest.raises(Damaged, match="actions does not match the digest"):
        map_arrays(str(tmp_path), described, "")


def test_a_fifo_in_place_of_an_array_is_refused_without_waiting(tmp_path):
    _, described = written(tmp_path)
    os.remove(tmp_path / "visited")
    os.mkfifo(tmp_path / "visited")
    with pytest.raises(Refused, match="not a regular file"):
        map_arrays(str(tmp_path), described, "--resume ck:")


def level_file(tmp_path, rows=4, words=3):
    data = np.arange(rows * words, dtype=np.uint64).reshape(rows, words)
    path = tmp_path / "level-1"
    data.tofile(path)
    (tmp_path / "ck").mkdir()
    return str(path), data


def test_a_level_on_file_is_linked_not_copied(tmp_path):
    source, data = level_file(tmp_path)
    out = ArrayWriter(str(tmp_path / "ck"))
    out.link("frontier", source, data.shape)
    assert os.stat(tmp_path / "ck" / "frontier").st_ino == os.stat(source).st_ino
    os.remove(source)  # the search is done with its level: the checkpoint keeps it
    assert out.described["frontier"] == {"shape": [4, 3],
                                         "sha256": hashlib.sha256(data.tobytes()).hexdigest()}
    assert np.array_equal(np.fromfile(tmp_path / "ck" / "frontier", np.uint64).reshape(data.shape), data)


def test_where_a_link_cannot_be_made_the_level_is_copied(tmp_path, monkeypatch):
    source, data = level_file(tmp_path)

    def no_link(src, dst):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(checkpoint_files.os, "link", no_link)
    out = ArrayWriter(str(tmp_path / "ck"))
    out.link("frontier", source, data.shape)
    assert os.stat(tmp_path / "ck" / "frontier").st_ino != os.stat(source).st_ino
    assert np.array_equal(np.fromfile(tmp_path / "ck" / "frontier", np.uint64).reshape(data.shape), data)


def test_a_level_file_of_the_wrong_size_is_not_taken(tmp_path):
    source, data = level_file(tmp_path)
    out = ArrayWriter(str(tmp_path / "ck"))
    with pytest.raises(OSError, match="not 120"):
        out.link("frontier", source, (data.shape[0] + 1, data.shape[1]))
