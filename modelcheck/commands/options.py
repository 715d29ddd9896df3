"""The command-line options: those several commands share, each defined
once, and those the engine registry declares.

An engine's own options (``--master``, ``--checkpoint``...) are not written
here: ``engine_options`` adds to a command every option some engine
declares for it, and ``engine_values`` collects what was given, by settings
field, for the registry to check against the chosen engine and turn into
its typed settings.
"""

from __future__ import annotations

import math
import re

import click

from modelcheck.engines import DEFAULT_ENGINE, ENGINE_SUMMARIES, engine_names
from modelcheck.engines import engine_options as declared_options
from modelcheck.engines.contract import RUN, SIMULATE, Capability

PREFIX = "engine_option__"  # the keyword an engine option arrives under: PREFIX + its settings field

SYMMETRY_HELP = ("Keep one state per orbit under renamings of the spec's symmetric constants (TLC's "
                 "SYMMETRY Permutations(Replicas)): counts are orbits; traces are genuine behaviours. With --prop, "
                 "each property case uses the renamings that leave it alone, and lassos are genuine too.")


class AsciiInteger(click.ParamType):
    """An integer written in ASCII digits: other scripts' digits, which
    Python's ``int`` accepts, are refused rather than read as a number."""

    name = "integer"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        text = str(value).strip()
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            self.fail(f"{value!r} is not a valid integer (digits 0-9 only)", param, ctx)
        return int(text)


class FiniteNumber(click.ParamType):
    """A finite decimal number in ASCII: nan, inf and other scripts' digits are refused."""

    name = "number"

    def convert(self, value, param, ctx):
        if isinstance(value, (int, float)) and math.isfinite(value):
            return float(value)
        text = str(value).strip()
        if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", text) \
                or not math.isfinite(float(text)):
            self.fail(f"{value!r} is not a valid finite number (digits 0-9, such as 30 or 0.5)", param, ctx)
        return float(text)


INTEGER, NUMBER = AsciiInteger(), FiniteNumber()


def engines_epilog() -> str:
    return "\b\nEngines:\n" + "\n".join(f"  {name:<6} {line}" for name, line in ENGINE_SUMMARIES.items())


def engine_option(capability: Capability | None = None, help: str = "Exploration engine (listed below).",
                  default: str = DEFAULT_ENGINE):
    """``--engine``, choosing among the engines (with ``capability``, among those that have it)."""
    return click.option("--engine", type=click.Choice(engine_names(capability)), default=default,
                        show_default=True, help=help)


def const_option(help: str = "Set a constant, e.g. Replicas=3, Replicas={a,b}, LogSize=2. Repeatable."):
    return click.option("--const", "consts", multiple=True, metavar="NAME=VALUE", help=help)


def config_option(help: str = "Read CONSTANTS and INVARIANTS from a TLC .cfg file."):
    return click.option("--config", type=str, metavar="FILE.cfg", help=help + " `--config default` names the "
                        "spec's own settings, its defaults.")


def inv_option(help: str = "Check this invariant (repeatable); default: the spec's default invariants."):
    return click.option("--inv", "invariants", multiple=True, metavar="NAME", help=help)


def trace_out_options(fn):
    fn = click.option("--overwrite", is_flag=True, help="Allow --trace-out to replace an existing file.")(fn)
    return click.option("--trace-out", type=str, metavar="PATH",
                        help="Where to write the ITF trace of a violation (default: a new file in "
                             "modelcheck-out/SPEC/).")(fn)


def json_option(help: str = "Print one JSON object on stdout instead of the report."):
    return click.option("--json", "as_json", is_flag=True, help=help)


def quiet_option(fn):
    return click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")(fn)


def coverage_option(fn):
    return click.option("--coverage", is_flag=False, flag_value="actions", default=None, metavar="[full]",
                        help="Report coverage: per action (enabled, generated, distinct), dead guard branches, "
                             "field ranges. --coverage=full adds each action instance.")(fn)


def engine_options(command: str = RUN):
    """Add every engine's own options to a command. Those of the other
    command are accepted but hidden, so that giving one is refused with the
    reason rather than as an unknown option."""
    here = {option.flag for option, _ in declared_options(command)}
    everything = declared_options(RUN) + [o for o in declared_options(SIMULATE) if o[0].flag not in
                                          {option.flag for option, _ in declared_options(RUN)}]

    def decorate(fn):
        for option, owners in reversed(everything):
            fn = _click_option(option, owners, hidden=option.flag not in here)(fn)
        return fn
    return decorate


def _click_option(option, owners: list[str], hidden: bool):
    who = f"--engine {owners[0]}" if len(owners) == 1 else f"{', '.join(owners)} engines"
    declared = dict(help=f"{who}: {option.help}", hidden=hidden)
    name = PREFIX + option.field
    if option.kind == "flag":
        return click.option(option.flag, name, is_flag=True, **declared)
    if option.kind == "multiple":
        return click.option(option.flag, name, multiple=True, metavar=option.metavar, **declared)
    kind = {int: INTEGER, float: NUMBER}.get(option.kind, option.kind)
    return click.option(option.flag, name, type=kind, metavar=option.metavar, **declared)


def engine_values(given: dict) -> dict:
    """The engine options a command received (removed from ``given``), by settings field."""
    return {key[len(PREFIX):]: given.pop(key) for key in [k for k in given if k.startswith(PREFIX)]}
