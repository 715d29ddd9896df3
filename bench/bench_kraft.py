"""kraft-3.5 and kraft-kip966 against TLC, and what each message slot costs.

``tlc``: every configuration below, run with ``modelcheck run kraft-3.5``
(``--engine``, default fast), against TLC's figures on the same constants
(breadth-first, -workers 1, the module's VIEW, its .cfg with these constants
changed; NoCommittedRecordLostGlobally left out where the .cfg says to,
when MinISR equals UncleanShutdownLimit, but for v18 and k16, which TLC
ran with it). It checks that the distinct
states, the depth, the verdict and the counterexample's length are TLC's,
and prints both times. TLC's times were taken on this 2-core machine while
it was shared with other jobs, so they are upper bounds; compare counts.

``scale``: each spec's own .cfg (``COMMITTED`` under its names: three
brokers, RF 3, MinISR 2, two in sync, one unclean/data-loss shutdown, one
fencing) searched exhaustively with the VIEW, stopped (SIGINT, a clean stop
that reports what was explored) after ``--minutes`` if it has not finished,
and under ``--max-memory``. It prints the distinct states, the depth, the
rate and the peak resident size of the run (the child's own, from wait4).
With ``--tlc CLASSES --upstream DIR`` TLC runs the same .cfg, unchanged, from
DIR/v3.5 and DIR/kip-966 (the upstream directories, with the community
modules FiniteSetsExt, SequencesExt, Folds and Functions copied beside each
module): its time and count if it finishes within ``--tlc-minutes``, else,
when it is stopped then, the distinct states and the level of its last
progress line and its rate (its average, and over its last minute).
``--cpus`` and ``--tlc-cpus`` pin each to cores (taskset); pinned to
different cores the two run side by side, else TLC runs after the fast
engine. ``--tlc-alone`` runs TLC only, so one spec's TLC run can go beside
another spec's fast-engine run; ``--log DIR`` keeps the fast engine's
progress lines (one a minute, with each level's size) in DIR.
``--checkpoint DIR`` saves each search in DIR/SPEC when it is stopped and
continues it from there on the next run, so a search longer than one
sitting is made of several runs; DIR/SPEC.runs.json lists them, and the
rate of a continued run counts only the states it found itself, in the
time it searched after reading its checkpoint back.

``versus``: the largest configurations TLC finishes here in minutes
(``VERSUS`` in kraft_configs.py), timed run by run: after a first run
that builds the C kernel into the cache before its search (``--kernels
compiled``; its time given apart), in each of ``--runs``
rounds the fast engine's whole command (``--workers``, default the cores),
then TLC (``--tlc-workers``, default the cores) on a copy of the upstream
module whose .cfg has the same constants and invariants, each with the
machine to itself. Both must give the same count, depth and verdict; it
prints the medians, the peak resident sizes and the ratios (the whole
command, and the search alone, over TLC's whole run).

``slots``: the cost of the network's capacity. Message slots change no
behaviour, only the state's width and the expressions of every action that
sends, so the same configuration is explored with AlterPartitionCapacity
raised step by step: the count must not move, and the table gives the
state's width, the time to build and compile the model, and the time per
expanded state of the Python successor function and of the numpy kernel
(on the same sample of reachable states), with the slope per slot.

    python bench/bench_kraft.py tlc [--engine fast|bfs] [--only NAME ...]
    python bench/bench_kraft.py scale [--minutes 35] [--max-memory 10GiB] [--only kraft-3.5 ...]
        [--workers N] [--cpus 0,1] [--log DIR [--at-level-end]] [--checkpoint DIR [--checkpoint-every SECONDS]]
        [--tlc CLASSES --upstream DIR [--tlc-minutes 120] [--tlc-cpus 1] [--tlc-alone]]
    python bench/bench_kraft.py versus [k_b2m2f3 ...] --tlc CLASSES --upstream DIR [--runs 3] [--workers 2]
        [--tlc-workers 2]
    python bench/bench_kraft.py slots [--capacities 4,8,12,16] [--sample 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from common import ROOT, machine, measure_once, modelcheck_command, tlc_once
from kraft_configs import (CFG_INVARIANTS, COMMITTED, KIP966_INVARIANTS, SMALL, TLC, TLC_KIP966, VERSUS,
                           WITHOUT_NCLG)

sys.path.insert(0, ROOT)



def tlc(args) -> None:
    print(f"machine: {machine()}; engine {args.engine}")
    print(f"{'config':<18} {'TLC distinct':>12} {'ours':>9} {'depth':>5} {'ours':>4} {'verdict':<36} {'trace':>5} "
          f"{'TLC s':>7} {'ours s':>7}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        table = [("kraft-3.5", name, row) for name, row in TLC.items()] + \
            [("kraft-kip966", name, row) for name, row in TLC_KIP966.items()]
        for spec, name, (consts, distinct, depth, verdict, length, tlc_seconds) in table:
            if args.only and name not in args.only:
                continue
            every = KIP966_INVARIANTS if spec == "kraft-kip966" else CFG_INVARIANTS
            invariants = every[:-1] if name in WITHOUT_NCLG else every
            cmd = modelcheck_command("run", spec, "--engine", args.engine, "--json", "-q",
                                     *_const_args(consts),
                                     *[a for inv in invariants for a in ("--inv", inv)])
            run = measure_once(cmd, tmp, ok_codes=(0, 12, 75))
            out = run.output
            got_verdict = out["violation"]["invariant"] if out["result"] == "violation" else out["result"]
            got_length = out["violation"]["trace_length"] if out["violation"] else None
            want = (distinct, depth, verdict, length)
            got = (out["distinct_states"], out["depth"], got_verdict, got_length)
            if out["result"] == "error":
                got = (out["distinct_states"], out["depth"], "error", got_length)
            mark = "" if got == want else "   <- DIFFERS"
            print(f"{name:<18} {distinct:>12,} {got[0]:>9,} {depth:>5} {got[1]:>4} {verdict:<36} "
                  f"{str(length or '-'):>5} {tlc_seconds:>7.1f} {run.seconds:>7.1f}{mark}")
            rows.append({"config": name, "constants": consts, "tlc": want, "ours": got, "tlc_seconds": tlc_seconds,
                         "seconds": round(run.seconds, 2), "command": " ".join(cmd[3:])})
            if got != want:
                raise SystemExit(f"{name}: modelcheck gives {got}, TLC {want}")
    print(json.dumps(rows))


# each spec's own .cfg under its own names (kip-966 renames the shutdowns)
SCALE = {"kraft-3.5": COMMITTED,
         "kraft-kip966": {**{k: v for k, v in COMMITTED.items() if k not in ("CleanShutdownLimit",
                                                                           "UncleanShutdownLimit")},
                          "NoDataLossShutdownLimit": 0, "DataLossShutdownLimit": 1}}


def scale(args) -> None:
    print(f"machine: {machine()}; engine {args.engine}; stopped after {args.minutes} min; "
          f"--max-memory {args.max_memory}")
    if args.tlc_alone and not args.tlc:
        raise SystemExit("--tlc-alone needs --tlc CLASSES --upstream DIR")
    rows = []
    for spec, consts in SCALE.items():
        if args.only and spec not in args.only:
            continue
        cmd = modelcheck_command("run", spec, "--engine", args.engine, "--json",
                                 *(() if args.log else ("-q",)), "--max-memory",
                                 args.max_memory, *_const_args(consts),
                                 *(("--workers", str(args.workers)) if args.workers else ()),
                                 *_checkpoint_args(args, spec))
        with tempfile.TemporaryDirectory() as tmp:
            if args.tlc_alone:
                t = TlcRun(args, spec, tmp).finish()
                _print_tlc(spec, t, None, False)
                rows.append({"spec": spec, "tlc": t})
                continue
            # on cores of its own, TLC runs beside the fast engine; else after it
            beside = args.tlc and args.cpus and args.tlc_cpus and not set(args.cpus.split(",")) & set(
                args.tlc_cpus.split(","))
            tlc = TlcRun(args, spec, tmp) if beside else None
            log = os.path.join(args.log, f"{spec}.log") if args.log else None
            row = _run_for(_pinned(cmd, args.cpus), args.minutes * 60, log, args.at_level_end)
            if args.tlc:
                row["tlc"] = (tlc or TlcRun(args, spec, tmp)).finish()
        out = row.pop("output")
        row.update(spec=spec, constants=consts, result=out["result"], stopped=out["stopped"],
                   distinct_states=out["distinct_states"], depth=out["depth"], seconds=out["seconds"],
                   resumed_with=out["resumed_with"], resume_seconds=out["resume_seconds"],
                   # a resumed search's rate: of the states it found, in the time it searched after reading them back
                   states_per_second=round((out["distinct_states"] - out["resumed_with"])
                                           / max(out["seconds"] - out["resume_seconds"], 1e-9)),
                   command=" ".join(cmd[3:]))
        if args.checkpoint:
            _add_to_ledger(args, spec, row)
        print(f"{spec}: {row['result']} (stopped: {row['stopped']}), {row['distinct_states']:,} distinct, depth "
              f"{row['depth']}, {row['seconds']:.0f} s, {row['states_per_second']:,} states/s, peak RSS "
              f"{row['peak_rss_mib']:,.0f} MiB, load average at start {row['load_at_start']}", flush=True)
        if args.checkpoint:
            runs = row["runs"]
            print(f"  over its {len(runs)} run(s) from the start: {sum(r['seconds'] for r in runs):,.0f} s of "
                  f"search, saved in {os.path.join(args.checkpoint, spec)}", flush=True)
        if args.tlc:
            _print_tlc(spec, row["tlc"], row, beside)
        rows.append(row)
    print(json.dumps(rows))


def _checkpoint_args(args, spec: str) -> tuple[str, ...]:
    """With ``--checkpoint DIR``: continue DIR/SPEC's search if it holds
    one, else start one saved there. It is saved when stopped, and every
    ``--checkpoint-every`` seconds (by default only when stopped: at the
    .cfg's sizes a save made between levels keeps a level of 20 GB on the
    disk beside the two the search holds)."""
    if not args.checkpoint:
        return ()
    directory = os.path.join(args.checkpoint, spec)
    every = ("--checkpoint-every", str(args.checkpoint_every))
    if os.path.exists(os.path.join(directory, "checkpoint.json")):
        return ("--resume", directory, *every)
    return ("--checkpoint", directory, *every)


def _add_to_ledger(args, spec: str, row: dict) -> None:
    """DIR/SPEC.runs.json: every run of one search, from its start, so that
    a search continued over several runs has its whole time."""
    ledger = os.path.join(args.checkpoint, f"{spec}.runs.json")
    runs = json.load(open(ledger)) if os.path.exists(ledger) and row["resumed_with"] else []
    runs.append({k: row[k] for k in ("result", "stopped", "distinct_states", "depth", "seconds", "resumed_with",
                                     "resume_seconds", "states_per_second", "peak_rss_mib")})
    with open(ledger, "w") as f:
        json.dump(runs, f, indent=1)
    row["runs"] = runs


def _print_tlc(spec: str, t: dict, row: dict | None, beside: bool) -> None:
    how = (f"finished in {t['seconds']:.0f} s" if t["finished"] else
           f"stopped after {t['seconds']:.0f} s at level {t['depth']}")
    vs = ""
    if row is not None:
        vs = (f"; fast engine / TLC time {row['seconds'] / t['seconds']:.4f}" if t["finished"] else
              f"; TLC's rate / the fast engine's {t['states_per_minute'] / 60 / row['states_per_second']:.4f}")
    print(f"  {spec}, TLC{' beside it' if beside else ''}: {how}, {t['distinct_states']:,} distinct, "
          f"{t['states_per_minute']:,} states/min on average, {t['last_states_per_minute']:,} in its last "
          f"minute{vs}", flush=True)


def versus(args) -> None:
    """Each configuration in ``--runs`` rounds, a round being the fast engine's
    whole command, then TLC's whole run on the module's .cfg with the same
    constants and invariants, one after the other with the machine to itself.
    Both must give the same answer; the medians and their ratio."""
    print(f"machine: {machine()}; median of {args.runs} rounds; fast engine --workers {args.workers}, "
          f"TLC -workers {args.tlc_workers}")
    rows = []
    for name in args.configs:
        spec, consts = VERSUS[name]
        invariants = _cfg_invariants(spec, consts)
        cmd = modelcheck_command("run", spec, "--engine", "fast", "--json", "-q", "--workers", str(args.workers),
                                 *_const_args(consts),
                                 *[a for inv in invariants for a in ("--inv", inv)])
        ours, theirs = [], []
        with tempfile.TemporaryDirectory() as tmp:
            directory, module = _tlc_copy(args.upstream, spec, consts, invariants, tmp)
            # a first run builds the C kernel before its search (--kernels compiled: under the default a
            # search that ends before the build stops it, and nothing is cached), timed on its own
            first = measure_once(cmd + ["--kernels", "compiled"], tmp).seconds
            for _ in range(args.runs):
                run = measure_once(cmd, tmp)
                out = run.output
                ours.append((run.seconds, out["seconds"], run.peak_rss_mib,
                             (out["distinct_states"], out["depth"], out["result"])))
                seconds, rss, answer = tlc_once(args.tlc, args.tlc_workers, directory, module + ".tla",
                                                config=module + ".cfg", heap=args.tlc_heap)
                theirs.append((seconds, rss, (answer[1], answer[2], answer[0])))
        answers = {o[3] for o in ours} | {t[2] for t in theirs}
        if len(answers) != 1:
            raise SystemExit(f"{name}: the answers differ: {answers}")
        distinct, depth, verdict = answers.pop()
        whole = statistics.median(o[0] for o in ours)
        search = statistics.median(o[1] for o in ours)
        tlc_seconds = statistics.median(t[0] for t in theirs)
        row = {"config": name, "spec": spec, "constants": consts, "distinct_states": distinct, "depth": depth,
               "result": verdict, "first_run_seconds": round(first, 2), "seconds": [round(o[0], 2) for o in ours],
               "search_seconds": [round(o[1], 2) for o in ours], "tlc_seconds": [round(t[0], 1) for t in theirs],
               "peak_rss_mib": round(statistics.median(o[2] for o in ours)),
               "tlc_peak_rss_mib": round(statistics.median(t[1] for t in theirs)),
               "whole_over_tlc": round(whole / tlc_seconds, 4), "search_over_tlc": round(search / tlc_seconds, 4),
               "command": " ".join(cmd[3:])}
        print(f"{name} ({spec}): {verdict}, {distinct:,} distinct, depth {depth}; fast engine {whole:.1f} s "
              f"(search {search:.1f} s, runs {row['seconds']}; the first run, building the kernel, "
              f"{first:.1f} s), peak RSS {row['peak_rss_mib']:,} MiB; TLC "
              f"{tlc_seconds:.1f} s (runs {row['tlc_seconds']}), peak RSS {row['tlc_peak_rss_mib']:,} MiB; "
              f"whole command / TLC {row['whole_over_tlc']}, search / TLC {row['search_over_tlc']}", flush=True)
        rows.append(row)
    print(json.dumps(rows))


def _const_args(consts: dict) -> list[str]:
    return [a for k, v in consts.items() for a in ("--const", f"{k}={v}")]


def _cfg_invariants(spec: str, consts: dict) -> tuple[str, ...]:
    """The .cfg's invariants, without NoCommittedRecordLostGlobally when MinISR
    equals the shutdowns that lose data, as its comment says."""
    every = KIP966_INVARIANTS if spec == "kraft-kip966" else CFG_INVARIANTS
    lossy = consts.get("DataLossShutdownLimit" if spec == "kraft-kip966" else "UncleanShutdownLimit")
    return every[:-1] if consts["MinISR"] == lossy else every


def _tlc_copy(upstream: str, spec: str, consts: dict, invariants: tuple, into: str) -> tuple[str, str]:
    """A copy of the upstream module's directory whose .cfg has these constants
    and invariants (the rest of it, the VIEW included, unchanged)."""
    directory, module = UPSTREAM[spec]
    work = os.path.join(into, directory)
    shutil.copytree(os.path.join(upstream, directory), work)
    cfg_path = os.path.join(work, module + ".cfg")
    with open(cfg_path) as f:
        text = f.read()
    for key, value in consts.items():
        text, found = re.subn(rf"^(\s*){key}\s*=.*$", rf"\g<1>{key} = {value}", text, flags=re.M)
        if not found:
            raise SystemExit(f"{key} is not a constant of the upstream {module}.cfg")
    head, _, _ = text.partition("\nINVARIANT")
    with open(cfg_path, "w") as f:
        f.write(head + "\nINVARIANT\n" + "\n".join(invariants) + "\n")
    return work, module


def _pinned(cmd: list[str], cpus: str | None) -> list[str]:
    return ["taskset", "-c", cpus, *cmd] if cpus else cmd


# the upstream module of each spec: its directory and name
UPSTREAM = {"kraft-3.5": ("v3.5", "kafka_replication_v3_5"), "kraft-kip966": ("kip-966", "kafka_replication_kip_966")}
_PROGRESS = re.compile(r"Progress\((\d+)\) at [^:]+:\d+:\d+: ([\d,]+) states generated .*?, ([\d,]+) distinct "
                       r"states found \(([\d,]+) ds/min\)")


class TlcRun:
    """TLC (``--tlc-workers``) on the module's own .cfg, started at once in a
    scratch directory; ``finish`` waits until ``--tlc-minutes`` after the
    start and gives its seconds, distinct states and depth if it finished,
    else (stopped then) its last progress line's level and count, and its rates."""

    def __init__(self, args, spec: str, tmp: str):
        directory, module = UPSTREAM[spec]
        work = os.path.join(tmp, directory)
        shutil.copytree(os.path.join(args.upstream, directory), work)
        self.cmd = _pinned(["java", f"-Xmx{args.tlc_heap}", "-XX:+UseParallelGC", "-cp", args.tlc, "tlc2.TLC",
                            "-deadlock", "-workers", str(args.tlc_workers), "-metadir", os.path.join(tmp, "states"),
                            "-config", f"{module}.cfg", f"{module}.tla"], args.tlc_cpus)
        self.limit = args.tlc_minutes * 60
        self.log = open(os.path.join(tmp, "tlc.log"), "w+")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(self.cmd, cwd=work, stdout=self.log, stderr=subprocess.STDOUT)

    def finish(self) -> dict:
        try:
            self.proc.wait(timeout=max(0.0, self.limit - (time.perf_counter() - self.started)))
            finished = True
        except subprocess.TimeoutExpired:
            self.proc.kill()  # by its process id
            self.proc.wait()
            finished = False
        seconds = time.perf_counter() - self.started
        self.log.seek(0)
        text = self.log.read()
        self.log.close()
        progress = _PROGRESS.findall(text)
        if finished:
            distinct = re.findall(r"([\d,]+) distinct states found, 0 states left on queue", text)
            depth = re.findall(r"depth of the complete state graph search is (\d+)", text)
            if not distinct or not depth:
                raise SystemExit("TLC failed:\n" + text[-2000:])
            count, level = int(distinct[-1].replace(",", "")), int(depth[-1])
        elif progress:
            count, level = int(progress[-1][2].replace(",", "")), int(progress[-1][0])
        else:
            raise SystemExit("TLC printed no progress:\n" + text[-2000:])
        last = int(progress[-1][3].replace(",", "")) if progress else 0
        return {"finished": finished, "seconds": round(seconds, 1), "distinct_states": count, "depth": level,
                "states_per_minute": round(count / seconds * 60), "last_states_per_minute": last,
                "command": " ".join(self.cmd)}


def _last_depth(log: str) -> int | None:
    """The depth of the last progress line in ``log``."""
    found = re.findall(r"progress: depth (\d+) ", open(log).read())
    return int(found[-1]) if found else None


def _run_for(cmd: list[str], seconds: float, log: str | None = None, at_level_end: bool = False) -> dict:
    """Run ``cmd`` (a --json modelcheck run); after ``seconds``, stop it with
    SIGINT, which makes it report what it explored. Its output, wall time and
    peak RSS (its own, from wait4). With ``log``, its stderr (a progress line
    a minute) goes to that file, so a run of hours can be followed; with
    ``at_level_end`` too, it is stopped only once a progress line shows the
    level under way at ``seconds`` ended (a search keeps whole levels only,
    and a level of the .cfg takes minutes)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        err = open(log, "w") if log else subprocess.DEVNULL
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err)
        deadline = time.monotonic() + seconds
        depth_then = None
        while True:  # wait4 itself, not proc.wait: it must reap the child to give its resource usage
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() >= deadline and at_level_end and log:
                depth_then = _last_depth(log) if depth_then is None else depth_then
                ended = depth_then is not None and (_last_depth(log) or 0) > depth_then
            else:
                ended = True
            if time.monotonic() >= deadline and ended:
                proc.send_signal(signal.SIGINT)
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.5)
        code = proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        if log:
            err.close()
        wall = time.perf_counter() - started
        out.seek(0)
        text = out.read()
    if code not in (0, 12, 130):
        raise SystemExit(f"benchmark command failed ({code}): {' '.join(cmd)}")
    return {"output": json.loads(text), "exit": code, "wall_seconds": round(wall, 1),
            "peak_rss_mib": round(usage.ru_maxrss / 1024.0, 1), "load_at_start": round(load, 2)}


def slots(args) -> None:
    import numpy as np
    from modelcheck.backends.numpy_codegen import compile_numpy
    from modelcheck.language.fingerprint import fingerprinter
    from modelcheck.specs import get_spec
    spec = get_spec("kraft-3.5")
    consts = {k: str(v) for k, v in {**SMALL, "InitIsrSize": 2, "UncleanShutdownLimit": 1,
                                      "LeaderShrinkIsrLimit": 1}.items()}
    print(f"machine: {machine()}")
    print("kraft-3.5 " + " ".join(f"{k}={v}" for k, v in consts.items()) + " (VIEW on)")
    print(f"{'capacity':>8} {'slots':>6} {'build s':>8} {'py compile s':>12} {'np compile s':>12} {'states':>7} "
          f"{'py us/state':>11} {'np us/state':>11}")
    rows, count = [], None
    for capacity in args.capacities:
        c = spec.resolve_constants({**consts, "AlterPartitionCapacity": str(capacity)})
        started = time.perf_counter()
        m = spec.instantiate(c, view=True)
        built = time.perf_counter() - started
        started = time.perf_counter()
        compiled = m.compiled
        states = _reachable(m, compiled, fingerprinter(m.schema))  # compiles what the search enables
        py_compile = time.perf_counter() - started
        if count is None:
            count = len(states)
        if len(states) != count:
            raise SystemExit(f"capacity {capacity}: {len(states)} states, not {count}: capacity changed behaviour")
        sample = states[:args.sample]
        started = time.perf_counter()
        for s in sample:
            compiled.successors(s)
        py_us = (time.perf_counter() - started) / len(sample) * 1e6
        started = time.perf_counter()
        kernel = compile_numpy(m, [])
        np_compile = time.perf_counter() - started
        columns = np.array(sample, dtype=np.int64).T.copy()
        for rows_, index in zip(kernel.enabled(columns), range(len(kernel.updates))):  # compile the updates once
            if rows_.size:
                kernel.updates[index](columns, rows_)
        started = time.perf_counter()
        for _ in range(3):
            enabled = kernel.enabled(columns)
            for index, rows_ in enumerate(enabled):
                if rows_.size:
                    kernel.updates[index](columns, rows_)
        np_us = (time.perf_counter() - started) / 3 / len(sample) * 1e6
        width = m.schema.width
        print(f"{capacity:>8} {width:>6} {built:>8.2f} {py_compile:>12.2f} {np_compile:>12.2f} {len(states):>7} "
              f"{py_us:>11.1f} {np_us:>11.2f}")
        rows.append({"capacity": capacity, "slots": width, "build_seconds": round(built, 2),
                     "python_compile_seconds": round(py_compile, 2), "numpy_compile_seconds": round(np_compile, 2),
                     "states": len(states), "python_us_per_state": round(py_us, 1),
                     "numpy_us_per_state": round(np_us, 2)})
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        extra = (last["slots"] - first["slots"]) / (last["capacity"] - first["capacity"])
        per_py = (last["python_us_per_state"] - first["python_us_per_state"]) / (last["capacity"] - first["capacity"])
        per_np = (last["numpy_us_per_state"] - first["numpy_us_per_state"]) / (last["capacity"] - first["capacity"])
        print(f"per AlterPartition slot (each of the three AlterPartition sets grows by one): {extra:.0f} state "
              f"slots, {per_py:.1f} us per state (Python), {per_np:.2f} us per state (numpy)")
    print(json.dumps(rows))


def _reachable(m, compiled, fp) -> list[tuple]:
    seen, frontier, out = set(), list(m.init_states), []
    while frontier:
        nxt = []
        for s in frontier:
            f = fp(s)
            if f in seen:
                continue
            seen.add(f)
            out.append(s)
            nxt.extend(t for _, t in compiled.successors(s))
        frontier = nxt
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_tlc = sub.add_parser("tlc")
    p_tlc.add_argument("--engine", default="fast", choices=("fast", "bfs"))
    p_tlc.add_argument("--only", nargs="*")
    p_scale = sub.add_parser("scale")
    p_scale.add_argument("--engine", default="fast", choices=("fast", "bfs"))
    p_scale.add_argument("--minutes", type=float, default=35)
    p_scale.add_argument("--max-memory", default="10GiB")
    p_scale.add_argument("--only", nargs="*")
    p_scale.add_argument("--workers", type=int, help="the fast engine's threads (default: the cores available)")
    p_scale.add_argument("--cpus", help="run the fast engine on these cores (taskset -c)")
    p_scale.add_argument("--tlc", metavar="CLASSES", help="TLC's compiled classes: run TLC on the same .cfg too")
    p_scale.add_argument("--upstream", metavar="DIR", help="the upstream kraft/ directory (v3.5/, kip-966/)")
    p_scale.add_argument("--tlc-minutes", type=float, default=120)
    p_scale.add_argument("--tlc-workers", type=int, default=1)
    p_scale.add_argument("--tlc-cpus", help="run TLC on these cores (taskset -c)")
    p_scale.add_argument("--tlc-heap", default="6g")
    p_scale.add_argument("--tlc-alone", action="store_true", help="run TLC only, not the fast engine")
    p_scale.add_argument("--log", metavar="DIR", help="keep the fast engine's progress lines in DIR/SPEC.log")
    p_scale.add_argument("--checkpoint", metavar="DIR", help="save each search in DIR/SPEC when stopped, and "
                         "continue it from there when DIR/SPEC holds one (DIR/SPEC.runs.json: every run of it)")
    p_scale.add_argument("--at-level-end", action="store_true", help="with --log: after --minutes, stop once "
                         "the level under way has ended")
    p_scale.add_argument("--checkpoint-every", type=float, default=1e9, help="also save every so many seconds "
                         "(default: only when stopped)")
    p_versus = sub.add_parser("versus")
    p_versus.add_argument("configs", nargs="*", default=list(VERSUS), choices=list(VERSUS))
    p_versus.add_argument("--tlc", metavar="CLASSES", required=True, help="TLC's compiled classes")
    p_versus.add_argument("--upstream", metavar="DIR", required=True, help="the upstream kraft/ directory")
    p_versus.add_argument("--runs", type=int, default=3)
    p_versus.add_argument("--workers", type=int, default=os.cpu_count())
    p_versus.add_argument("--tlc-workers", type=int, default=os.cpu_count())
    p_versus.add_argument("--tlc-heap", default="6g")
    p_slots = sub.add_parser("slots")
    p_slots.add_argument("--capacities", type=lambda t: [int(x) for x in t.split(",")], default=[4, 8, 12, 16])
    p_slots.add_argument("--sample", type=int, default=2000)
    args = parser.parse_args()
    os.chdir(ROOT)
    {"tlc": tlc, "scale": scale, "versus": versus, "slots": slots}[args.command](args)


if __name__ == "__main__":
    main()
