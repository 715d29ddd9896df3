"""The TLA+ front-end against the hand ports (and TLC): the same counts, depths, verdicts and traces.

Each row is one TLA+ module with one .cfg, checked twice by modelcheck: read
directly (``modelcheck run Module.tla --config M.cfg``, the front-end) and
through the hand port of the same module (``modelcheck run SPEC --const
...``). Both must give the same result, distinct states, depth and
counterexample length (for a temporal property, the lasso's length and the
state its loop goes back to). With ``--tlc CLASSES`` TLC runs the same
.cfg too (``-deadlock -workers 1``, breadth-first) and its count, depth and
verdict are compared as well. The times are whole commands (a fresh process
each, the front-end's compile of the module included) and, in brackets, the
search alone (the report's own seconds), one run each; TLC's is its whole run.

With ``--itf`` the rows marked small are compared state for state too: both
models are explored in this process and every reachable state written as
TLA+ values (the ITF encoding traces use, over the module's own variables);
the two sets must be equal.

The modules are the project's to read, not to ship: ``--upstream DIR`` is a
directory holding the checkouts as ``DIR/hachikuji+kafka-specification``
(the eleven modules the project started from),
``DIR/Vanlightly+kafka-tlaplus`` (KRaft v3.5 and kip-966, under
kafka_data_replication/kraft/) and, for TLC only, ``DIR/tlaplus+CommunityModules``
(the community modules the KRaft modules extend; modelcheck builds them in).
The project's own modules (tla/: Kip320Live, Kip320Consumer, KafkaClients)
come from this checkout.

    python bench/bench_tla.py --upstream DIR [--only ROW ...] [--group hachikuji|tla|live|kraft]
        [--engine fast|bfs] [--workers N] [--tlc CLASSES [--tlc-workers N]] [--itf] [--kraft-most N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import ROOT, machine, measure_once, modelcheck_command, tlc_once  # noqa: E402
from kraft_configs import CFG_INVARIANTS, KIP966_INVARIANTS, TLC, TLC_KIP966  # noqa: E402

HACHIKUJI = "hachikuji+kafka-specification"
KRAFT = os.path.join("Vanlightly+kafka-tlaplus", "kafka_data_replication", "kraft")
COMMUNITY = os.path.join("tlaplus+CommunityModules", "modules")

TWO = {"Replicas": "{r1, r2}", "LogSize": "2", "MaxRecords": "2", "MaxLeaderEpoch": "2"}
THREE = {**TWO, "Replicas": "{r1, r2, r3}"}
# TypeOk left out: TLC cannot evaluate it (a record compared with Nil = -1 in LogRecords \\union {Nil}; Kip320, two
# replicas: "Evaluating invariant TypeOk failed" after 31 states, depth 4), so no verdict to compare
ISR = ("WeakIsr", "StrongIsr")


class Row:
    """One module, one .cfg: where the module is, the .cfg's text, and the hand port's command."""

    def __init__(self, name, group, directory, module, cfg, port, port_args, small=False, files=None):
        self.name, self.group, self.directory, self.module = name, group, directory, module
        self.cfg, self.port, self.port_args, self.small = cfg, port, list(port_args), small
        self.files = dict(files or {})  # modules written beside the upstream ones (a model of it)


def _cfg(consts: dict, behaviour: str = "INIT Init\nNEXT Next", invariants=(), properties=()) -> str:
    lines = ["CONSTANTS"] + [f"    {k} = {v}" for k, v in consts.items()] + [behaviour]
    if invariants:
        lines.append("INVARIANTS " + " ".join(invariants))
    if properties:
        lines.append("PROPERTIES " + " ".join(properties))
    return "\n".join(lines) + "\n"


def _consts(consts: dict) -> list[str]:
    return [a for k, v in consts.items() for a in ("--const", f"{k}={v}")]


def _invs(names) -> list[str]:
    return [a for n in names for a in ("--inv", n)]


def rows(upstream: str, kraft_most: int = 20_000) -> list[Row]:
    h = os.path.join(upstream, HACHIKUJI)
    out = []
    for spec, module in (("kip320", "Kip320"), ("kip320-first-try", "Kip320FirstTry"), ("kip101", "Kip101"),
                         ("kip279", "Kip279"), ("truncate-to-hw", "KafkaTruncateToHighWatermark")):
        out.append(Row(f"{spec}-2", "hachikuji", h, module, _cfg(TWO, invariants=ISR), spec,
                       _consts(TWO) + _invs(ISR), small=True))
        out.append(Row(f"{spec}-3", "hachikuji", h, module, _cfg(THREE, invariants=ISR), spec,
                       _consts(THREE) + _invs(ISR)))
    # the port bounds AsyncIsr as its model does: offsets up to MaxOffset, ISR versions up to MaxVersion
    async_consts = {"Replicas": "{r1, r2, r3}", "Leader": "r1", "MaxOffset": "2", "MaxVersion": "3"}
    bounded = ("---- MODULE MCAsyncIsr ----\nEXTENDS AsyncIsr\nCONSTANT MaxVersion\n"
               "Bounded == leaderState.offsets[Leader] <= MaxOffset /\\ controllerState.version <= MaxVersion\n====\n")
    out.append(Row("async-isr", "hachikuji", h, "MCAsyncIsr",
                   _cfg(async_consts, invariants=("ValidHighWatermark",)) + "CONSTRAINT Bounded\n",
                   "async-isr", _consts(async_consts) + _invs(("ValidHighWatermark",)), small=True,
                   files={"MCAsyncIsr.tla": bounded}))
    tla = os.path.join(ROOT, "tla")
    for cfg in sorted(os.listdir(os.path.join(tla, "cfg"))):
        if not cfg.endswith(".cfg"):
            continue
        text = open(os.path.join(tla, "cfg", cfg)).read()
        consts = dict(re.findall(r"^\s+(\w+) = (.+)$", text, re.M))
        invariants = re.findall(r"^INVARIANTS? (.+)$", text, re.M)
        invs = invariants[0].split() if invariants else []
        module, spec = "KafkaClients", "kafka-clients"  # every .cfg of tla/cfg is KafkaClients' (ClientsInit)
        out.append(Row(cfg[:-4], "tla", tla, module, text, spec, _consts(consts) + _invs(invs)))
    # Kip320Consumer with the port's own constants, and with each of its two mechanisms off
    consumer = {"Replicas": "{r1, r2}", "LogSize": "2", "MaxRecords": "3", "MaxLeaderEpoch": "2",
                "UncleanElection": "TRUE", "ConsumerFencing": "TRUE", "TruncationCheck": "TRUE"}
    for name, changed in (("kip320-consumer", {}), ("kip320-consumer-no-fencing", {"ConsumerFencing": "FALSE"}),
                          ("kip320-consumer-no-check", {"TruncationCheck": "FALSE"})):
        consts = {**consumer, **changed}
        out.append(Row(name, "tla", tla, "Kip320Consumer",
                       _cfg(consts, "INIT FullInit\nNEXT FullNext", invariants=("NoDivergentDelivery",)),
                       "kip320-consumer", _consts(consts) + _invs(("NoDivergentDelivery",))))
    for specification in ("Spec", "NoFairSpec", "FairFetchSpec"):
        for prop in ("LeaderEventuallyElected", "EpochsConverge", "WrittenLeadsToCommitted", "InSyncInfinitelyOften",
                     "IsrSettles", "LeaderAdoptsItsRequest", "WritesWhenLed", "QuorumIsrStabilizes"):
            out.append(Row(f"live-{specification}-{prop}", "live", None, "Kip320Live",
                           _cfg(TWO, f"SPECIFICATION {specification}", properties=(prop,)), "kip320",
                           _consts(TWO) + ["--prop", prop, "--specification", specification]))
    k = os.path.join(upstream, KRAFT)
    for spec, directory, module, table, every in (
            ("kraft-3.5", "v3.5", "kafka_replication_v3_5", TLC, CFG_INVARIANTS),
            ("kraft-kip966", "kip-966", "kafka_replication_kip_966", TLC_KIP966, KIP966_INVARIANTS)):
        base = open(os.path.join(k, directory, module + ".cfg")).read() if os.path.isdir(k) else ""
        for name, (consts, distinct, *_rest) in table.items():
            if distinct > kraft_most:  # the larger ones take TLC minutes: asked for with --kraft-most
                continue
            lossy = consts.get("DataLossShutdownLimit" if spec == "kraft-kip966" else "UncleanShutdownLimit")
            invariants = every[:-1] if consts["MinISR"] == lossy else every
            text = base
            for key, value in consts.items():
                text = re.sub(rf"^(\s*){key}\s*=.*$", rf"\g<1>{key} = {value}", text, flags=re.M)
            head, _, _ = text.partition("\nINVARIANT")
            out.append(Row(f"{spec}-{name}", "kraft", os.path.join(k, directory), module,
                           head + "\nINVARIANT\n" + "\n".join(invariants) + "\n", spec,
                           _consts(consts) + _invs(invariants), small=distinct <= 2_000))
    return out


def _answer(output: dict) -> tuple:
    v = output.get("violation") or {}
    return (output["result"], output["distinct_states"], output["depth"], v.get("trace_length"),
            v.get("loop_start"))


def run_row(row: Row, args, scratch: str) -> dict:
    work = os.path.join(scratch, row.name)
    shutil.copytree(row.directory or os.path.join(ROOT, "tla"), work)
    if row.group in ("tla", "live"):  # the project's modules over the upstream Kip320
        for f in os.listdir(os.path.join(args.upstream, HACHIKUJI)):
            if f.endswith(".tla"):
                shutil.copy(os.path.join(args.upstream, HACHIKUJI, f), work)
    for name, text in [("M.cfg", row.cfg)] + list(row.files.items()):
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    _private(work)
    codes = (0, 12, 13)
    workers = ["--workers", str(args.workers)] if args.workers and args.engine == "fast" else []
    fe = _measured(modelcheck_command("run", f"{row.module}.tla", "--config", "M.cfg", "--engine", args.engine,
                                      *workers, "--json", "-q"), work, codes)
    port = _measured(modelcheck_command("run", row.port, *row.port_args, "--engine", args.engine, *workers,
                                        "--json", "-q"), work, codes)
    out = {"row": row.name, "group": row.group, "front_end": _answer(fe.output), "port": _answer(port.output),
           "front_end_seconds": round(fe.seconds, 2), "port_seconds": round(port.seconds, 2),
           "front_end_search_seconds": fe.output.get("seconds"), "port_search_seconds": port.output.get("seconds")}
    out["match"] = out["front_end"] == out["port"]
    if args.tlc and row.group != "live":
        for f in os.listdir(os.path.join(args.upstream, COMMUNITY)):
            if f.endswith(".tla") and not os.path.exists(os.path.join(work, f)):
                shutil.copyfile(os.path.join(args.upstream, COMMUNITY, f), os.path.join(work, f))
        seconds, _, answer = tlc_once(args.tlc, args.tlc_workers, work, f"{row.module}.tla")
        out["tlc"] = answer
        out["tlc_seconds"] = round(seconds, 2)
        out["match_tlc"] = answer[:3] == out["front_end"][:3] and (answer[0] == "ok" or answer[3] == out["front_end"][3])
    # state for state where the search ends of itself (past a violation the learned bounds say nothing)
    if args.itf and row.small and out["match"] and out["front_end"][0] == "ok":
        out["itf"] = compare_states(os.path.join(work, f"{row.module}.tla"), os.path.join(work, "M.cfg"), row)
    return out


class _Failed:
    """A command that ended with another exit code: its code and its last line, as the row's answer."""

    def __init__(self, code: int, line: str, seconds: float):
        self.seconds = seconds
        self.output = {"result": f"exit {code}: {line}", "distinct_states": 0, "depth": 0}


def _measured(cmd: list[str], cwd: str, codes: tuple[int, ...]):
    try:
        return measure_once(cmd, cwd, codes)
    except SystemExit:
        import subprocess
        started = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")))
        last = (done.stderr.strip().splitlines() or [""])[-1]
        return _Failed(done.returncode, last, time.perf_counter() - started)


def _private(directory: str) -> None:
    """The copies writable by their owner only (modelcheck reads no spec another user could change; the
    checkouts may be group-writable)."""
    for base, dirs, files in os.walk(directory):
        for name in dirs + files:
            path = os.path.join(base, name)
            os.chmod(path, os.stat(path).st_mode & ~0o022)
    os.chmod(directory, os.stat(directory).st_mode & ~0o022)


def _canonical(x):
    """ITF JSON with every set's elements (and every map's pairs) in one order, whatever the writer's."""
    if isinstance(x, list):
        return [_canonical(v) for v in x]
    if isinstance(x, dict):
        if set(x) == {"#set"}:
            return {"#set": sorted((_canonical(v) for v in x["#set"]), key=lambda v: json.dumps(v, sort_keys=True))}
        if set(x) == {"#map"}:
            pairs = [(_canonical(k), _canonical(v)) for k, v in x["#map"]]
            keys = [k for k, _ in pairs]
            if keys and all(isinstance(k, dict) and set(k) == {"#bigint"} for k in keys) and \
                    sorted(int(k["#bigint"]) for k in keys) == list(range(1, len(keys) + 1)):
                # a function on 1..n is a sequence (TLA+'s, and TLC's, one value): written as one
                return [v for _, v in sorted(pairs, key=lambda p: int(p[0]["#bigint"]))]
            return {"#map": sorted(([k, v] for k, v in pairs), key=lambda p: json.dumps(p, sort_keys=True))}
        return {k: _canonical(v) for k, v in x.items()}
    return x


def compare_states(module: str, cfg: str, row: Row, most: int = 50_000) -> str:
    """Every reachable state of the front-end's model and of the port's, as ITF: the same set?"""
    from modelcheck.language.values import to_itf
    from modelcheck.loading.registry import load_file
    from modelcheck.loading.request import resolve

    def states(model) -> list[dict]:
        out, frontier = [], list(model.init_states)
        found = {tuple(s) for s in frontier}
        while frontier and len(found) <= most:
            nxt = []
            for s in frontier:
                out.append(_canonical({k: to_itf(v) for k, v in model.codec.encode(s).items()}))
                for _, t in model.successors(s):
                    if t not in found:
                        found.add(t)
                        nxt.append(t)
            frontier = nxt
        return out

    def texts(found: list[dict]) -> set[str]:
        return {json.dumps(s, sort_keys=True) for s in found}

    spec = load_file(module, config=cfg)
    ours = states(spec.instantiate(spec.resolve_constants(), view=False))
    consts = [row.port_args[i + 1] for i, a in enumerate(row.port_args) if a == "--const"]
    resolved = resolve(row.port, consts)
    theirs = states(resolved.spec.instantiate(resolved.constants, view=False))
    if texts(ours) == texts(theirs):
        return f"same {len(ours):,} states"
    differing = [v for v in sorted(ours[0]) if {json.dumps(s[v], sort_keys=True) for s in ours}
                 != {json.dumps(s[v], sort_keys=True) for s in theirs}]
    outside = [v for v in differing if spec.view and v not in spec.view]
    note = (f" (in {', '.join(differing)}" + (f"; outside the VIEW and read by nothing, so not stored: "
                                               f"{', '.join(outside)}" if outside else "") + ")")
    return (f"DIFFERENT: {len(texts(ours) - texts(theirs)):,} only through the front-end, "
            f"{len(texts(theirs) - texts(ours)):,} only through the port{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--upstream", required=True, metavar="DIR")
    parser.add_argument("--only", nargs="*", default=None, metavar="ROW")
    parser.add_argument("--group", choices=("hachikuji", "tla", "live", "kraft"), action="append")
    parser.add_argument("--engine", default="fast", choices=("fast", "bfs"))
    parser.add_argument("--tlc", metavar="CLASSES", help="TLC's classes (java -cp): run TLC on each .cfg too")
    parser.add_argument("--itf", action="store_true", help="compare the small rows state for state")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON at the end")
    parser.add_argument("--kraft-most", type=int, default=20_000, metavar="N",
                        help="the KRaft rows whose TLC count is at most N (default 20,000)")
    parser.add_argument("--workers", type=int, default=None, help="the fast engine's workers (default: its own)")
    parser.add_argument("--tlc-workers", type=int, default=1)
    args = parser.parse_args()
    chosen = [r for r in rows(args.upstream, args.kraft_most) if (not args.only or r.name in args.only)
              and (not args.group or r.group in args.group)]
    print(f"machine: {machine()}; engine {args.engine}", flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="bench_tla_") as scratch:
        for row in chosen:
            started = time.perf_counter()
            r = run_row(row, args, scratch)
            results.append(r)
            fe, port = r["front_end"], r["port"]
            line = (f"{row.name:<42} {'match' if r['match'] else 'DIFFER'}  front-end {fe[0]} {fe[1]:,}/{fe[2]}"
                    f"{' trace ' + str(fe[3]) if fe[3] else ''}{' loop ' + str(fe[4]) if fe[4] is not None else ''} "
                    f"{r['front_end_seconds']} s (search {r['front_end_search_seconds']} s); "
                    f"port {port[0]} {port[1]:,}/{port[2]}{' trace ' + str(port[3]) if port[3] else ''} "
                    f"{r['port_seconds']} s (search {r['port_search_seconds']} s)")
            if "tlc" in r:
                t = r["tlc"]
                line += f"; TLC {t[0]} {t[1]:,}/{t[2]} {r['tlc_seconds']} s {'match' if r['match_tlc'] else 'DIFFER'}"
            if "itf" in r:
                line += f"; ITF {r['itf']}"
            print(line + f"  ({time.perf_counter() - started:.0f} s)", flush=True)
    differ = [r["row"] for r in results if not r["match"] or r.get("match_tlc") is False
              or r.get("itf", "same").startswith("DIFFERENT")]
    print(f"{len(results) - len(differ)} of {len(results)} rows match" + (f"; differ: {', '.join(differ)}"
                                                                        if differ else ""))
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
