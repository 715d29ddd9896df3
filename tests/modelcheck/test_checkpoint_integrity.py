"""Damaged and inconsistent checkpoints are refused with one line (exit 2),
never resumed into a wrong count, and a mistyped --resume creates nothing."""

import json
import os

import numpy as np
import pytest

from modelcheck import checkpoint as ckpt
from support import invoke, invoke_json, one_error_line

RUN = ("run", "kip320", "--engine", "fast")


@pytest.fixture
def saved(in_tmp):
    """A checkpoint of kip320 cut short after a few levels."""
    code, out, _ = invoke_json(*RUN, "--max-states", "2000", "--checkpoint", "ck")
    assert code == 0 and out["result"] == "bounded-ok"
    return in_tmp / "ck" / ckpt.FILE


def resume_error(fragment: str, *more) -> str:
    code, out, err = invoke(*RUN, "--resume", "ck", *more)
    assert code == 2 and "distinct states" not in out, out
    line = one_error_line(err)
    assert fragment in line, line
    return line


def test_an_undamaged_checkpoint_resumes_to_the_full_count(saved):
    code, out, _ = invoke_json(*RUN, "--resume", "ck")
    assert (code, out["result"], out["distinct_states"]) == (0, "ok", 737794)


def test_flipped_bytes_are_refused(saved):
    data = bytearray(saved.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 8] = bytes(b ^ 0xFF for b in data[middle:middle + 8])
    saved.write_bytes(bytes(data))
    resume_error("is damaged")


def test_a_truncated_file_is_refused(saved):
    saved.write_bytes(saved.read_bytes()[: saved.stat().st_size // 2])
    resume_error("is damaged")


def test_an_empty_file_is_refused_not_taken_for_an_interrupt(saved):
    saved.write_bytes(b"")
    resume_error("is damaged")


def rewrite(path, change, fix_digest: bool) -> None:
    """Rewrite the checkpoint with ``change`` applied to its arrays (a valid
    zip, so only the checks on the content can catch it)."""
    with np.load(path) as data:
        header = json.loads(str(data["header"]))
        arrays = {k: data[k] for k in ckpt.ARRAYS}
    change(arrays, header)
    if fix_digest:
        header["digest"] = ckpt.digest(arrays, header)
    with open(path, "wb") as f:
        np.savez(f, header=np.array(json.dumps(header)), **arrays)


def halve_visited(arrays, header):
    arrays["visited"] = arrays["visited"][: arrays["visited"].size // 2]


def test_a_visited_set_cut_in_half_fails_the_digest(saved):
    rewrite(saved, halve_visited, fix_digest=False)
    resume_error("does not match the digest")


def test_a_visited_set_cut_in_half_fails_the_structure_even_with_a_matching_digest(saved):
    rewrite(saved, halve_visited, fix_digest=True)
    resume_error("disagree")


def test_an_unsorted_visited_set_is_refused(saved):
    rewrite(saved, lambda a, h: a.update(visited=a["visited"][::-1].copy()), fix_digest=True)
    resume_error("not sorted")


def test_a_frontier_outside_the_visited_set_is_refused(saved):
    rewrite(saved, lambda a, h: a.update(level_words=a["level_words"] + np.uint64(1)), fix_digest=True)
    resume_error("not in its visited set")


def test_a_parent_outside_the_level_before_is_refused(saved):
    def point_forward(a, h):
        a["parents"] = a["parents"].copy()
        a["parents"][-1] = a["parents"].size - 1
    rewrite(saved, point_forward, fix_digest=True)
    resume_error("parent")


def lower_depth(arrays, header):
    header["depth"] -= 3


def null_reached(arrays, header):
    header["sometimes"] = {name: None for name in header["sometimes"]}


def relabel_invariants(arrays, header):
    header["identity"]["invariants"] = ["TypeOk"]


def edit_constant(arrays, header):
    header["identity"]["constants"]["MaxRecords"] += 1


# each edit, and a run the edited header would claim to be
EDITS = [(lower_depth, ()), (null_reached, ()), (relabel_invariants, ("--inv", "TypeOk")),
         (edit_constant, ("--const", "MaxRecords=3"))]


@pytest.mark.parametrize("change, run", EDITS, ids=[c.__name__ for c, _ in EDITS])
def test_every_edit_of_the_header_fails_the_digest(saved, change, run):
    rewrite(saved, change, fix_digest=False)
    resume_error("does not match the digest", *run)


def test_a_lowered_depth_fails_the_structure_even_with_a_matching_digest(saved):
    rewrite(saved, lower_depth, fix_digest=True)
    resume_error("its depth is not its number of levels")


def test_a_reached_depth_beyond_the_checkpoint_fails_the_structure(saved):
    rewrite(saved, lambda a, h: h["sometimes"].update({next(iter(h["sometimes"])): h["depth"] + 1}), fix_digest=True)
    resume_error("reachability checks")


def test_an_identity_of_the_wrong_shape_is_one_line(saved):
    rewrite(saved, lambda a, h: h["identity"].update(colour="blue"), fix_digest=True)
    resume_error("identity is unreadable")


def test_a_max_depth_below_the_checkpoint_is_refused(saved):
    with np.load(saved) as data:
        depth = json.loads(str(data["header"]))["depth"]
    code, out, err = invoke(*RUN, "--resume", "ck", "--max-depth", str(depth - 1))
    assert code == 2 and "distinct states" not in out
    assert f"already holds {depth} levels, deeper than --max-depth {depth - 1}" in one_error_line(err)


def test_a_max_depth_at_the_checkpoint_is_honoured_exactly(saved):
    with np.load(saved) as data:
        depth = json.loads(str(data["header"]))["depth"]
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


def test_a_ctrl_c_during_a_save_leaves_the_last_checkpoint_and_no_temporary_file(saved, monkeypatch):
    """A real SIGINT to this process while the file is being written (as a
    second Ctrl-C during the final save): the save is abandoned, its
    temporary file removed, and the previous checkpoint still resumes."""
    import signal
    from support import model
    from modelcheck.engines.base import CheckOptions

    m = model("kip320")
    identity = ckpt.RunIdentity.of(m, CheckOptions(m.spec.default_invariants))
    state = ckpt.load("ck", identity)
    real_savez = np.savez

    def interrupted_savez(file, **arrays):
        file.write(b"PK" + bytes(1 << 20))  # part of the file is on disk when the signal comes
        os.kill(os.getpid(), signal.SIGINT)
        real_savez(file, **arrays)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with monkeypatch.context() as patched, pytest.raises(KeyboardInterrupt):
            patched.setattr(ckpt.np, "savez", interrupted_savez)
            ckpt.save("ck", identity, state)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert sorted(os.listdir("ck")) == [ckpt.FILE]
    code, out, err = invoke(*RUN, "--resume", "ck", "--json")
    assert code == 0, err
    assert json.loads(out)["distinct_states"] == 737794
