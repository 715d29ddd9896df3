"""Time to a verdict: TLC (one worker) against modelcheck's whole command,
on the configurations TLC finishes in under 10 s here.

Each case is run ``--runs`` times each way, every run a fresh process timed
from start to exit (wall clock), and the medians compared:

* TLC: ``java -XX:+UseParallelGC -cp CLASSES tlc2.TLC -deadlock -workers 1
  -config M.cfg M.tla`` in a scratch directory holding the upstream modules
  and a .cfg of the same constants and invariants;
* modelcheck, cold: ``modelcheck run SPEC ... --json -q`` with an empty
  kernel cache (``MODELCHECK_KERNEL_CACHE`` a new directory each run), so
  it builds the C kernel first: with tcc where it is installed (and the
  optimised kernel in the background, which the script lets finish before
  it times anything else);
* modelcheck, warm: the same command again, the kernel cache holding the
  optimised kernel.

modelcheck runs as a user's Python runs it, its modules' bytecode written
once (``$PYTHONDONTWRITEBYTECODE`` is unset for it) and read back on every
later run. Every run must give TLC's verdict, distinct states, depth and trace length;
the script stops otherwise. The targets: cold no slower than TLC, warm at
most half of TLC's time.

    python bench/bench_first_run.py --tlc CLASSES --upstream HACHIKUJI_DIR --upstream VANLIGHTLY_DIR \\
        --community COMMUNITY_MODULES_DIR [--only NAME ...] [--runs 3]

(HACHIKUJI_DIR holds Kip320.tla and its modules; VANLIGHTLY_DIR is a
checkout of kafka-tlaplus; COMMUNITY_MODULES_DIR holds FiniteSetsExt.tla,
SequencesExt.tla, Folds.tla and Functions.tla, which the KRaft modules
need.) ``--no-tlc`` leaves TLC out.
"""

from __future__ import annotations

import argparse
import compileall
import fcntl
import glob
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_kraft import _const_args, _tlc_copy  # noqa: E402
from common import ROOT, machine, measure_once, modelcheck_command, tlc_once  # noqa: E402
from kraft_configs import CFG_INVARIANTS, KIP966_INVARIANTS, TLC as KRAFT_TLC, TLC_KIP966, WITHOUT_NCLG  # noqa: E402

HACHIKUJI_MODULES = ("Kip320", "Kip320FirstTry", "Kip279", "Kip101", "KafkaTruncateToHighWatermark",
                     "KafkaReplication", "FiniteReplicatedLog", "IdSequence", "Util")
# TLC cannot evaluate the upstream TypeOk (it compares -1 with a record)
REPLICATION_INVARIANTS = ("WeakIsr", "StrongIsr")
COMMUNITY = ("FiniteSetsExt", "SequencesExt", "Folds", "Functions")
CLIENTS_DEFAULTS = {"Replicas": "{r1, r2}", "LogSize": 1, "MaxRecords": 1, "MaxLeaderEpoch": 2,
                    "UncleanElection": "FALSE", "ConsumerFencing": "TRUE", "TruncationCheck": "TRUE",
                    "AcksAll": "TRUE", "MinInsyncReplicas": 1, "ProduceFencing": "TRUE", "UnknownEpochBackoff": "TRUE",
                    "MetadataVersionCheck": "TRUE", "ConsumerRestart": "TRUE", "GroupHandover": "TRUE",
                    "CommitLeaderEpoch": "TRUE", "ValidateCommitted": "TRUE", "AwaitCommittedEpoch": "TRUE"}
CONSUMER_DEFAULTS = {"Replicas": "{r1, r2}", "LogSize": 2, "MaxRecords": 3, "MaxLeaderEpoch": 2,
                     "UncleanElection": "TRUE", "ConsumerFencing": "TRUE", "TruncationCheck": "TRUE"}
CLIENTS_INVARIANTS = ("NoDivergentDelivery", "NoAckedWriteLost", "NoWriteToStaleLeader", "NoLeaderRegression",
                      "NoSpuriousOutOfRange")


def replication(spec: str, module: str, replicas: int, log_size: int = 2, records: int = 2, epochs: int = 2,
                invariants: tuple = REPLICATION_INVARIANTS) -> dict:
    consts = {"Replicas": "{" + ", ".join(f"r{k + 1}" for k in range(replicas)) + "}", "LogSize": log_size,
              "MaxRecords": records, "MaxLeaderEpoch": epochs}
    return {"kind": "hachikuji", "spec": spec, "module": module, "consts": consts, "invariants": invariants,
            "init": "Init", "next": "Next"}


def cases() -> dict[str, dict]:
    found = {
        "kip320 r2": replication("kip320", "Kip320", 2),
        "kip320-first-try r2": replication("kip320-first-try", "Kip320FirstTry", 2),
        "kip279 r2": replication("kip279", "Kip279", 2),
        "kip101 r2": replication("kip101", "Kip101", 2),
        "truncate-to-hw r2": replication("truncate-to-hw", "KafkaTruncateToHighWatermark", 2),
        "kip320 r3 e1": replication("kip320", "Kip320", 3, epochs=1),
        "kip320-first-try r3 StrongIsr": replication("kip320-first-try", "Kip320FirstTry", 3,
                                                     invariants=("StrongIsr",)),
        "kip101 r3": replication("kip101", "Kip101", 3),
        "truncate-to-hw r3": replication("truncate-to-hw", "KafkaTruncateToHighWatermark", 3),
        "kafka-clients": {"kind": "clients", "spec": "kafka-clients", "module": "KafkaClients",
                          "consts": CLIENTS_DEFAULTS, "invariants": CLIENTS_INVARIANTS, "init": "ClientsInit",
                          "next": "ClientsNext"},
        "kip320-consumer": {"kind": "clients", "spec": "kip320-consumer", "module": "Kip320Consumer",
                            "consts": CONSUMER_DEFAULTS, "invariants": ("NoDivergentDelivery",), "init": "FullInit",
                            "next": "FullNext"},
    }
    for spec, table, every in (("kraft-3.5", KRAFT_TLC, CFG_INVARIANTS),
                               ("kraft-kip966", TLC_KIP966, KIP966_INVARIANTS)):
        for name, (consts, _distinct, _depth, _verdict, _length, tlc_seconds) in table.items():
            # (a chk_ row turns a CHECK line of the module off: TLC ran it on an edited copy of the module)
            if consts["BrokerCount"] == 2 and tlc_seconds < 10 and not name.startswith("chk_"):
                found[f"{spec} {name}"] = {"kind": "kraft", "spec": spec, "consts": consts,
                                           "invariants": every[:-1] if name in WITHOUT_NCLG else every}
    return found


def tlc_directory(case: dict, args, into: str) -> tuple[str, str]:
    """A scratch directory TLC runs the case in, and the module to run."""
    if case["kind"] == "kraft":
        upstream = find_upstream(args.upstream, os.path.join("kafka_data_replication", "kraft"))
        work, module = _tlc_copy(upstream, case["spec"], case["consts"], case["invariants"], into)
        for name in COMMUNITY:
            shutil.copy(os.path.join(args.community, name + ".tla"), work)
        return work, module
    for name in HACHIKUJI_MODULES:
        shutil.copy(os.path.join(find_upstream(args.upstream, "Kip320.tla", parent=True), name + ".tla"), into)
    if case["kind"] == "clients":
        for name in ("KafkaClients", "Kip320Consumer"):
            shutil.copy(os.path.join(ROOT, "tla", name + ".tla"), into)
    lines = ["CONSTANTS", *[f"    {k} = {v}" for k, v in case["consts"].items()], f"INIT {case['init']}",
             f"NEXT {case['next']}", "INVARIANT " + " ".join(case["invariants"])]
    with open(os.path.join(into, case["module"] + ".cfg"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return into, case["module"]


def find_upstream(dirs: list[str], inside: str, parent: bool = False) -> str:
    for d in dirs:
        path = os.path.join(d, inside)
        if os.path.exists(path):
            return d if parent else path
    raise SystemExit(f"no --upstream holds {inside}")


def modelcheck_args(case: dict) -> list[str]:
    consts = case["consts"]
    if case["kind"] == "kraft":
        return ["run", case["spec"], *_const_args(consts), *[a for inv in case["invariants"] for a in ("--inv", inv)]]
    given = [a for k, v in consts.items() for a in ("--const", f"{k}={v}")]
    return ["run", case["spec"], *given, *[a for inv in case["invariants"] for a in ("--inv", inv)]]


def builds_done(cache: str, limit: float = 900.0) -> None:
    """Waits until no build is under way in the cache (every library's lock free, no source waiting)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        busy = bool(glob.glob(os.path.join(cache, ".pending-*")))
        for lock in glob.glob(os.path.join(cache, ".*.lock")):
            with open(lock) as f:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    busy = True
        if not busy:
            return
        time.sleep(0.2)
    raise SystemExit(f"a kernel build in {cache} took longer than {limit:.0f} s")


def answer_of(out: dict) -> tuple:
    v = out.get("violation") or {}
    return ("violation" if out["result"] == "violation" else out["result"], out["distinct_states"], out["depth"],
            v.get("trace_length"))


def modelcheck_runs(case: dict, runs: int, scratch: str) -> tuple[list[float], list[float], set]:
    cmd = modelcheck_command(*modelcheck_args(case), "--json", "-q")
    cold, warm, answers = [], [], set()
    saved = os.environ.get("MODELCHECK_KERNEL_CACHE")
    try:
        for k in range(runs):
            cache = os.path.join(scratch, f"cache-{k}")
            os.makedirs(cache, mode=0o700)
            os.environ["MODELCHECK_KERNEL_CACHE"] = cache
            run = measure_once(cmd, scratch)
            cold.append(run.seconds)
            answers.add(answer_of(run.output))
            builds_done(cache)
        for _ in range(runs):
            run = measure_once(cmd, scratch)
            warm.append(run.seconds)
            answers.add(answer_of(run.output))
    finally:
        if saved is None:
            os.environ.pop("MODELCHECK_KERNEL_CACHE", None)
        else:
            os.environ["MODELCHECK_KERNEL_CACHE"] = saved
    return cold, warm, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tlc", metavar="CLASSES", help="TLC's compiled classes")
    parser.add_argument("--no-tlc", action="store_true")
    parser.add_argument("--upstream", action="append", default=[])
    parser.add_argument("--community", help="a directory holding the community modules the KRaft modules need")
    parser.add_argument("--only", nargs="*", help="cases by name (@ for a space), or a spec's name for all of its")
    parser.add_argument("--runs", type=int, default=3)
    a = parser.parse_args()
    if not a.no_tlc and not (a.tlc and a.upstream and a.community):
        parser.error("--tlc, --upstream and --community are needed, or --no-tlc")
    # as a user's Python does: the modules' bytecode written once and read back on every later run
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(os.path.join(ROOT, "modelcheck"), quiet=1)
    print(f"machine: {machine()}; medians of {a.runs} runs each, whole commands")
    print("| case | verdict | distinct states | depth | TLC s | cold s | warm s | cold / TLC | warm / TLC |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows, differ = [], []
    for name, case in cases().items():
        if a.only and not any(name == o.replace("@", " ") or name.startswith(o + " ") for o in a.only):
            continue
        with tempfile.TemporaryDirectory() as scratch:
            tlc_s, want = None, None
            if not a.no_tlc:
                os.makedirs(os.path.join(scratch, "tlc"))
                work, module = tlc_directory(case, a, os.path.join(scratch, "tlc"))
                figures = [tlc_once(a.tlc, 1, work, module + ".tla", config=module + ".cfg") for _ in range(a.runs)]
                wants = {f[2] for f in figures}
                if len(wants) != 1:
                    raise SystemExit(f"{name}: TLC's runs disagree: {wants}")
                want, tlc_s = wants.pop(), statistics.median(f[0] for f in figures)
            mine = os.path.join(scratch, "mc")
            os.makedirs(mine)
            cold, warm, answers = modelcheck_runs(case, a.runs, mine)
            if len(answers) != 1:
                raise SystemExit(f"{name}: modelcheck's runs disagree: {answers}")
            got = answers.pop()
            if want is not None and got != want:
                differ.append(f"{name}: modelcheck gives {got}, TLC {want}")
            cold_s, warm_s = statistics.median(cold), statistics.median(warm)
            ratio = (lambda s: f"{s / tlc_s:.2f}") if tlc_s else (lambda s: "-")
            mark = "" if want is None or got == want else f" (TLC: {want[1]:,} distinct, depth {want[2]})"
            print(f"| {name}{mark} | {got[0]}{f' ({got[3]} states)' if got[3] else ''} | {got[1]:,} | {got[2]} | "
                  f"{f'{tlc_s:.2f}' if tlc_s else '-'} | {cold_s:.2f} | {warm_s:.2f} | {ratio(cold_s)} | "
                  f"{ratio(warm_s)} |", flush=True)
            rows.append({"case": name, "answer": got, "tlc_seconds": tlc_s, "cold_seconds": cold,
                         "warm_seconds": warm, "command": " ".join(modelcheck_args(case))})
    print(json.dumps(rows))
    if differ:  # (verdict, distinct states, depth, trace length)
        raise SystemExit("differs from TLC:\n" + "\n".join(differ))


if __name__ == "__main__":
    main()
