"""Soak: SIGINT or SIGTERM at random moments of a search (a fixed seed, so a
failure can be replayed), with a checkpoint, then ``--resume``: on the fast
engine, the reference engine (which does not checkpoint: its partial report
is checked) and Spark local[2]. Every final count equals the uninterrupted
run's, computed here; no verdict is ever wrong; no temporary file or
directory and no process is left behind. On the fast engine the kernel
cache is also damaged between the two runs, a way chosen at random
(``DAMAGES``): the resumed run rebuilds or avoids it, and its count is exact.

Each engine runs ``MODELCHECK_SOAK_ROUNDS`` rounds: 1 by default, which
keeps the suite's time in bounds; run it with 30 for a real soak.
"""

import glob
import json
import os
import random
import shutil
import signal
import time

import psutil
import pytest

from support import interrupt, invoke_json, kernel_builds_done, run_subprocess

ROUNDS = int(os.environ.get("MODELCHECK_SOAK_ROUNDS", "1"))
SEED = 2023
CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}

SPARK = ("--engine", "spark", "--master", "local[2]")


class Case:
    def __init__(self, name, run, marker, longest_delay, checkpoint=None, resume=None):
        self.name, self.run, self.marker, self.longest_delay = name, run, marker, longest_delay
        self.checkpoint, self.resume = checkpoint, resume  # option names, None for an engine without checkpoints


CASES = {
    "fast": Case("fast", ("run", "kip320", "--engine", "fast", "--checkpoint-every", "0.5"),
                 r"depth +\d+ ·", 4.0, "--checkpoint", "--resume"),
    "bfs": Case("bfs", ("run", "kip320", "--engine", "bfs"), r"depth +\d+ ·", 6.0),
    "spark": Case("spark", ("run", "kip320", "--const", "Replicas=2", *SPARK, "--lead-in", "0",
                            "--checkpoint-levels", "2"), r"level +\d+ ·", 6.0, "--checkpoint-dir", "--resume"),
}


def children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


def leftovers(scratch: str, before: set[int]) -> list[str]:
    """Processes still running that belong to a run given ``scratch`` as its
    temporary directory (a Spark JVM names its log configuration there), and
    children of this process not there ``before`` the round (other tests of
    the session may keep a Spark context of their own); waited for a little,
    as a JVM ends when its driver's pipe closes."""
    deadline = time.monotonic() + 15
    while True:
        found = [f"{p.pid} {' '.join(p.info['cmdline'] or [])[:120]}"
                 for p in psutil.process_iter(["cmdline"])
                 if p.pid != os.getpid() and any(scratch in part for part in (p.info["cmdline"] or []))]
        found += [f"{pid} child" for pid in sorted(children() - before)]
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


@pytest.fixture(scope="module")
def whole():
    """Each case's model searched once without interruption (count and depth),
    by the fast engine in this process (the engines' agreement on counts is
    what the conformance tests hold them to)."""
    results = {}

    def get(case: Case) -> dict:
        consts = [a for k, a in enumerate(case.run) if k and case.run[k - 1] == "--const"]
        key = tuple(consts)
        if key not in results:
            code, report, err = invoke_json("run", "kip320", *(x for c in consts for x in ("--const", c)), "-q")
            assert code == 0, err
            results[key] = report
        return results[key]

    return get


def test_soak_fast(whole, tmp_path):
    soak("fast", whole, tmp_path)


def test_soak_bfs(whole, tmp_path):
    soak("bfs", whole, tmp_path)


def test_soak_spark(whole, tmp_path):
    soak("spark", whole, tmp_path)


DAMAGES = ("truncated", "another-models", "foreign", "garbage", "cache-opened-to-others")


def damage(cache: str, kind: str, marker: str) -> None:
    """What can happen to a kernel cache between two runs: a library cut
    short, another model's library under its name, a library that is not
    modelcheck's (which leaves ``marker`` if it is ever loaded), bytes that
    are no library, or the cache opened to every user."""
    from adversaries import planted_library
    ours = sorted(glob.glob(os.path.join(cache, "kernel_*.so")), key=os.path.getmtime)
    other, target = ours[0], ours[-1]  # the other model's was built first, then the run's
    if kind == "truncated":
        with open(target, "r+b") as f:
            f.truncate(os.path.getsize(target) // 3)
    elif kind == "another-models":
        shutil.copyfile(other, target)
    elif kind == "foreign":
        planted_library(target, marker)
    elif kind == "garbage":
        with open(target, "wb") as f:
            f.write(os.urandom(20_000))
    else:
        os.chmod(cache, 0o777)


def test_soak_fast_with_its_kernel_cache_damaged_before_the_resume(whole, tmp_path):
    soak("fast", whole, tmp_path, damaged=True)


def soak(name: str, whole, tmp_path, damaged: bool = False) -> None:
    """``ROUNDS`` rounds of: a run signalled at a random moment, then its
    resumption; ``damaged``: with the kernel cache damaged in between (one
    of ``DAMAGES``, at random), which must cost nothing but a rebuild."""
    case = CASES[name]
    full = whole(case)
    assert full["result"] == "ok"
    rng = random.Random(f"{SEED}-{name}" + ("-damaged" if damaged else ""))
    for n in range(ROUNDS):
        sig = rng.choice([signal.SIGINT, signal.SIGTERM])
        delay = rng.uniform(0.0, case.longest_delay)
        where = f"{name} round {n}: {signal.Signals(sig).name} {delay:.2f} s after {case.marker!r}"
        work, scratch = tmp_path / f"round-{n}", tmp_path / f"tmp-{n}"
        before = children()
        work.mkdir()
        scratch.mkdir()
        ck = work / "ck"
        saving = (case.checkpoint, str(ck)) if case.checkpoint else ()
        env = {"TMPDIR": str(scratch)}
        if damaged:  # a cache of the round's own, holding another model's kernel before the run's
            env["MODELCHECK_KERNEL_CACHE"] = str(work / "cache")
            other = run_subprocess("run", "kip320", "--const", "Replicas=2", "-q", env=env)
            assert other.returncode == 0, other.stderr
            kernel_builds_done(env["MODELCHECK_KERNEL_CACHE"])  # its optimised kernel, built in the background
            time.sleep(0.01)
        r = interrupt(*case.run, *saving, "--json", cwd=str(work), marker=case.marker, delay=delay, sig=sig,
                      env=env)
        assert "Traceback" not in r.terminal, where + "\n" + r.terminal
        report = json.loads(r.stdout)
        if r.code == 0:  # it ended before the signal: a complete, exact search
            assert (report["result"], report["distinct_states"]) == ("ok", full["distinct_states"]), where
        else:
            assert r.code == CODES[sig], where + "\n" + r.terminal
            assert (report["result"], report["stopped"], report["violation"]) == ("bounded-ok", "interrupted",
                                                                                  None), where
            assert 0 < report["distinct_states"] <= full["distinct_states"], where
            if name == "spark":  # it stops at a level's end: the count of a search bounded there
                bounded = invoke_json("run", "kip320", "--const", "Replicas=2", "--max-depth",
                                      str(report["depth"]))[1]
                assert report["distinct_states"] == bounded["distinct_states"], where
            if case.resume:
                marker = str(work / "the-foreign-library-ran")
                if damaged:
                    kernel_builds_done(env["MODELCHECK_KERNEL_CACHE"])  # the damage meets the cache at rest
                    kind = rng.choice(DAMAGES)
                    where += f", the kernel cache {kind}"
                    damage(env["MODELCHECK_KERNEL_CACHE"], kind, marker)
                done = run_subprocess(*case.run, case.resume, str(ck), "--json", "-q", cwd=str(work), env=env)
                assert done.returncode == 0, where + "\n" + done.stderr
                final = json.loads(done.stdout)
                assert (final["result"], final["distinct_states"], final["depth"]) == \
                    ("ok", full["distinct_states"], full["depth"]), where
                assert not os.path.exists(marker), where
                assert len(done.stderr.strip().splitlines()) <= 1, where + "\n" + done.stderr
                if damaged and kind == "cache-opened-to-others":  # its private stand-in, kept for later runs
                    assert "can be written by other users" in done.stderr, where
                    kernel_builds_done(str(scratch / f"modelcheck-kernels-{os.geteuid()}"))
                    shutil.rmtree(scratch / f"modelcheck-kernels-{os.geteuid()}")
        assert os.listdir(scratch) == [], where
        if ck.exists():
            assert not [f for f in os.listdir(ck) if f.endswith(".tmp") or f.startswith(".")], where
        assert leftovers(str(scratch), before) == [], where
