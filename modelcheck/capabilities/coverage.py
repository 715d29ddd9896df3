"""Coverage: what a run exercised, as TLC's ``-coverage`` reports it.

A ``Coverage`` is a collector the engines report to, at two points only:

* ``expanded(columns, enabled)`` for every batch of states the engine
  expands (their unpacked columns and, per action instance, the rows where
  its guard holds);
* ``new_states(actions)`` with the action instance credited with each new
  distinct state (the one whose successor was kept), and ``initial(n)``.

From these it keeps, per action instance, how often it was enabled, how many
successors it generated (one per enabled state: an instance's assignments
are deterministic) and how many were new distinct states; per guard branch,
how often it held in a state where the whole guard held; and per state slot
the smallest and largest value seen.

Guard branches are the disjuncts of each ``or`` in an instance's guard (and
the arms of a boolean ``ite``; an integer ``ite`` is a value selection, such
as indexing an array by a state value, not a branch). A branch is named by
its action and its condition written over fields rather than slots
(``hw[_] = 0``), so that the instances of one action add up. A spec may also declare the branches of the TLA+ action by name
(``@action(cases=...)``); a branch that folded away because no parameter
value makes it hold (Kip320's ``leader = None`` case) is reported dead with
that reason, rather than silently missing.

An engine that is not given a collector pays nothing; with one, the cost is
one extra batch evaluation of the branch conditions and a min/max per slot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

from modelcheck.language import codec as codecs
from modelcheck.errors import InputError
from modelcheck.language.expr import BOOL, FALSE, TRUE, Expr, lift, not_, to_text

LEVELS = ("actions", "full")


def parse_level(text: str | None) -> str | None:
    """``--coverage`` (actions) or ``--coverage=full`` (also per instance)."""
    if text is None:
        return None
    if text not in LEVELS:
        raise InputError(f"--coverage takes {' or '.join(LEVELS)}, got {text!r}")
    return text


def check_request(engine: str, level: str | None, resuming: bool = False) -> None:
    """Coverage asked of an engine that cannot collect it (see the engine
    registry), or of a resumed search, is bad input."""
    if level is None:
        return
    from modelcheck.engines import require
    from modelcheck.engines.contract import COVERAGE
    require(engine, COVERAGE)
    if resuming:
        raise InputError("--coverage counts a search from its start; it cannot continue one with --resume")


@dataclass(frozen=True)
class Branch:
    action: str
    place: str  # where in the first instance's guard, e.g. "and.4/or.1"; a declared case's own name
    text: str  # the condition as written for the first instance that has it
    declared: bool = False


def guard_branches(guard: Expr, place: str = "") -> Iterator[tuple[str, Expr]]:
    """(place, condition) for every disjunct of every ``or`` in ``guard`` and
    both arms of every boolean ``ite``, outermost first."""
    op = guard.op
    if op in ("const", "var"):
        return
    if op == "or":
        for k, disjunct in enumerate(guard.args, 1):
            here = f"{place}or.{k}"
            yield here, disjunct
            yield from guard_branches(disjunct, here + "/")
        return
    if op == "ite" and guard.sort == BOOL:
        cond, then, otherwise = guard.args
        yield f"{place}if", cond
        yield f"{place}else", not_(cond)
        yield from guard_branches(then, f"{place}if/")
        yield from guard_branches(otherwise, f"{place}else/")
        return
    for k, arg in enumerate(guard.args, 1):
        yield from guard_branches(arg, f"{place}{op}.{k}/")


def declared_cases(model) -> dict[int, list[tuple[str, Expr]]]:
    """Per action instance, its action's declared cases as conditions."""
    from modelcheck.language.schema import StateView
    by_name = {a.name: a for a in model.spec.next}
    view = StateView(model.schema, model.constants)
    out: dict[int, list[tuple[str, Expr]]] = {}
    for inst in model.instances:
        cases = by_name[inst.action].cases
        if cases:
            out[inst.index] = [(name, lift(fn(view, **dict(inst.params)))) for name, fn in cases]
    return out


class Coverage:
    """The collector. ``level`` is "actions" or "full" (per instance too)."""

    def __init__(self, model, level: str = "actions"):
        self.model, self.level = model, level
        k = len(model.instances)
        self.enabled = np.zeros(k, np.int64)
        self.distinct = np.zeros(k, np.int64)
        self.initial_states = 0
        self.lo = np.full(model.schema.width, np.iinfo(np.int64).max)
        self.hi = np.full(model.schema.width, np.iinfo(np.int64).min)
        # the values each slot held, as a bitmask over its declared range (when that has at most 64 values)
        schema = model.schema
        self._small = np.array([k for k in range(schema.width) if schema.hi[k] - schema.lo[k] < 64], np.int64)
        self._base = np.array([schema.lo[k] for k in self._small], np.int64)[:, None]
        self.values = np.zeros(self._small.size, np.uint64)
        self.branches: list[Branch] = []
        self.held: list[int] = []
        self.possible: list[bool] = []  # some instance has the branch (not folded to FALSE)
        self.instances_with: list[list[int]] = []  # the action instances that have each branch
        self._plan: list[list[tuple[int, int]]] = [[] for _ in range(k)]  # instance -> (branch, column)
        self._constant: list[list[tuple[int, bool]]] = [[] for _ in range(k)]
        self._evaluate = self._compile()

    # --- building ------------------------------------------------------------
    def _compile(self):
        from modelcheck.backends.numpy_codegen import compile_columns
        schema = self.model.schema

        def template(slot: int) -> str:  # a slot as its field, so that instances of an action add up
            f = schema.slot_field[slot]
            return f.name + "[_]" * len(f.shape)
        index: dict[tuple[str, str], int] = {}
        exprs: list[Expr] = []
        cases = declared_cases(self.model)

        def note(inst, place: str, cond: Expr, declared: bool) -> None:
            text = place if declared else to_text(cond, template)
            key = (inst.action, text)
            if key not in index:
                index[key] = len(self.branches)
                self.branches.append(Branch(inst.action, place, text, declared))
                self.held.append(0)
                self.possible.append(False)
                self.instances_with.append([])
            b = index[key]
            self.possible[b] = self.possible[b] or cond is not FALSE
            self.instances_with[b].append(inst.index)
            if cond is TRUE or cond is FALSE:
                self._constant[inst.index].append((b, cond is TRUE))
            else:
                self._plan[inst.index].append((b, len(exprs)))
                exprs.append(cond)

        for inst in self.model.instances:
            for name, cond in cases.get(inst.index, []):
                note(inst, name, cond, True)
            for place, cond in guard_branches(inst.guard):
                note(inst, place, cond, False)
        # declared cases of actions all of whose instances folded away
        for act in self.model.spec.next:
            for name, _ in act.cases:
                if (act.name, name) not in index:
                    index[(act.name, name)] = len(self.branches)
                    self.branches.append(Branch(act.name, name, name, True))
                    self.held.append(0)
                    self.possible.append(False)
                    self.instances_with.append([])
        return compile_columns(exprs, f"{self.model.spec.name} coverage") if exprs else None

    # --- what engines report ---------------------------------------------------
    def initial(self, count: int) -> None:
        self.initial_states += count

    def _ranges(self, columns: np.ndarray) -> None:
        np.minimum(self.lo, columns.min(axis=1), out=self.lo)
        np.maximum(self.hi, columns.max(axis=1), out=self.hi)
        if self._small.size:
            offsets = (columns[self._small] - self._base).astype(np.uint64)
            self.values |= np.bitwise_or.reduce(np.left_shift(np.uint64(1), offsets), axis=1)

    def expanded(self, columns: np.ndarray, enabled: list[np.ndarray]) -> None:
        if columns.shape[1] == 0:
            return
        self._ranges(columns)
        counts = np.fromiter((rows.size for rows in enabled), np.int64, len(enabled))
        self.enabled += counts
        values = self._evaluate(columns) if self._evaluate is not None else []
        held = self.held
        for i in np.flatnonzero(counts):
            rows = enabled[i]
            for b, column in self._plan[i]:
                held[b] += int(np.count_nonzero(values[column][rows]))
            for b, always in self._constant[i]:
                if always:
                    held[b] += rows.size

    def new_states(self, actions: np.ndarray) -> None:
        self.distinct += np.bincount(actions, minlength=self.distinct.size)

    def seen(self, columns: np.ndarray) -> None:
        """States reached but not expanded (a level only looked at)."""
        if columns.shape[1]:
            self._ranges(columns)

    def merge(self, other: "Coverage") -> None:
        self.enabled += other.enabled
        self.distinct += other.distinct
        self.initial_states += other.initial_states
        np.minimum(self.lo, other.lo, out=self.lo)
        np.maximum(self.hi, other.hi, out=self.hi)
        self.values |= other.values
        self.held = [a + b for a, b in zip(self.held, other.held)]

    def held_values(self) -> dict[int, set[int]]:
        """Per slot with a small declared range, the values it held."""
        out = {}
        for k, base, bits in zip(self._small.tolist(), self._base[:, 0].tolist(), self.values.tolist()):
            out[k] = {base + i for i in range(64) if bits >> i & 1}
        return out

    # --- the report ----------------------------------------------------------
    def report(self) -> "CoverageReport":
        return CoverageReport.of(self)


@dataclass
class CoverageReport:
    actions: list[dict[str, Any]]
    instances: list[dict[str, Any]] | None
    branches: list[dict[str, Any]]
    fields: list[dict[str, Any]]
    initial_states: int
    variables: list[dict[str, Any]] = field(default_factory=list)  # the same, as the spec's TLA+ variables

    @staticmethod
    def of(c: Coverage) -> "CoverageReport":
        model = c.model
        actions: dict[str, dict[str, Any]] = {}
        for inst in model.instances:
            row = actions.setdefault(inst.action, {"name": inst.action, "enabled": 0, "generated": 0, "distinct": 0})
            row["enabled"] += int(c.enabled[inst.index])
            row["generated"] += int(c.enabled[inst.index])
            row["distinct"] += int(c.distinct[inst.index])
        for act in model.spec.next:  # an action with no instance at these constants still shows
            actions.setdefault(act.name, {"name": act.name, "enabled": 0, "generated": 0, "distinct": 0})
        instances = None
        if c.level == "full":
            instances = [{"name": inst.label(), "enabled": int(c.enabled[inst.index]),
                          "generated": int(c.enabled[inst.index]), "distinct": int(c.distinct[inst.index])}
                         for inst in model.instances]
        branches = []
        for b, held, possible, having in zip(c.branches, c.held, c.possible, c.instances_with):
            enabled = int(c.enabled[having].sum()) if having else 0
            entry = {"action": b.action, "branch": b.place, "condition": b.text, "held": held,
                     "enabled": enabled, "declared": b.declared, "dead": held == 0}
            if held == 0:
                entry["why"] = _why_dead(possible, enabled)
            branches.append(entry)
        return CoverageReport([actions[a.name] for a in model.spec.next], instances, branches,
                              field_ranges(model.schema, c.lo, c.hi), c.initial_states,
                              variable_ranges(model.codec, c.held_values(), c.hi))

    @property
    def dead_branches(self) -> list[dict[str, Any]]:
        return [b for b in self.branches if b["dead"]]

    def to_json(self) -> dict[str, Any]:
        out = {"initial_states": self.initial_states, "actions": self.actions,
               "branches": self.branches, "dead_branches": self.dead_branches, "fields": self.fields,
               "variables": self.variables}
        if self.instances is not None:
            out["instances"] = self.instances
        return out

    def text(self) -> str:
        lines = ["coverage (enabled = states where the action's guard held; generated = successors; "
                 "distinct = new states it was first to reach)"]
        rows = [(a["name"], a["enabled"], a["generated"], a["distinct"]) for a in self.actions]
        lines += _table(("action", "enabled", "generated", "distinct"), rows)
        lines.append(f"  initial states: {self.initial_states:,}")
        if self.instances is not None:
            lines.append("")
            lines += _table(("action instance", "enabled", "generated", "distinct"),
                            [(i["name"], i["enabled"], i["generated"], i["distinct"]) for i in self.instances])
        lines.append("")
        live = len(self.branches) - len(self.dead_branches)
        lines.append(f"guard branches: {len(self.branches)}, of which {live} held at least once")
        for b in self.dead_branches:
            lines.append(f"  DEAD  {b['action']}: {_clip(b['condition'])}: {b['why']}")
        lines.append("")
        lines.append("the spec's variables (r: any replica, i: any index; taken together over them)")
        lines += _table(("variable", "may hold", "held", "note"),
                        [(v["variable"], v["declared"], v["reached"], "; ".join(v["flags"])) for v in self.variables],
                        numbers_right=False)
        return "\n".join(lines)


def _why_dead(possible: bool, enabled: int) -> str:
    if not possible:
        return "can never hold: false for every parameter value, so no action instance has this branch"
    if enabled == 0:
        return "no action instance with this branch was ever enabled"
    return f"never held in the {enabled:,} states where an action instance with this branch was enabled"


def field_ranges(schema, lo: np.ndarray, hi: np.ndarray) -> list[dict[str, Any]]:
    """Per field, the values reached (over all its slots) against its declared
    range, with the bounds never reached flagged."""
    out = []
    start = 0
    for f in schema.fields:
        end = start + f.size
        seen_lo, seen_hi = lo[start:end].min(), hi[start:end].max()
        reached = None if seen_lo > seen_hi else [int(seen_lo), int(seen_hi)]
        flags = []
        if reached is None:
            flags.append("never seen")
        elif f.kind != "set":  # a set's bitmask range says little about which sets occur
            if reached[1] < f.hi:
                flags.append(f"upper bound {f.hi} never reached")
            if reached[0] > f.lo:
                flags.append(f"lower bound {f.lo} never reached")
        out.append({"field": f.name, "declared": [f.lo, f.hi], "reached": reached, "flags": flags})
        start = end
    return out


# --- the values reached, as the spec's TLA+ variables ------------------------------
# The spec's codec says how its slots read as TLA+ variables (what the viewer
# and traces show); each kind of codec says its values in those terms here.
# A function's values are taken together, over all its arguments.


def variable_ranges(codec, held: dict[int, set[int]], highest: np.ndarray) -> list[dict[str, Any]]:
    """Per TLA+ variable (and record field, and function over any argument):
    the values it may hold, those it held, and a note on those it never did.
    ``held``: the values each slot with a small range held; ``highest``: each
    slot's highest value. A spec's own kind of codec says its values with
    ``coverage(highest) -> (may hold, held, notes)``."""
    rows: dict[str, dict[str, Any]] = {}
    for name, c in codec.variables.items():
        _walk(c, name, False, rows)
    out = []
    for path, row in rows.items():
        leaf = row["codec"]
        values: set[int] = set()
        for k in row["slots"]:
            values |= held.get(k, set())
        declared = _declared(leaf, row["nil"])
        if hasattr(leaf, "coverage"):
            declared, shown, flags = leaf.coverage(highest)
            out.append({"variable": path, "declared": declared, "reached": shown, "flags": flags})
        elif any(k not in held for k in row["slots"]):
            out.append({"variable": path, "declared": declared, "reached": "(not tracked)", "flags": []})
        elif isinstance(leaf, codecs.KeyedSet):
            out.append({"variable": path, "declared": declared, **_keyed_set(leaf, held)})
        elif not values:
            out.append({"variable": path, "declared": declared, "reached": "-", "flags": ["never seen"]})
        else:
            shown, flags = _reached(leaf, row["nil"], values)
            out.append({"variable": path, "declared": declared, "reached": shown, "flags": flags})
    return out


def _walk(c, path: str, nil: bool, rows: dict) -> None:
    if isinstance(c, codecs.Rec):
        for name, inner in c.fields.items():
            _walk(inner, f"{path}.{name}", nil, rows)
    elif isinstance(c, codecs.Fn):
        argument = "r" if c.keys and all(isinstance(k, str) for k in c.keys) else "i"
        for inner in c.values:
            _walk(inner, f"{path}[{argument}]", nil, rows)
    elif isinstance(c, codecs.NilOr):
        _walk(c.inner, path, True, rows)
    elif not isinstance(c, codecs.Const):  # a number, a replica, a set of them, or a spec's own kind
        row = rows.setdefault(path, {"codec": c, "slots": [], "nil": nil})
        row["slots"].extend(c.presence() if isinstance(c, codecs.KeyedSet) else c.slots())


def _numbers(values) -> str:
    """0..2, 4 for {0, 1, 2, 4}."""
    runs: list[list[int]] = []
    for v in sorted(values):
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ", ".join(str(a) if a == b else f"{a}, {b}" if b == a + 1 else f"{a}..{b}" for a, b in runs)


def _declared(c, nil: bool) -> str:
    if isinstance(c, codecs.IntSlot):
        low = max(c.lo, 0) if nil else c.lo
        return ("Nil or " if nil else "") + _numbers(range(low, c.hi + 1))
    if isinstance(c, codecs.BoolSlot):
        return "FALSE, TRUE"
    if isinstance(c, codecs.ReplicaSlot):
        return ", ".join(([c.none] if c.none else []) + list(c.names))
    if isinstance(c, codecs.ReplicaSetSlot):
        return "any set of " + ", ".join(c.names)
    if isinstance(c, codecs.KeyedSet):
        return f"one per {c.key} {_numbers(c.entries)}"
    return "(the spec's own encoding)"


def _reached(c, nil: bool, values: set[int]) -> tuple[str, list[str]]:
    """The values held, in the variable's own terms, and those never held."""
    if isinstance(c, codecs.IntSlot):
        numbers = sorted(v for v in values if not (nil and v == codecs.NIL))
        shown = ", ".join((["Nil"] if nil and codecs.NIL in values else []) + ([_numbers(numbers)] if numbers else []))
        possible = range(max(c.lo, 0) if nil else c.lo, c.hi + 1)
        never = [v for v in possible if v not in values]
        flags = ([f"never {_numbers(never)}"] if never else []) + (["never Nil"] if nil and codecs.NIL not in values
                                                                   else [])
        return shown, flags
    if isinstance(c, codecs.BoolSlot):
        words = {0: "FALSE", 1: "TRUE"}
        return ", ".join(words[v] for v in sorted(values)), [f"never {words[v]}" for v in (0, 1) if v not in values]
    if isinstance(c, codecs.ReplicaSlot):
        possible = ([-1] if c.none else []) + list(range(len(c.names)))
        return (", ".join(_replica(c, v) for v in sorted(values)),
                ["never " + ", ".join(_replica(c, v) for v in possible if v not in values)]
                if any(v not in values for v in possible) else [])
    if isinstance(c, codecs.ReplicaSetSlot):
        union = 0
        for v in values:
            union |= v
        ever = [n for i, n in enumerate(c.names) if union >> i & 1]
        count = 1 << len(c.names)
        shown = f"{len(values)} of the {count} sets" + (f", members {', '.join(ever)}" if ever else "")
        flags = [f"never has {n}" for i, n in enumerate(c.names) if not union >> i & 1]
        if 0 not in values:
            flags.append("never empty")
        if count - 1 not in values:
            flags.append("never every replica")
        return shown, flags
    return f"{_numbers(values)} (as encoded)", []


def _replica(c, v: int) -> str:
    return c.none if v == -1 else c.names[v]


def _keyed_set(c, held: dict[int, set[int]]) -> dict[str, Any]:
    """A set of records with a unique key (the LeaderAndIsr requests, one per
    leader epoch): the keys of the records it ever held. Its records' other
    fields are not shown: an absent record's slots hold blanks."""
    ever = [k for k, (present, _) in sorted(c.entries.items()) if 1 in held[present]]
    never = [k for k in sorted(c.entries) if k not in ever]
    return {"reached": f"{c.key} {_numbers(ever)}" if ever else "always empty",
            "flags": [f"never one with {c.key} {_numbers(never)}"] if never and ever else []}


def _clip(text: str, width: int = 90) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _table(header: tuple, rows: list[tuple], numbers_right: bool = True) -> list[str]:
    cells = [tuple(f"{v:,}" if isinstance(v, int) else str(v) for v in r) for r in [header, *rows]]
    widths = [max(len(r[k]) for r in cells) for k in range(len(header))]

    def right(v: str) -> bool:
        return numbers_right and (v[:1].isdigit() or v[:2].lstrip("-")[:1].isdigit())
    return ["  " + "  ".join(v.rjust(w) if right(v) else v.ljust(w) for v, w in zip(r, widths)).rstrip()
            for r in cells]
