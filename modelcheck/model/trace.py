"""Counterexample traces: built from a violation, written as ITF, shown as text.

A ``Trace`` holds TLA+ values (through the spec's codec), so it reads the same
whichever engine found it. ITF files carry the spec, the constants and each
step's action with its parameters in ``#meta``, so ``modelcheck`` can replay
them and other ITF tools (itf-py, Quint, Apalache's viewers) can read them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from modelcheck import __version__
from modelcheck.runtime.atomic import write_atomically, write_first_free
from modelcheck.errors import InputError
from modelcheck.language.values import Function, Record, show, to_itf, to_plain_json

ITF_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"


@dataclass(frozen=True)
class Step:
    """The action that produced a state, with its parameters as TLA+ values."""

    action: str
    params: tuple[tuple[str, Any], ...] = ()

    def label(self) -> str:
        if not self.params:
            return self.action
        return f"{self.action}({', '.join(f'{k}={show(v)}' for k, v in self.params)})"


@dataclass
class Trace:
    spec: str
    module: str
    constants: dict[str, Any]
    variables: list[str]
    states: list[dict[str, Any]]
    steps: list[Step | None]
    invariant: str | None = None
    engine: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    # What the first state is: "Init" for a behaviour. A counterexample to
    # induction starts from any state satisfying the hypothesis instead.
    origin: str = "Init"
    # For a lasso (a violated temporal property): states[loop:] repeat forever,
    # the last state stepping back to states[loop], or stuttering when
    # meta["stutters"] is true.
    loop: int | None = None
    # The constants as TLA+ values (sets as sets, sequences as tuples), for
    # ITF's params; None: read them off ``constants``.
    constant_values: dict[str, Any] | None = None

    def __len__(self) -> int:
        return len(self.states)


def trace_from_states(model, states: list[tuple], actions: list[int | None], invariant: str | None = None,
                      engine: str | None = None) -> Trace:
    steps: list[Step | None] = []
    for index in actions:
        if index is None:
            steps.append(None)
        else:
            inst = model.instances[index]
            steps.append(Step(inst.action, inst.shown_params))
    meta = {}
    source = getattr(model.spec, "loaded_from", None)
    if source is not None and source.kind == "file":  # so that show and replay find the spec again
        meta["spec_source"] = source.to_json()
    return Trace(model.spec.name, model.spec.module, model.json_constants(), model.codec.names,
                 [model.codec.encode(s) for s in states], steps, invariant, engine, meta=meta,
                 constant_values=model.tla_constants())


# --- ITF ------------------------------------------------------------------------

def to_itf_json(trace: Trace) -> dict[str, Any]:
    meta = {
        "format": "ITF",
        "format-description": ITF_DESCRIPTION,
        "source": f"{trace.module}.tla",
        "description": f"modelcheck {__version__}: {trace.spec}"
                       + (f", {trace.invariant} violated" if trace.invariant else ""),
        "modelcheck": {"spec": trace.spec, "module": trace.module, "constants": trace.constants,
                       "invariant": trace.invariant, "engine": trace.engine, **trace.meta},
    }
    params = list(trace.constants)
    if trace.constant_values is not None:
        constant_values = {k: to_itf(v) for k, v in trace.constant_values.items()}
    else:
        constant_values = {k: _constant_itf(v) for k, v in trace.constants.items()}
    states = []
    for i, (values, step) in enumerate(zip(trace.states, trace.steps)):
        state_meta: dict[str, Any] = {"index": i}
        if step is None:
            state_meta["action"] = trace.origin
        else:
            state_meta["action"] = step.action
            state_meta["parameters"] = {k: to_plain_json(v) for k, v in step.params}
        state = {"#meta": state_meta}
        state.update(constant_values)
        state.update({name: to_itf(values[name]) for name in trace.variables})
        states.append(state)
    out = {"#meta": meta, "params": params, "vars": list(trace.variables), "states": states}
    if trace.loop is not None:
        out["loop"] = trace.loop
    return out


def _constant_itf(value: Any) -> Any:
    # replica sets are sets of model values (strings) in TLA+
    if isinstance(value, list):
        return {"#set": list(value)}
    return to_itf(value)


def write_trace(trace: Trace, path: str | None = None, overwrite: bool = False,
                default_dir: str = "modelcheck-out", stem: str | None = None) -> str:
    """Write the trace as ITF and return the path used.

    Without ``path`` it goes into ``default_dir`` under a name derived from the
    spec and invariant, with a numeric suffix so an existing file is never
    replaced. A directory ``path`` is treated the same way.
    """
    text = json.dumps(to_itf_json(trace), indent=1) + "\n"
    if path is not None and not os.path.isdir(path):
        try:
            write_atomically(path, lambda f: f.write(text), replace=overwrite)
        except FileExistsError:
            raise InputError(f"--trace-out {path} already exists (pass --overwrite to replace it)") from None
        except OSError as e:
            raise InputError(f"cannot write trace {path}: {e.strerror or e}") from None
        return path
    directory = path or default_dir
    made = _make_dirs(directory)
    stem = stem or f"{trace.spec}-{trace.invariant or 'trace'}"
    names = (os.path.join(directory, f"{stem}.itf.json" if k == 1 else f"{stem}-{k}.itf.json")
             for k in range(1, 100000))
    try:
        return write_first_free(names, lambda f: f.write(text))
    except BaseException as e:
        for created in reversed(made):  # a failed write leaves no empty directory behind either
            try:
                os.rmdir(created)
            except OSError:
                break
        if isinstance(e, FileExistsError):
            raise InputError(f"cannot find a free trace file name in {directory}") from None
        if isinstance(e, OSError):
            raise InputError(f"cannot write trace into {directory}: {e.strerror or e}") from None
        raise


def _make_dirs(directory: str) -> list[str]:
    """Create ``directory`` and its missing parents; returns those created, outermost first."""
    missing = []
    here = os.path.abspath(directory)
    while not os.path.isdir(here) and os.path.dirname(here) != here:
        missing.append(here)
        here = os.path.dirname(here)
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create trace directory {directory}: {e.strerror or e}") from None
    return missing[::-1]


# --- text ------------------------------------------------------------------------

def describe_changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """One line per changed value, descending into records and functions
    while both sides have the same shape; sets of records list what was
    added and removed."""
    lines: list[str] = []
    for var in after:
        _diff(var, before.get(var), after[var], lines)
    return lines


def _diff(path: str, old: Any, new: Any, lines: list[str]) -> None:
    if old == new:
        return
    if isinstance(old, Record) and isinstance(new, Record) and list(old) == list(new):
        for k in new:
            _diff(f"{path}.{k}", old[k], new[k], lines)
    elif isinstance(old, Function) and isinstance(new, Function) and list(old) == list(new):
        for k in new:
            _diff(f"{path}[{show(k)}]", old[k], new[k], lines)
    elif isinstance(old, frozenset) and isinstance(new, frozenset) and _is_record_set(old | new):
        for gone in sorted(old - new, key=show):
            lines.append(f"{path}: - {show(gone)}")
        for added in sorted(new - old, key=show):
            lines.append(f"{path}: + {show(added)}")
    else:
        lines.append(f"{path}: {show(old)} -> {show(new)}")


def _is_record_set(values: frozenset) -> bool:
    return any(not isinstance(v, (str, int, bool)) for v in values)


def state_lines(values: dict[str, Any]) -> list[str]:
    """A whole state, one line per variable (per replica for functions)."""
    lines = []
    for var, value in values.items():
        if isinstance(value, Function):
            lines.extend(f"{var}[{show(k)}] = {show(v)}" for k, v in value.items())
        else:
            lines.append(f"{var} = {show(value)}")
    return lines


def render_text(trace: Trace) -> str:
    """The trace as text: the initial state in full, then for each step its
    action with parameters and only what changed."""
    out = []
    for i, (values, step) in enumerate(zip(trace.states, trace.steps)):
        if step is None:
            out.append(f"State {i + 1}: {trace.origin}")
            out.extend(f"  {line}" for line in state_lines(values))
        else:
            out.append(f"State {i + 1}: {step.label()}")
            changes = describe_changes(trace.states[i - 1], values)
            out.extend(f"  {line}" for line in changes) if changes else out.append("  (no change)")
    if trace.loop is not None:
        out.append(loop_line(trace))
    return "\n".join(out)


def loop_line(trace: Trace) -> str:
    """How a lasso closes: "back to state 9" or "stutters forever from state 4"."""
    phrase = loop_phrase(len(trace.states), trace.loop, bool(trace.meta.get("stutters")),
                         trace.meta.get("loop_action"))
    return f"-> {phrase}"


def loop_phrase(length: int, loop: int, stutters: bool, closing: str | None = None) -> str:
    """How the lasso ends, with states numbered from 1, as a trace's last
    line says it: "back to state 9 via A(...)" or "stutters forever from state 4"."""
    if stutters:
        return f"stutters forever from state {length}"
    via = f" via {closing}" if closing else ""
    return f"back to state {loop + 1}{via}"


def loop_verb_phrase(length: int, loop: int, stutters: bool, closing: str | None = None) -> str:
    """The same, as what the behaviour does, for a sentence: "goes back to
    state 9 via A(...)" or "stutters forever from state 4"."""
    phrase = loop_phrase(length, loop, stutters, closing)
    return phrase if stutters else f"goes {phrase}"


def states_text(n: int) -> str:
    return f"{n} state" if n == 1 else f"{n} states"
