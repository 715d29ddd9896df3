"""The engine registry: every engine, what it can do, and its own options.

This is the one place that names engines. The CLI takes its ``--engine``
choices, its help and each engine's options from here; a capability asked
of an engine that lacks it (``--symmetry`` of z3, ``--prop`` of spark) is
refused here, naming the engines that have it. An engine's module is
imported only when the engine is chosen, so its dependencies (pyspark, z3)
cost the others nothing, and an engine whose optional package is missing is
refused in one line with the command that installs it.

To add an engine: write it (``check(model, options) -> CheckResult``, see
``modelcheck/engines/base.py``), add an ``EngineEntry`` below declaring its
capabilities, and add it to the conformance table's engines
(``tests/modelcheck/engines/test_conformance.py`` reads this registry).

The engines may import search machinery, the model, the language, the
backends and the runtime (and the Spark engine ``modelcheck.spark``); they
must not import capabilities, presentation, runs or commands: a capability
reaches an engine through ``CheckOptions``.
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping

from modelcheck.engines.contract import (CAPABILITIES, CHECKPOINT, COVERAGE, EXACT, EXHAUSTIVE, RUN, SIMULATE,
                                         SIMULATION, STATE_GRAPH, SYMMETRY, VIEW, Capability, EngineEntry, Extra, Option)
from modelcheck.errors import InputError

__all__ = ["CAPABILITIES", "DEFAULT_ENGINE", "REFERENCE_ENGINE", "ENGINES", "ENGINE_SUMMARIES", "engine_names", "engine_options",
           "engine_settings", "engines_with", "entry", "load_reference", "engine_commands", "get_engine", "load_command", "get_simulator", "refusal", "require"]

RESUME = Option("--resume", "resume", "continue the search saved in DIR (spark: the --checkpoint-dir of the run).",
                metavar="DIR", commands=(RUN,))

# the size of the fingerprints an engine's visited set tells states apart by: an option of any engine that
# keeps fingerprints (its settings' ``fingerprint_bits``)
FINGERPRINT_BITS = Option(
    "--fingerprint-bits", "fingerprint_bits", "64 or 128: the fingerprints states are told apart by. "
    "With 128, the chance that two states share one is 2e-21 at a billion states (4e-2 with 64), for twice "
    "the visited set's memory (spark: its disk) and a slower search. Default: 64 (spark: 64, then, if the search "
    "passes 6,074,004 states, where that chance passes one in a million, 128 from the start again).",
    kind=int, metavar="BITS", commands=(RUN,))

KERNELS = Option("--kernels", "kernels", "auto (default: C built from the spec, from the cache at once, else built "
                 "beside a search that outlasts a second and taken up between levels), compiled (built before the "
                 "search) or numpy. Without a C compiler, numpy. Spark's executors load or build the same C.",
                 metavar="KIND", commands=(RUN,))

FAST_OPTIONS = (
    Option("--checkpoint", "checkpoint", "save the search into DIR at level boundaries, and when stopped.",
           metavar="DIR", commands=(RUN,)),
    Option("--checkpoint-every", "checkpoint_every", "save at most this often (default 60).", kind=float,
           metavar="SECONDS", commands=(RUN,)),
    RESUME,
    KERNELS,
    Option("--workers", "workers", "threads the compiled kernels split each level between (default: the cores "
           "available; at most 4 per core).", kind=int, metavar="N", commands=(RUN,)),
    FINGERPRINT_BITS,
)

SPARK_OPTIONS = (
    Option("--master", "master", "local[*] (default), local[N] or spark://HOST:PORT.", metavar="URL"),
    Option("--partitions", "partitions", "partitions of the frontier and visited set (default: the cores Spark has).",
           kind=int, metavar="N"),
    Option("--checkpoint-dir", "checkpoint_dir", "keep checkpoints here (default: a temporary directory, removed "
           "afterwards). On a multi-machine cluster, a directory every executor can reach.", metavar="DIR"),
    Option("--checkpoint-levels", "checkpoint_levels", "checkpoint every N levels (default 5).", kind=int,
           metavar="N", commands=(RUN,)),
    RESUME,
    Option("--spark-conf", "conf", "a Spark setting, e.g. spark.executor.memory=4g. Repeatable.", kind="multiple",
           metavar="KEY=VALUE"),
    Option("--executor-wait", "executor_wait", "how long to wait for a cluster's first executor (default 60).",
           kind=float, metavar="SECONDS"),
    Option("--lead-in", "lead_in", "while Spark starts, the driver runs the first levels itself, up to levels of "
           "N successors (default 2,000,000; 0: the executors run every level).", kind=int, metavar="N",
           commands=(RUN,)),
    Option("--verbose", "verbose", "show Spark's own log.", kind="flag"),
    KERNELS,
    FINGERPRINT_BITS,
)

ENGINES: dict[str, EngineEntry] = {e.name: e for e in (
    EngineEntry(
        "bfs", "the reference: breadth-first, state by state, in Python",
        "modelcheck.engines.bfs:BfsChecker",
        frozenset({EXHAUSTIVE, EXACT, SYMMETRY, STATE_GRAPH, VIEW})),
    EngineEntry(
        "fast", "bfs over whole levels with numpy: same counts, traces, report",
        "modelcheck.engines.fast:FastChecker",
        frozenset({EXHAUSTIVE, EXACT, SYMMETRY, CHECKPOINT, COVERAGE, STATE_GRAPH, SIMULATION, VIEW}),
        options=FAST_OPTIONS, settings="modelcheck.engines.settings:FastSettings",
        simulator="modelcheck.engines.simulate:Simulator"),
    EngineEntry(
        "spark", "bfs on a Spark cluster or local[*]; at a violation, the whole\n"
                 "level is counted and another shortest trace may be shown",
        "modelcheck.engines.spark:SparkChecker",
        frozenset({EXHAUSTIVE, SYMMETRY, CHECKPOINT, SIMULATION, VIEW}),
        options=SPARK_OPTIONS, settings="modelcheck.spark.settings:SparkSettings",
        simulator="modelcheck.engines.spark:SwarmSimulator", requires=Extra("spark", ("pyspark", "psutil")),
        logs_levels=True, commands=(("cluster", "modelcheck.spark.commands:cluster"),),
        remarks={"--checkpoint": "use --checkpoint-dir DIR"}),
    EngineEntry(
        "z3", "bounded model checking with z3: no state count, and its\n"
              "counterexample is a shortest one, not always bfs's",
        "modelcheck.engines.bmc:BmcChecker",
        frozenset(), remarks={SYMMETRY.name: "z3 prunes by symmetry on its own"}),
)}

# the fastest exact engine: the same verdicts, counts and traces as the reference
DEFAULT_ENGINE = "fast"
# the engine every other is held to, and the one `modelcheck graph` explores with
REFERENCE_ENGINE = "bfs"

# what each engine is for, one line each (``run --help`` lists them)
ENGINE_SUMMARIES: dict[str, str] = {name: e.summary.replace("\n", "\n         ") for name, e in ENGINES.items()}


def engine_names(capability: Capability | None = None) -> list[str]:
    """Every engine's name, or those with ``capability``, in the registry's order."""
    return [name for name, e in ENGINES.items() if capability is None or e.has(capability)]


def engines_with(capability: Capability) -> list[str]:
    return engine_names(capability)


def entry(name: str) -> EngineEntry:
    if name not in ENGINES:
        raise InputError(f"unknown engine {name!r} (engines: {', '.join(ENGINES)})")
    return ENGINES[name]


def listed(names: list[str], last: str) -> str:
    """``a, b{last}c``: the names joined as a sentence would join them."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + last + names[-1]


def refusal(name: str, capability: Capability) -> str:
    """The line that refuses ``capability`` to the engine ``name``."""
    line = capability.refusal.format(engine=name, engines=listed(engines_with(capability), capability.joiner))
    remark = entry(name).remarks.get(capability.name)
    if remark:
        return f"{line} ({remark})"
    if capability is STATE_GRAPH:
        return f"{line} (use --engine {DEFAULT_ENGINE})"
    return line


def require(name: str, capability: Capability) -> EngineEntry:
    """The engine's entry, if it has ``capability``; otherwise bad input."""
    found = entry(name)
    if not found.has(capability):
        raise InputError(refusal(name, capability))
    return found


def load_reference(reference: str) -> Any:
    """What a "module:attribute" reference names, imported now."""
    module, attribute = reference.split(":")
    return getattr(importlib.import_module(module), attribute)


def check_installed(found: EngineEntry, what: str | None = None) -> None:
    """An engine whose optional package is missing is bad input, said with
    the install command; ``what`` says what needs it (``--engine NAME``)."""
    if found.requires is None:
        return
    for module in found.requires.modules:
        try:
            importlib.import_module(module)
        except ImportError:
            raise InputError(f"{what or '--engine ' + found.name} needs {module}: "
                             f"{found.requires.install()}") from None


def get_engine(name: str):
    """A new instance of the engine's search."""
    found = entry(name)
    check_installed(found)
    return load_reference(found.search)()


def get_simulator(name: str, settings, *args):
    """A new instance of the engine's simulator, built with ``settings``
    (a ``modelcheck.search.simulate.plan.SimulationSettings``)."""
    found = require(name, SIMULATION)
    check_installed(found)
    return load_reference(found.simulator)(settings, *args)


def engine_commands() -> dict[str, EngineEntry]:
    """Commands engines bring (``modelcheck cluster``), by name: the engine that brings each."""
    return {name: e for e in ENGINES.values() for name, _ in e.commands}


def load_command(name: str, installed: bool = False):
    """An engine's command, imported now (only when it is used or listed);
    with ``installed``, its engine's optional package must be there."""
    owner = engine_commands()[name]
    if installed:
        check_installed(owner, f"modelcheck {name}")
    return load_reference(dict(owner.commands)[name])


def engine_options(command: str = RUN) -> list[tuple[Option, list[str]]]:
    """Every engine option ``command`` takes, once each, with the engines
    that understand it: what the CLI adds to the command."""
    out: dict[str, tuple[Option, list[str]]] = {}
    for name, e in ENGINES.items():
        for option in e.options:
            if command in option.commands:
                out.setdefault(option.flag, (option, []))[1].append(name)
    return list(out.values())


def _given(value: Any) -> bool:
    return value is not None and value is not False and value != ()


def engine_settings(name: str, values: Mapping[str, Any], command: str = RUN):
    """The engine's typed settings from the engine options given (by field
    name; unset ones None), or None for an engine without settings. An
    option of another engine, or of another command, is bad input."""
    found = entry(name)
    mine = {o.field: o for o in found.options if command in o.commands}
    given = {k: v for k, v in values.items() if _given(v)}
    for field_name, value in given.items():
        if field_name not in mine:
            raise InputError(_misplaced(field_name, name, command))
    if found.settings is None:
        return None
    check_installed(found)
    return load_reference(found.settings).from_options(given)


def _misplaced(field_name: str, name: str, command: str) -> str:
    """Why an engine option does not apply here."""
    for option, owners in engine_options(command):
        if option.field == field_name:
            if option is RESUME or option.flag == "--resume":
                return refusal(name, CHECKPOINT)
            remark = entry(name).remarks.get(option.flag)
            return (f"{option.flag} applies only to --engine {' or '.join(owners)}"
                    + (f"; with --engine {name}, {remark}" if remark else ""))
    other = SIMULATE if command == RUN else RUN
    for option, owners in engine_options(other):
        if option.field == field_name:
            return f"{option.flag} applies to `{other} --engine {' or '.join(owners)}`, not to `{command}`"
    raise InputError(f"no engine has the setting {field_name!r}")
