"""Every file a Spark ``--resume`` reads is vouched for by its checkpoint: a
visited run or a level file rewritten, truncated, emptied, deleted or
replaced by a FIFO, or an edited manifest, is refused with exit 2 and one
line naming the file, before Spark starts; never resumed into a wrong count."""

import json
import os
import shutil

import numpy as np
import pytest

from support import invoke, model, one_error_line
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.fast import FastChecker
from modelcheck.engines.spark import SparkChecker
from modelcheck.runtime.limits import Limits
from modelcheck.spark import integrity, resume
from modelcheck.spark.session import start_context
from modelcheck.spark.settings import SparkSettings

CONSTS = {"Replicas": 2}
RESUME = ("run", "kip320", "--const", "Replicas=2", "--engine", "spark")


@pytest.fixture(scope="module")
def context(tmp_path_factory):
    sc = start_context(SparkSettings(master="local[2]"), "modelcheck integrity tests",
                       str(tmp_path_factory.mktemp("spark")))
    try:
        yield sc
    finally:
        sc.stop()


def spark_check(context, engine_options, **options):
    m = model("kip320", **CONSTS)
    return SparkChecker(context).check(m, CheckOptions(m.spec.default_invariants, engine_options=engine_options,
                                                        **options))


@pytest.fixture(scope="module")
def pristine(context, tmp_path_factory):
    """A search of kip320 stopped after a few levels, checkpointed into
    ``ck`` (kept as a copy, restored before each test)."""
    root = tmp_path_factory.mktemp("integrity")
    directory = str(root / "ck")
    stopped = spark_check(context, {"checkpoint_dir": directory, "checkpoint_levels": 2, "partitions": 2,
                                    "lead_in": 0}, limits=Limits(max_states=1000))
    assert stopped.result == "bounded-ok"
    shutil.copytree(directory, str(root / "pristine"))
    return directory, str(root / "pristine")


@pytest.fixture
def ck(pristine):
    directory, copy = pristine
    shutil.rmtree(directory)
    shutil.copytree(copy, directory)
    return directory


def manifest(directory: str) -> dict:
    with open(os.path.join(directory, resume.MANIFEST)) as f:
        return json.load(f)


def a_run(directory: str, level: int = 3, partition: int = 1) -> str:
    body = manifest(directory)
    return os.path.join(body["level"]["visited"], integrity.run_name(partition, level))


def a_level_file(directory: str, name: str = "part-00000") -> str:
    return os.path.join(manifest(directory)["level"]["rdd"].removeprefix("file:"), name)


def refused(directory: str, *more) -> str:
    code, out, err = invoke(*RESUME, "--resume", directory, *more)
    assert code == 2 and "distinct states" not in out, (code, out)
    return one_error_line(err)


def empty_run(path: str) -> None:
    none = np.zeros(0, np.uint64)
    with open(path, "wb") as f:
        np.savez(f, fps=none, parents=none, actions=np.zeros(0, np.int32))


def truncate(path: str) -> None:
    with open(path, "rb+") as f:
        f.truncate(os.path.getsize(path) // 2)


def empty(path: str) -> None:
    open(path, "w").close()


def fifo(path: str) -> None:
    os.unlink(path)
    os.mkfifo(path)


DAMAGE = {"rewritten with empty arrays": (empty_run, "does not match the digest"),
          "truncated": (truncate, "is damaged"), "emptied": (empty, "is damaged"), "deleted": (os.unlink, "is missing"),
          "a FIFO": (fifo, "is not a regular file (a FIFO)")}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_visited_run_is_refused_naming_it(ck, damage):
    change, said = DAMAGE[damage]
    path = a_run(ck)
    change(path)
    line = refused(ck)
    assert path in line and said in line, line


@pytest.mark.parametrize("damage", ["truncated", "emptied", "deleted", "a FIFO"])
def test_a_damaged_level_file_is_refused_naming_it(ck, damage):
    change, _ = DAMAGE[damage]
    path = a_level_file(ck)
    change(path)
    line = refused(ck)
    assert path in line, line


def test_a_deleted_checksum_file_of_the_level_is_refused(ck):
    path = a_level_file(ck, ".part-00001.crc")
    os.unlink(path)
    assert path in refused(ck)


def rewrite_manifest(directory: str, change, fix_digest: bool) -> None:
    body = manifest(directory)
    change(body)
    if fix_digest:
        body["digest"] = resume.body_digest(body)
    with open(os.path.join(directory, resume.MANIFEST), "w") as f:
        json.dump(body, f)


def test_an_edited_manifest_fails_its_digest(ck):
    rewrite_manifest(ck, lambda b: b["level"].update(depth=b["level"]["depth"] - 2), fix_digest=False)
    line = refused(ck)
    assert resume.MANIFEST in line and "does not match the digest" in line


def nested(path: str) -> None:
    with open(path, "w") as f:
        f.write("[" * 100_000)


@pytest.mark.parametrize("change", [truncate, empty, nested])
def test_a_damaged_manifest_is_one_line(ck, change):
    change(os.path.join(ck, resume.MANIFEST))
    assert f"{resume.MANIFEST} is not a readable checkpoint" in refused(ck)


def test_a_run_and_its_digests_rewritten_together_fail_the_count(ck):
    """Past the digests, the structure: emptied runs re-vouched for by an
    edited manifest still leave fewer states than the checkpoint counts."""
    path = a_run(ck)
    empty_run(path)
    name = integrity.run_name(1, 3)
    digest = integrity.content_digest(integrity.run_arrays(path))
    rewrite_manifest(ck, lambda b: b["files"]["runs"].update({name: digest}), fix_digest=True)
    total = manifest(ck)["level"]["total"]
    assert f"states, not the {total:,} its checkpoint counted" in refused(ck)


def test_a_state_moved_to_another_partition_is_refused(ck):
    path = a_run(ck, level=4, partition=0)
    arrays = integrity.run_arrays(path)
    arrays["fps"] = arrays["fps"].copy()
    arrays["fps"][-1] += np.uint64(1)  # now odd: partition 1's
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    name = integrity.run_name(0, 4)
    rewrite_manifest(ck, lambda b: b["files"]["runs"].update({name: integrity.content_digest(arrays)}),
                     fix_digest=True)
    assert "holds states of another partition" in refused(ck)


def test_a_max_depth_below_the_checkpoint_is_refused(ck):
    depth = manifest(ck)["level"]["depth"]
    assert f"already holds {depth} levels, deeper than --max-depth {depth - 1}" in \
        refused(ck, "--max-depth", str(depth - 1))


def test_an_undamaged_checkpoint_resumes_exactly_also_to_its_own_depth(context, ck):
    depth = manifest(ck)["level"]["depth"]
    m = model("kip320", **CONSTS)
    bounded = FastChecker().check(m, CheckOptions(m.spec.default_invariants, max_depth=depth))
    at_depth = spark_check(context, {"resume": ck}, max_depth=depth)
    assert (at_depth.result, at_depth.distinct_states, at_depth.depth) == \
           (bounded.result, bounded.distinct_states, bounded.depth) == ("bounded-ok", bounded.distinct_states, depth)
    whole = spark_check(context, {"resume": ck})
    assert (whole.result, whole.distinct_states, whole.depth) == ("ok", 5973, 18)
