"""Damaged and inconsistent checkpoints are refused with one line (exit 2),
never resumed into a wrong count, and a mistyped --resume creates nothing."""

import json
import os

import numpy as np
import pytest

from modelcheck.search import checkpoint as ckpt
from modelcheck.search.checkpoint_files import map_arrays
from modelcheck.engines.visited import SortedVisited
from support import CHECKPOINT_LAYOUT, checkpoint_contents, checkpoint_layout, invoke, invoke_json, one_error_line

RUN = ("run", "kip320", "--engine", "fast")


@pytest.fixture
def saved(in_tmp):
    """A checkpoint of kip320 cut short after a few levels; its directory."""
    code, out, _ = invoke_json(*RUN, "--max-states", "2000", "--checkpoint", "ck")
    assert code == 0 and out["result"] == "bounded-ok"
    return in_tmp / "ck"


def resume_error(fragment: str, *more) -> str:
    code, out, err = invoke(*RUN, "--resume", "ck", *more)
    assert code == 2 and "distinct states" not in out, out
    line = one_error_line(err)
    assert fragment in line, line
    return line


def header_of(saved) -> dict:
    return json.loads((saved / ckpt.FILE).read_text())


def data_file(saved, name: str):
    return saved / header_of(saved)["data"] / name


def test_an_undamaged_checkpoint_resumes_to_the_full_count(saved):
    assert checkpoint_layout(saved) == CHECKPOINT_LAYOUT
    code, out, _ = invoke_json(*RUN, "--resume", "ck")
    assert (code, out["result"], out["distinct_states"]) == (0, "ok", 737794)


@pytest.mark.parametrize("name", ["visited", "frontier", "parents", "actions", "level_sizes"])
def test_flipped_bytes_in_any_array_are_refused(saved, name):
    f = data_file(saved, name)
    data = bytearray(f.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 4] = bytes(b ^ 0xFF for b in data[middle:middle + 4])
    f.write_bytes(bytes(data))
    resume_error(f"{name} does not match the digest")


def test_a_truncated_array_is_refused(saved):
    f = data_file(saved, "parents")
    f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    resume_error("parents holds")


def test_a_missing_array_is_refused(saved):
    data_file(saved, "visited").unlink()
    resume_error("visited is missing")


def test_an_empty_header_is_refused_not_taken_for_an_interrupt(saved):
    (saved / ckpt.FILE).write_bytes(b"")
    resume_error("is damaged")


def rewrite(saved, change) -> None:
    """Save the checkpoint again with ``change`` applied to its arrays: a
    checkpoint whose digests all match, so only the checks on its content
    can catch the change."""
    header = header_of(saved)
    mapped = map_arrays(str(saved / header["data"]), header["arrays"], "")
    arrays = {name: np.array(a) for name, a in mapped.items()}
    del mapped
    change(arrays)
    bounds = np.cumsum(arrays["level_sizes"])[:-1]
    state = ckpt.SearchState(header["depth"], np.ascontiguousarray(arrays["frontier"].T), header["level_start"],
                             [arrays["visited"]], arrays["visited"].size, list(np.split(arrays["parents"], bounds)),
                             list(np.split(arrays["actions"], bounds)), header["generated"], header["sometimes"])
    ckpt.save(str(saved), ckpt.RunIdentity(**header["identity"]), state)


def test_a_visited_set_cut_in_half_fails_the_structure(saved):
    rewrite(saved, lambda a: a.update(visited=a["visited"][: a["visited"].size // 2].copy()))
    resume_error("disagree")


def test_a_fingerprint_visited_twice_is_refused(saved):
    def repeat(a):
        a["visited"][1] = a["visited"][0]
    rewrite(saved, repeat)
    resume_error("holds a fingerprint more than once")


def test_a_frontier_outside_the_visited_set_is_refused(saved):
    rewrite(saved, lambda a: a.update(frontier=a["frontier"] + np.uint64(1)))
    resume_error("not in its visited set")


def test_a_parent_outside_the_level_before_is_refused(saved):
    def point_forward(a):
        a["parents"][-1] = a["parents"].size - 1
    rewrite(saved, point_forward)
    resume_error("parent")


def edit_header(saved, change, fix_digest: bool) -> None:
    header = header_of(saved)
    change(header)
    if fix_digest:
        header["digest"] = ckpt.header_digest(header)
    (saved / ckpt.FILE).write_text(json.dumps(header))


def lower_depth(header):
    header["depth"] -= 3


def null_reached(header):
    header["sometimes"] = {name: None for name in header["sometimes"]}


def relabel_invariants(header):
    header["identity"]["invariants"] = ["TypeOk"]


def edit_constant(header):
    header["identity"]["constants"]["MaxRecords"] += 1


def swap_a_digest(header):
    header["arrays"]["visited"]["sha256"] = header["arrays"]["parents"]["sha256"]


# each edit, and a run the edited header would claim to be
EDITS = [(lower_depth, ()), (null_reached, ()), (relabel_invariants, ("--inv", "TypeOk")),
         (edit_constant, ("--const", "MaxRecords=3")), (swap_a_digest, ())]


@pytest.mark.parametrize("change, run", EDITS, ids=[c.__name__ for c, _ in EDITS])
def test_every_edit_of_the_header_fails_the_digest(saved, change, run):
    edit_header(saved, change, fix_digest=False)
    resume_error("does not match the digest", *run)


def test_a_lowered_depth_fails_the_structure_even_with_a_matching_digest(saved):
    edit_header(saved, lower_depth, fix_digest=True)
    resume_error("its depth is not its number of levels")


def test_a_reached_depth_beyond_the_checkpoint_fails_the_structure(saved):
    edit_header(saved, lambda h: h["sometimes"].update({next(iter(h["sometimes"])): h["depth"] + 1}),
                fix_digest=True)
    resume_error("reachability checks")


def test_an_identity_of_the_wrong_shape_is_one_line(saved):
    edit_header(saved, lambda h: h["identity"].update(colour="blue"), fix_digest=True)
    resume_error("identity is unreadable")


def test_a_checkpoint_of_an_earlier_version_is_refused_and_kept(in_tmp):
    os.makedirs("ck")
    (in_tmp / "ck" / ckpt.EARLIER_FILE).write_bytes(b"PK")
    resume_error("saved by an earlier modelcheck")
    code, _, err = invoke(*RUN, "--checkpoint", "ck")
    assert code == 2 and "already holds a checkpoint" in one_error_line(err)
    assert os.listdir("ck") == [ckpt.EARLIER_FILE]


def test_a_max_depth_below_the_checkpoint_is_refused(saved):
    depth = header_of(saved)["depth"]
    code, out, err = invoke(*RUN, "--resume", "ck", "--max-depth", str(depth - 1))
    assert code == 2 and "distinct states" not in out
    assert f"already holds {depth} levels, deeper than --max-depth {depth - 1}" in one_error_line(err)


def test_a_max_depth_at_the_checkpoint_is_honoured_exactly(saved):
    depth = header_of(saved)["depth"]
    resumed = invoke_json(*RUN, "--resume", "ck", "--max-depth", str(depth))
    fresh = invoke_json(*RUN, "--max-depth", str(depth))
    assert resumed[0] == fresh[0] == 0
    assert {k: resumed[1][k] for k in ("result", "distinct_states", "depth")} == \
           {k: fresh[1][k] for k in ("result", "distinct_states", "depth")}
    assert resumed[1]["depth"] == depth


def test_a_mistyped_resume_path_creates_nothing(in_tmp):
    line = resume_error_for(("--resume", "no/such/dir"))
    assert "no such directory" in line
    assert not os.path.exists(in_tmp / "no")


def test_resume_naming_a_file_says_resume(in_tmp):
    (in_tmp / "f").write_text("")
    assert "--resume f is a file" in resume_error_for(("--resume", "f"))


def resume_error_for(args) -> str:
    code, _, err = invoke(*RUN, *args)
    assert code == 2
    return one_error_line(err)


def test_a_ctrl_c_during_a_save_leaves_the_last_checkpoint_and_no_partial_directory(saved):
    """A real SIGINT to this process while the arrays are being written (as
    a second Ctrl-C during the final save): the save is abandoned, its
    data directory removed, and the previous checkpoint still resumes."""
    import signal
    from support import model
    from modelcheck.engines.base import CheckOptions

    m = model("kip320")
    identity = ckpt.RunIdentity.of(m, CheckOptions(m.spec.default_invariants))
    loaded = ckpt.load("ck", identity, visited_set=lambda fps: SortedVisited(np.unique(fps)))
    before = checkpoint_contents(saved)

    def interrupted_chunks():
        yield loaded.visited.fps[:10]  # part of the array is on disk when the signal comes
        os.kill(os.getpid(), signal.SIGINT)
        yield loaded.visited.fps[10:]

    state = ckpt.SearchState(loaded.depth, np.ascontiguousarray(loaded.level.T), loaded.level_start,
                             interrupted_chunks(), loaded.states, loaded.parents, loaded.actions, loaded.generated,
                             loaded.sometimes)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            ckpt.save("ck", identity, state)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert checkpoint_contents(saved) == before
    assert checkpoint_layout(saved) == CHECKPOINT_LAYOUT
    code, out, err = invoke(*RUN, "--resume", "ck", "--json")
    assert code == 0, err
    assert json.loads(out)["distinct_states"] == 737794


def test_a_header_past_its_cap_is_refused_before_it_is_read(saved):
    with open(saved / ckpt.FILE, "r+b") as f:
        f.truncate(ckpt.HEADER_CAP + 1)  # sparse: nothing is written
    resume_error("is larger than 64 MiB")


def test_a_checkpoint_of_states_of_another_width_is_refused(saved):
    """The same spec and constants, but states packed another way (a
    checkpoint from another version of the spec's port)."""
    from support import model
    from modelcheck.engines.base import CheckOptions
    m = model("kip320")
    identity = ckpt.RunIdentity.of(m, CheckOptions(m.spec.default_invariants))
    words = header_of(saved)["words"]
    with pytest.raises(ckpt.InputError, match=f"states are {words} words wide and this run's {words + 1}"):
        ckpt.load("ck", identity, visited_set=lambda fps: SortedVisited(np.unique(fps)), words=words + 1)


def test_the_data_directory_is_as_readable_as_an_ordinary_one(saved):
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(saved / header_of(saved)["data"]).st_mode & 0o777 == 0o777 & ~umask
