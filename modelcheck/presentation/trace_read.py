"""Reading traces back: ITF (ours and other tools') and TLC's ``-dumpTrace json``.

This is the reading half of modelcheck/model/trace.py. Reading happens in two steps:

1. ``read_trace_file`` parses a file into a ``TraceDocument``: the states as
   JSON values per variable, what the file says about each step's action,
   and whatever it says about the spec, module, constants and invariant.
   Nothing here knows a spec yet.
2. ``bind`` picks the constants (``--const`` first, then the file's own),
   instantiates the spec and decodes every state through the spec's codec,
   so each becomes the same flat tuple the engines use.

Accepted shapes:

* ITF: ``{"vars": [...], "states": [{"#meta": {...}, var: value, ...}]}``,
  with ``params`` naming constants whose values sit in the states. modelcheck
  writes the action and parameters in each state's ``#meta``.
* TLC's ``-dumpTrace json``: ``{"vars": ..., "counterexample": {"state":
  [[n, {...}], ...], "action": [[[i, {...}], {"name": ...}, [j, {...}]], ...]}}``;
  also the bare ``{"state": ..., "action": ...}`` record, and a plain array of
  states (what ``ToTrace(CounterExample)`` writes). TLC serialises sets, so
  states and actions may come in any order: states are put in order by their
  number. Unknown keys and action entries of other shapes are ignored.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from modelcheck.language.codec import json_int
from modelcheck.language.constants import constant_from_json, convert, format_value
from modelcheck.errors import InputError, TraceFormatError
from modelcheck.runtime.reading import TRACE_CAP, read_text


@dataclass(frozen=True)
class ClaimedStep:
    """The action a trace file says produced a state (unchecked)."""

    action: str
    params: tuple[tuple[str, Any], ...] = ()

    def label(self) -> str:
        if not self.params:
            return self.action
        return f"{self.action}({', '.join(f'{k}={_plain(v)}' for k, v in self.params)})"


@dataclass
class TraceDocument:
    path: str
    format: str  # "itf" or "tlc"
    states: list[dict[str, Any]]
    claimed: list[ClaimedStep | None]  # per state; None where the file says nothing (and for Init)
    spec: str | None = None
    module: str | None = None
    constants: dict[str, Any] = field(default_factory=dict)  # JSON values, by constant name
    invariant: str | None = None
    notes: list[str] = field(default_factory=list)
    raw: Any = None  # the parsed JSON as it was in the file
    # Set for a counterexample to induction (`modelcheck prove`): the
    # invariants its first state satisfies in place of Init.
    hypothesis: tuple[str, ...] | None = None
    # A lasso: the index of the state its cycle returns to (ITF's "loop"),
    # whether it closes by stuttering, the property and specification the
    # file says it violates, and the action it names for the step back.
    loop: int | None = None
    stutters: bool = False
    property: str | None = None
    specification: str | None = None
    loop_action: str | None = None
    # where the spec came from, as modelcheck records it for a spec file
    # ({"file": path, "sha256": ...}), so that show and replay find it again
    spec_source: dict | None = None


@dataclass
class BoundTrace:
    """A trace decoded against one model: the states as the engines see them."""

    document: TraceDocument
    model: Any
    states: list[tuple]
    warnings: list[str] = field(default_factory=list)

    @property
    def claimed(self) -> list[ClaimedStep | None]:
        return self.document.claimed


# --- step 1: the file ----------------------------------------------------------------

def read_trace_file(path: str) -> TraceDocument:
    """A trace, from a regular file of at most ``reading.TRACE_CAP`` bytes."""
    try:
        text = read_text(path, "trace file", TRACE_CAP)
    except FileNotFoundError:
        raise InputError(f"trace file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read trace file {path}: {getattr(e, 'strerror', None) or e}") from None
    if not text.strip():
        raise TraceFormatError(f"{path} is empty, not a trace")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise TraceFormatError(f"{path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except ValueError:  # an integer literal longer than Python converts
        raise TraceFormatError(f"{path} holds a number too long to be a value of any trace") from None
    except RecursionError:
        raise TraceFormatError(f"{path} is nested too deeply to be a trace") from None
    try:
        return parse_trace(data, path)
    except RecursionError:
        raise TraceFormatError(f"{path} is nested too deeply to be a trace") from None


def parse_trace(data: Any, path: str = "<trace>") -> TraceDocument:
    """Recognise the format of already-parsed JSON and read it."""
    if isinstance(data, dict) and isinstance(data.get("states"), list):
        doc = _read_itf(data, path)
    elif isinstance(data, dict) and isinstance(data.get("counterexample"), dict):
        doc = _read_tlc(data["counterexample"], path)
    elif isinstance(data, dict) and "state" in data:
        doc = _read_tlc(data, path)
    elif isinstance(data, list) and all(isinstance(s, dict) for s in data):
        doc = TraceDocument(path, "tlc", [dict(s) for s in data], [None] * len(data))
    else:
        raise TraceFormatError(f"{path} is neither an ITF trace nor TLC -dumpTrace json output "
                               f"(expected a 'states' list or a 'counterexample' with a 'state' list)")
    if not doc.states:
        raise TraceFormatError(f"{path} holds no states")
    doc.raw = data
    return doc


def _read_itf(data: dict, path: str) -> TraceDocument:
    meta = data.get("#meta") if isinstance(data.get("#meta"), dict) else {}
    ours = meta.get("modelcheck") if isinstance(meta.get("modelcheck"), dict) else {}
    states, claimed = [], []
    for i, raw in enumerate(data["states"]):
        if not isinstance(raw, dict):
            raise TraceFormatError(f"{path}: state {i + 1} is not a JSON object")
        states.append({k: v for k, v in raw.items() if k != "#meta"})
        claimed.append(_itf_step(raw.get("#meta")) if i > 0 else None)
    module = ours.get("module")
    source = meta.get("source")
    if not module and isinstance(source, str) and source.endswith(".tla"):
        module = os.path.basename(source)[:-4]
    constants = dict(ours.get("constants") or {})
    params = data.get("params") if isinstance(data.get("params"), list) else []
    for name in params:
        if isinstance(name, str) and name not in constants and states and name in states[0]:
            constants[name] = states[0][name]
    doc = TraceDocument(path, "itf", states, claimed, ours.get("spec"), module, constants, ours.get("invariant"))
    if isinstance(ours.get("spec_source"), dict):
        doc.spec_source = ours["spec_source"]
    loop = data.get("loop")
    if loop is not None:
        if isinstance(loop, bool) or not isinstance(loop, int) or not 0 <= loop < len(states):
            raise TraceFormatError(f"{path}: 'loop' must be the index of one of its {len(states)} states")
        doc.loop = loop
        doc.stutters = ours.get("stutters") is True
        doc.property = ours.get("property") if isinstance(ours.get("property"), str) else None
        doc.specification = ours.get("specification") if isinstance(ours.get("specification"), str) else None
        doc.loop_action = ours.get("loop_action") if isinstance(ours.get("loop_action"), str) else None
    first = data["states"][0].get("#meta") if data["states"] else None
    if isinstance(first, dict) and first.get("action") == "Hypothesis":
        named = ours.get("hypothesis")
        if isinstance(named, list) and named and all(isinstance(n, str) for n in named):
            doc.hypothesis = tuple(named)
        else:
            doc.hypothesis = (doc.invariant,) if isinstance(doc.invariant, str) else ()
    return doc


def _itf_step(meta: Any) -> ClaimedStep | None:
    if not isinstance(meta, dict) or not isinstance(meta.get("action"), str):
        return None
    params = meta.get("parameters")
    items = tuple(params.items()) if isinstance(params, dict) else ()
    return ClaimedStep(meta["action"], items)


def _read_tlc(record: dict, path: str) -> TraceDocument:
    entries = record.get("state")
    if not isinstance(entries, list):
        raise TraceFormatError(f"{path}: the counterexample's 'state' must be a list of [number, state] pairs")
    numbered: dict[int, dict] = {}
    for k, entry in enumerate(entries):
        if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], dict):
            number = json_int(entry[0], f"{path}: state entry {k + 1}")
        elif isinstance(entry, dict):
            number = k + 1
            entry = [number, entry]
        else:
            raise TraceFormatError(f"{path}: state entry {k + 1} is not a [number, state] pair")
        if number in numbered:
            raise TraceFormatError(f"{path}: two states are numbered {number}")
        numbered[number] = entry[1]
    order = sorted(numbered)
    states = [dict(numbered[n]) for n in order]
    doc = TraceDocument(path, "tlc", states, [None] * len(states))
    _read_tlc_actions(record.get("action"), order, doc)
    return doc


def _read_tlc_actions(actions: Any, order: list[int], doc: TraceDocument) -> None:
    """Attach TLC's action names to the states they lead to. TLC writes each
    step as an edge [[i, s_i], action, [j, s_j]]; an edge from the last state
    back to an earlier one (or to itself, where the behaviour stutters) makes
    the trace a lasso."""
    if not isinstance(actions, list):
        return
    position = {n: p for p, n in enumerate(order)}
    edges = [a for a in actions if isinstance(a, list) and len(a) == 3
             and all(isinstance(end, list) and len(end) == 2 for end in (a[0], a[2]))]
    if edges and len(edges) == len(actions):
        for source, act, target in edges:
            try:
                i, j = json_int(source[0], "action"), json_int(target[0], "action")
            except TraceFormatError:
                continue
            if j in position and i in position and position[j] == position[i] + 1:
                doc.claimed[position[j]] = _tlc_step(act)
            elif j in position and i in position and position[i] == len(order) - 1 and position[j] <= position[i]:
                # a lasso: TLC closes it with an edge from the last state back
                # to an earlier one, or to itself where the behaviour stutters
                doc.loop = position[j]
                doc.stutters = i == j
            elif j in position and i in position:
                doc.notes.append(f"the trace has a step from state {i} back to state {j} that is not its last; "
                                 f"only the states are replayed")
        return
    # Some tools write the actions as a plain list alongside the states.
    if len(actions) == len(order) - 1:
        for p, act in enumerate(actions, start=1):
            doc.claimed[p] = _tlc_step(act)
    elif len(actions) == len(order):
        for p, act in enumerate(actions[1:], start=1):
            doc.claimed[p] = _tlc_step(act)


def _tlc_step(act: Any) -> ClaimedStep | None:
    if isinstance(act, str) and act:
        return ClaimedStep(act)
    if isinstance(act, dict) and isinstance(act.get("name"), str):
        params = act.get("parameter") or act.get("parameters")
        return ClaimedStep(act["name"], tuple(params.items()) if isinstance(params, dict) else ())
    return None


def _plain(v: Any) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, dict) and set(v) == {"#bigint"}:
        return str(v["#bigint"])
    if isinstance(v, (list, dict)):
        return json.dumps(v, separators=(",", ":"))
    return str(v)


# --- step 2: a spec and its constants ----------------------------------------------------

def check_spec(doc: TraceDocument, spec) -> None:
    """A trace that names another spec (or another TLA+ module) is refused."""
    if doc.spec and doc.spec != spec.name:
        raise InputError(f"{doc.path} is a trace of {doc.spec}, not {spec.name}")
    if doc.module and doc.module != spec.module:
        from modelcheck.specs import all_specs
        if doc.module in {s.module for s in all_specs().values()}:
            raise InputError(f"{doc.path} is a trace of module {doc.module}, not {spec.module} ({spec.name})")


def file_constants(doc: TraceDocument, spec) -> tuple[dict[str, Any], list[str]]:
    """The constants the file gives, as parsed values, and warnings about
    those the spec does not declare."""
    decls = {d.name: d for d in spec.constants}
    values, warnings = {}, []
    for name, raw in doc.constants.items():
        decl = decls.get(name)
        if decl is None:
            warnings.append(f"{doc.path} sets constant {name}, which {spec.name} does not have; ignored")
            continue
        values[name] = _constant_value(decl, raw, f"{doc.path}: constant {name}")
    return values, warnings


def _constant_value(decl, raw: Any, where: str) -> Any:
    """A constant as the file writes it (plain JSON or ITF), checked against
    its kind as --const is."""
    try:
        return convert(decl, constant_from_json(decl, raw, where), path=where)
    except InputError as e:
        raise TraceFormatError(str(e)) from None


def bind(doc: TraceDocument, spec, given: dict[str, str] | None = None, model=None) -> BoundTrace:
    """Instantiate ``spec`` with the trace's constants (``given`` wins) and
    decode every state; ``model``, if it is ``spec`` with those constants,
    is used instead of building it again."""
    check_spec(doc, spec)
    given = dict(given or {})
    from_file, warnings = file_constants(doc, spec)
    parsed = {k: v for k, v in from_file.items() if k not in given}
    constants = spec.resolve_constants(given, parsed)
    if model is None or model.spec.name != spec.name or model.constants != constants:
        model = spec.instantiate(constants)
    states = []
    for i, values in enumerate(doc.states):
        try:
            states.append(model.codec.decode(values, where=f"state {i + 1}"))
        except TraceFormatError as e:
            hint = "" if (doc.constants or given) else \
                " (the file names no constants; pass --const to match the trace)"
            used = " ".join(f"{d.name}={format_value(d.kind, constants[d.name])}" for d in spec.constants)
            raise TraceFormatError(f"{doc.path}: {e} [constants: {used}]{hint}") from None
    return BoundTrace(doc, model, states, warnings)
