"""Attacks on the checker, each made as an attacker (or an accident) would
make it, in real processes, on real files and as real users: each once
made modelcheck give a wrong count, crash, run another user's code, lose a
verdict or damage a file. The next attacks start from these.

* the kernel cache: a library copied over another's name, cut short, or
  not modelcheck's at all; a cache another user can write to; a full one;
* checkpoints resumed under a spec whose code changed;
* a checkpoint directory's lock file that is a symbolic link;
* ``--overwrite`` aimed at a FIFO or a device;
* a standard output that is full or closed;
* bounds: ``--workers``, ``simulate --seed`` and ``--depth``, and
  contradictory flags.

Tests that need other users run only as root (they are skipped otherwise,
saying so); the Spark resume's report is in tests/test_cli_spark.py.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess

import pytest

from adversaries import ATTACKER, VICTIM, as_user, give, planted_library, shared_directory
from fulldisk import fill, small_filesystem
from support import run_subprocess

KIP320 = ("run", "kip320", "-q")  # 737,794 states, none violating an invariant
SMALL = ("run", "kip320", "--const", "Replicas=2", "--const", "MaxLeaderEpoch=1", "-q")  # 957 states


def counted(stdout: str) -> str:
    return stdout.split("distinct states")[1].split()[0]


def libraries(directory, prefix: str = "kernel_") -> set[str]:
    return {os.path.basename(p) for p in glob.glob(os.path.join(str(directory), f"{prefix}*.so"))}


# --- the kernel cache: checked before it is trusted ------------------------------------------

@pytest.fixture
def cache(tmp_path):
    return {"MODELCHECK_KERNEL_CACHE": str(tmp_path / "cache")}


def built_kernel(args, env, before: set[str] = frozenset()) -> str:
    """The run's kernel, built into the cache (which held ``before``)."""
    r = run_subprocess(*args, "--kernels", "compiled", env=env)
    assert r.returncode == 0, r.stderr
    new = libraries(env["MODELCHECK_KERNEL_CACHE"]) - set(before)
    assert len(new) == 1, new
    return os.path.join(env["MODELCHECK_KERNEL_CACHE"], new.pop())


def test_a_kernel_copied_over_another_models_name_is_built_again_not_trusted(cache):
    two = built_kernel(("run", "kip320", "--const", "Replicas=2", "-q"), cache)
    three = built_kernel(KIP320, cache, {os.path.basename(two)})
    shutil.copyfile(two, three)
    r = run_subprocess(*KIP320, "--kernels", "compiled", env=cache)
    assert r.returncode == 0, r.stderr
    assert counted(r.stdout) == "737,794"
    assert r.stderr.count("\n") == 1 and "was built from another source; it was built again" in r.stderr
    again = run_subprocess(*KIP320, "--kernels", "compiled", env=cache)  # now whole: loaded, silently
    assert (again.returncode, counted(again.stdout), again.stderr) == (0, "737,794", "")


@pytest.mark.parametrize("symmetry", [False, True], ids=["kernel", "orbit-canonicaliser"])
def test_a_library_cut_short_is_built_again_not_loaded(cache, symmetry):
    """A truncated shared library, once loaded, faults when its missing
    pages are touched (SIGBUS, on every later run)."""
    args = KIP320 + (("--symmetry",) if symmetry else ())
    first = run_subprocess(*args, "--kernels", "compiled", env=cache)
    assert first.returncode == 0, first.stderr
    expected = counted(first.stdout)
    path = sorted(libraries(cache["MODELCHECK_KERNEL_CACHE"], "canonical_" if symmetry else "kernel_"))[0]
    path = os.path.join(cache["MODELCHECK_KERNEL_CACHE"], path)
    with open(path, "r+b") as f:
        f.truncate(min(20_000, os.path.getsize(path) // 2))
    r = run_subprocess(*args, "--kernels", "compiled", env=cache)
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert counted(r.stdout) == expected
    assert "cut short" in r.stderr and "it was built again" in r.stderr


def test_a_foreign_library_over_the_canonicaliser_is_not_loaded(cache, tmp_path):
    args = KIP320 + ("--symmetry",)
    first = run_subprocess(*args, env=cache)
    assert first.returncode == 0, first.stderr
    [name] = libraries(cache["MODELCHECK_KERNEL_CACHE"], "canonical_")
    marker = str(tmp_path / "ran")
    planted_library(os.path.join(cache["MODELCHECK_KERNEL_CACHE"], name), marker)
    r = run_subprocess(*args, env=cache)
    assert r.returncode == 0, r.stderr
    assert counted(r.stdout) == counted(first.stdout) and "internal error" not in r.stderr
    assert not os.path.exists(marker)  # its constructor never ran: it was not loaded


def test_a_full_kernel_cache_leaves_the_search_on_numpy_with_one_line(tmp_path):
    with small_filesystem(str(tmp_path / "disk"), size="64k", full=False) as disk:
        os.chmod(disk, 0o755)
        os.mkdir(os.path.join(disk, "cache"), 0o700)
        fill(disk)
        r = run_subprocess(*SMALL, "--kernels", "compiled", env={"MODELCHECK_KERNEL_CACHE": f"{disk}/cache"})
    assert r.returncode == 0, r.stderr
    assert counted(r.stdout) == "957"
    assert r.stderr.count("\n") == 1 and "No space left on device" in r.stderr
    assert "searching with numpy" in r.stderr and "Traceback" not in r.stderr


# --- the kernel cache: nothing loaded from where another user can write --------------------------

@pytest.fixture
def shared():
    path = shared_directory()
    yield path
    shutil.rmtree(path, ignore_errors=True)


def users_env(shared: str) -> dict:
    """A user whose HOME cannot be written: the cache goes to the temporary directory."""
    return {"HOME": "/nonexistent", "TMPDIR": shared}


def test_a_second_user_without_a_writable_home_gets_the_verdict(shared):
    """The first user's cache in the temporary directory is not the second's
    to write to: the second, needing a kernel the first did not build, must
    still get its verdict."""
    first = as_user(ATTACKER, "run", "kip320", "--const", "Replicas=2", "-q", env=users_env(shared), cwd=shared)
    assert first.returncode == 0, first.stderr
    second = as_user(VICTIM, *SMALL, env=users_env(shared), cwd=shared)
    assert second.returncode == 0, second.stderr
    assert counted(second.stdout) == "957" and "internal error" not in second.stderr


def test_a_library_planted_by_another_user_is_never_loaded(shared):
    """The attacker runs modelcheck once to learn the kernel's name, then
    plants a library of its own under that name wherever the victim might
    look: the fallback directories, made first and left open to everyone."""
    attacker = as_user(ATTACKER, *SMALL, env=users_env(shared), cwd=shared)
    assert attacker.returncode == 0, attacker.stderr
    names = {os.path.basename(p) for p in glob.glob(os.path.join(shared, "*", "kernel_*.so"))}
    assert names
    marker = os.path.join(shared, "the-planted-library-ran")
    planted = os.path.join(shared, "planted.so")
    planted_library(planted, marker)
    for directory in ("modelcheck-kernels", f"modelcheck-kernels-{VICTIM}"):
        where = os.path.join(shared, directory)
        os.makedirs(where, exist_ok=True)
        give(where, ATTACKER, 0o777)
        for name in names:
            shutil.copyfile(planted, os.path.join(where, name))
            give(os.path.join(where, name), ATTACKER, 0o755)
    victim = as_user(VICTIM, *SMALL, env=users_env(shared), cwd=shared)
    assert not os.path.exists(marker), "the victim ran the attacker's library"
    assert victim.returncode == 0, victim.stderr
    assert counted(victim.stdout) == "957"
    assert victim.stderr.count("\n") == 1 and "private to this run" in victim.stderr


# --- checkpoints know the code that made them ------------------------------------------------

DROP_AN_ACTION = ("import dataclasses, modelcheck.specs.kip320 as m; m.SPEC = dataclasses.replace(m.SPEC, "
                  "next=tuple(a for a in m.SPEC.next if a.name != 'FencedLeaderShrinkIsr'))")
REORDER_ACTIONS = ("import dataclasses, modelcheck.specs.kip320_first_try as m; "
                   "m.SPEC = dataclasses.replace(m.SPEC, next=tuple(reversed(m.SPEC.next)))")


def run_edited(edit: str, *args, cwd=None, env=None) -> subprocess.CompletedProcess:
    """modelcheck in a fresh process whose spec module was edited (as a user
    edits the file between two runs) by the Python statement ``edit``."""
    import sys
    from support import ROOT
    full_env = dict(os.environ, **(env or {}))
    full_env["PYTHONPATH"] = ROOT + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", f"{edit}\nfrom cli import main; main()", *args], cwd=cwd,
                          env=full_env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("edit, args", [
    (DROP_AN_ACTION, ("run", "kip320", "--max-states", "100000")),
    (REORDER_ACTIONS, ("run", "kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr",
                       "--max-states", "200")),
], ids=["an-action-dropped", "actions-reordered"])
def test_a_checkpoint_is_never_resumed_under_other_code(tmp_path, edit, args):
    saved = str(tmp_path / "ck")
    first = run_subprocess(*args, "--checkpoint", saved, "-q")
    assert first.returncode == 0 and "The search is saved in" in first.stdout, first.stderr
    before = open(os.path.join(saved, "checkpoint.json")).read()
    resumed = run_edited(edit, *args[:-2], "--resume", saved, "-q")
    assert resumed.returncode == 2, (resumed.returncode, resumed.stdout, resumed.stderr)
    line = resumed.stderr.strip()
    assert "\n" not in line and line.startswith("modelcheck: error: --resume")
    assert "another definition of" in line and "Traceback" not in resumed.stderr
    assert open(os.path.join(saved, "checkpoint.json")).read() == before  # the checkpoint is left as it was
    same = run_subprocess(*args[:-2], "--resume", saved, "-q")  # the unedited code carries on
    if args[1] == "kip320":
        assert (same.returncode, counted(same.stdout)) == (0, "737,794"), same.stderr
    else:
        assert same.returncode == 12 and "StrongIsr is violated in state 13" in same.stdout, same.stderr


# --- nothing of the user's damaged at the edges ----------------------------------------------

def test_a_lock_file_linked_to_a_users_file_is_refused_and_the_file_kept(tmp_path):
    precious = tmp_path / "precious"
    precious.write_text("a year of notes\n")
    shared = tmp_path / "shared-checkpoints"
    shared.mkdir()
    (shared / ".modelcheck.lock").symlink_to(precious)
    r = run_subprocess("run", "kip320", "--const", "Replicas=2", "--checkpoint", str(shared), "-q")
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("modelcheck: error: --checkpoint") and r.stderr.count("\n") == 1
    assert "not a regular file" in r.stderr
    assert precious.read_text() == "a year of notes\n"


VIOLATING = ("run", "truncate-to-hw", "--const", "Replicas=2", "-q")  # WeakIsr violated in state 9


@pytest.fixture(params=["fifo", "character-device"])
def not_a_file(request, tmp_path):
    path = tmp_path / "special"
    if request.param == "fifo":
        os.mkfifo(path)
    else:
        if os.geteuid() != 0:
            pytest.skip("needs root to make a device node")
        os.mknod(path, 0o666 | __import__("stat").S_IFCHR, os.makedev(1, 3))  # as /dev/null is
    return path


@pytest.mark.parametrize("command", [VIOLATING + ("--trace-out",), ("show", "traces/kip320-first-try-StrongIsr.itf.json",
                                                                      "--html")], ids=["trace-out", "html"])
def test_overwrite_never_replaces_what_is_not_a_regular_file(not_a_file, command):
    from support import ROOT
    kind = os.stat(not_a_file).st_mode
    r = run_subprocess(*command, str(not_a_file), "--overwrite", cwd=ROOT)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.count("\n") == 1 and "not a regular file" in r.stderr and "--overwrite" not in r.stderr
    assert os.stat(not_a_file).st_mode == kind  # still what it was


def test_the_overwrite_hint_is_not_offered_for_dev_null(tmp_path):
    r = run_subprocess(*VIOLATING, "--trace-out", "/dev/null", cwd=str(tmp_path))
    assert r.returncode == 2
    assert "is a character device, not a regular file" in r.stderr and "--overwrite" not in r.stderr


# --- the verdict's exit code, whatever happens to stdout -------------------------------------

def run_into(stdout, *args, cwd) -> subprocess.CompletedProcess:
    import sys
    from support import ROOT
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-c", "from cli import main; main()", *args], cwd=cwd, env=env,
                          stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=300)


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_full_stdout_keeps_the_verdict_and_the_trace(tmp_path, as_json):
    trace = tmp_path / "trace.itf.json"
    with open("/dev/full", "w") as full:
        r = run_into(full, *VIOLATING, "--trace-out", str(trace), *(("--json",) if as_json else ()), cwd=tmp_path)
    assert r.returncode == 12, r.stderr
    assert r.stderr.count("\n") == 1 and "No space left on device" in r.stderr and "internal error" not in r.stderr
    assert len(json.load(open(trace))["states"]) == 9
    with open("/dev/full", "w") as full:
        ok = run_into(full, *SMALL, cwd=tmp_path)
    assert ok.returncode == 0 and "internal error" not in ok.stderr


def test_a_reader_that_stops_early_keeps_the_verdict(tmp_path):
    """As ``modelcheck run ... | head -1``: the pipe closes after the first line."""
    import sys
    from support import ROOT
    proc = subprocess.Popen([sys.executable, "-c", "from cli import main; main()", *VIOLATING, "--trace-out",
                             str(tmp_path / "t.itf.json")], cwd=tmp_path, env=dict(os.environ, PYTHONPATH=ROOT),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 12, err
    assert first.startswith("modelcheck ") and "internal error" not in err and "Traceback" not in err
    assert os.path.exists(tmp_path / "t.itf.json")


# --- bounds and small errors ------------------------------------------------------------------

@pytest.mark.parametrize("args, said", [
    (("run", "kip320", "--workers", "1000"), "--workers 1000 is more than this machine can use"),
    (("run", "kip320", "--workers", "99999999999"), "--workers 99999999999 is more than this machine can use"),
    (("simulate", "kip320", "--seed", "-1"), "--seed"),
    (("simulate", "kip320", "--depth", "100000000"), "--depth"),
    (("run", "kip320", "--view", "--no-view"), "--view and --no-view"),
    (("run", "kip320", "--check-deadlock", "--no-check-deadlock"), "--check-deadlock and --no-check-deadlock"),
    (("simulate", "kip320", "--shrink", "--no-shrink"), "--shrink and --no-shrink"),
], ids=["workers-1000", "workers-huge", "seed-negative", "depth-huge", "view-no-view", "deadlock-both",
        "shrink-both"])
def test_out_of_bounds_and_contradictions_are_one_line(tmp_path, args, said):
    r = run_subprocess(*args, cwd=str(tmp_path), timeout=120)
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr)
    assert r.stderr.startswith("modelcheck: error: ") and r.stderr.count("\n") == 1, r.stderr
    assert said in r.stderr and "Traceback" not in r.stderr


# --- Spark: its checkpoints know the code too, and its resume says what it resumed ------------

def test_a_spark_checkpoint_is_resumed_only_by_its_own_code_and_says_what_it_resumed(tmp_path):
    pytest.importorskip("pyspark")
    spark = ("run", "kip320", "--const", "Replicas=2", "--engine", "spark", "--master", "local[2]", "--lead-in", "0")
    saved = str(tmp_path / "ck")
    first = run_subprocess(*spark, "--checkpoint-dir", saved, "--checkpoint-levels", "2", "--max-states", "1000",
                           "--json", "-q")
    assert first.returncode == 0, first.stderr
    stopped = json.loads(first.stdout)
    assert stopped["stopped"] == "max-states"
    edited = run_edited(DROP_AN_ACTION, *spark, "--resume", saved, "-q")
    assert edited.returncode == 2 and "another definition of kip320" in edited.stderr, edited.stderr
    assert edited.stderr.count("\n") == 1
    resumed = run_subprocess(*spark, "--resume", saved, "--json", "-q")
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert (report["result"], report["distinct_states"]) == ("ok", 5973)
    assert report["resumed_with"] == stopped["distinct_states"] > 0 and report["resume_seconds"] > 0
    assert any(n.startswith(f"resumed at depth {stopped['depth']} with") for n in report["notes"])
