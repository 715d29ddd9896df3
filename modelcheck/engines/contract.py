"""The engine contract: what an engine declares about itself.

Every engine is registered once (``modelcheck/engines/__init__.py``) with an
``EngineEntry``: its name and a line saying what it is, where its search
lives (and its simulator, if it simulates), the capabilities it has, the
command-line options only it understands (filling its own typed settings),
and the optional package it needs. Nothing else in modelcheck compares
engine names: the CLI builds its choices and options from these entries,
and a request for a capability an engine lacks is refused, before any
search, by the registry, in one line naming the engines that have it.

A capability is a module of its own (symmetry, coverage, checkpoints, the
state graph for temporal properties, simulation); an engine that declares
one is fed its hook (a canonicaliser, a coverage collector, a graph
recorder...) through ``CheckOptions`` and must honour it. The conformance
tests (``tests/modelcheck/engines/test_conformance.py``) hold every engine
that declares a capability to the same cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Capability:
    """Something an engine can do. ``refusal`` is the one line that refuses
    it to an engine without it: ``{engine}`` is that engine, ``{engines}``
    the engines that have it (``joiner`` before the last of them, commas before the others)."""

    name: str
    title: str
    refusal: str
    joiner: str = ", "

    def __str__(self) -> str:
        return self.name


EXHAUSTIVE = Capability(
    "exhaustive", "explores every reachable state: a distinct-state count, a depth and shortest counterexamples",
    "an exhaustive search is made by the engines {engines}, not {engine}")
EXACT = Capability(
    "exact", "the reference engine's own figures: at a violation, the same count and the same shortest trace",
    "the reference engine's counts and traces are reproduced by the engines {engines}, not {engine}")
SYMMETRY = Capability(
    "symmetry", "one state per orbit of the spec's symmetric constants (--symmetry)",
    "--symmetry works with the engines {engines}, not {engine}")
# its settings type has saving_into(directory) and resuming_from(directory)
CHECKPOINT = Capability(
    "checkpoint", "saves the search and resumes it (--resume)",
    "--resume continues a search saved by the engines {engines}, not by {engine}")
COVERAGE = Capability(
    "coverage", "collects coverage (--coverage)",
    "--coverage is not collected by the {engine} engine (it is by {engines})", " and ")
STATE_GRAPH = Capability(
    "state-graph", "records the state graph temporal properties are checked on (--prop)",
    "temporal properties are checked by the {engines} engines, not {engine}", " and ")
SIMULATION = Capability(
    "simulation", "random simulation (modelcheck simulate)",
    "simulate runs on the engines {engines}, not {engine}")

# fingerprints each state by the spec's VIEW and keeps the first state found
# for each, in breadth-first order, as TLC does (modelcheck/capabilities/view.py)
VIEW = Capability(
    "view", "counts states by the spec's VIEW, as TLC does (--view)",
    "--engine {engine} does not apply a VIEW; use --engine {engines}", " or ")

CAPABILITIES = (EXHAUSTIVE, EXACT, SYMMETRY, CHECKPOINT, COVERAGE, STATE_GRAPH, SIMULATION, VIEW)

# the commands an engine's option may be given to
RUN, SIMULATE = "run", "simulate"


@dataclass(frozen=True)
class Option:
    """A command-line option only some engines understand: ``--flag`` fills
    the settings field ``field``. ``kind`` is str, int, float, "flag" (on
    or off) or "multiple" (repeatable strings)."""

    flag: str
    field: str
    help: str
    kind: Any = str
    metavar: str | None = None
    commands: tuple[str, ...] = (RUN, SIMULATE)


@dataclass(frozen=True)
class Extra:
    """An optional dependency: the modules an engine imports, and the pip
    extra that installs them."""

    name: str
    modules: tuple[str, ...]

    def install(self) -> str:
        from modelcheck.runtime.extras import install_command
        return install_command(self.name, self.modules)


@dataclass(frozen=True)
class EngineEntry:
    """One engine, as the registry declares it. ``search``, ``simulator``
    and ``settings`` are "module:attribute" references, imported only when
    the engine is chosen, so that an engine's dependencies (pyspark, z3)
    cost the others nothing."""

    name: str
    summary: str  # one line for ``run --help`` (a second line may follow a newline)
    search: str
    capabilities: frozenset[Capability]
    options: tuple[Option, ...] = ()
    settings: str | None = None  # the typed settings its options fill
    simulator: str | None = None  # with SIMULATION: the engine ``modelcheck simulate`` runs
    requires: Extra | None = None
    # a word more in a refusal, by capability name or option flag (z3 prunes by
    # symmetry on its own; Spark's checkpoints go to --checkpoint-dir)
    remarks: dict[str, str] = field(default_factory=dict)
    # its progress is a line per level, worth writing even when stderr is not a terminal (runs are long)
    logs_levels: bool = False
    # commands of its own: (name, "module:attribute" of the click command), loaded when used
    commands: tuple[tuple[str, str], ...] = ()

    def has(self, capability: Capability) -> bool:
        return capability in self.capabilities

    def option_flags(self, command: str = RUN) -> tuple[str, ...]:
        return tuple(o.flag for o in self.options if command in o.commands)
