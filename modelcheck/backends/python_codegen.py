"""Compile a model's expression trees into plain Python functions.

The generated ``successors(s)`` unpacks the state tuple into locals once and
then tests every action instance's guard inline, so expanding a state costs
one Python call rather than one per instance. After a guard holds, the
subexpressions its assignments share are computed once into temporaries.

The source is kept on the result (``CompiledModel.source``) for debugging.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable

from modelcheck.language.expr import Expr, slots_read

_INFIX = {"add": "+", "sub": "-", "eq": "==", "ne": "!=", "lt": "<", "le": "<=",
          "band": "&", "bor": "|", "bxor": "^"}


def to_python(e: Expr, temps: dict[int, str] | None = None) -> str:
    """Python source for one expression over locals ``v0, v1, ...``."""
    temps = temps or {}

    def go(x: Expr) -> str:
        name = temps.get(id(x))
        if name is not None:
            return name
        op = x.op
        if op == "const":
            return repr(x.args[0])
        if op == "var":
            return f"v{x.args[0]}"
        if op in _INFIX:
            return f"({go(x.args[0])} {_INFIX[op]} {go(x.args[1])})"
        if op == "and":
            return "(" + " and ".join(go(a) for a in x.args) + ")"
        if op == "or":
            return "(" + " or ".join(go(a) for a in x.args) + ")"
        if op == "not":
            return f"(not {go(x.args[0])})"
        if op == "ite":
            c, a, b = x.args
            return f"({go(a)} if {go(c)} else {go(b)})"
        raise ValueError(f"unknown operator {op}")

    return go(e)


def shared_temps(exprs: list[Expr]) -> list[Expr]:
    """Compound nodes used more than once across ``exprs``, children first.

    One walk over the whole DAG (the roots share most of their nodes, so
    walking each root separately would visit the shared part once per root)."""
    uses: Counter[int] = Counter()
    order: list[Expr] = []  # every distinct node, children before parents
    seen: set[int] = set()
    stack: list[tuple[Expr, bool]] = [(root, False) for root in reversed(exprs)]
    while stack:
        e, expanded = stack.pop()
        if expanded:
            order.append(e)
            continue
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e.op in ("const", "var"):
            continue
        stack.append((e, True))
        for child in reversed(e.args):
            uses[id(child)] += 1
            if id(child) not in seen:
                stack.append((child, False))
    for root in exprs:
        uses[id(root)] += 1
    return [node for node in order if uses[id(node)] > 1]


@dataclass
class CompiledModel:
    successors: Callable[[tuple], list]
    predicates: dict[str, Callable[[tuple], bool]]
    source: str

    def first_violation(self, names: list[str]) -> Callable[[tuple], str | None]:
        checks = [(n, self.predicates[n]) for n in names]

        def check(state: tuple) -> str | None:
            for name, pred in checks:
                if not pred(state):
                    return name
            return None
        return check


def _unpack(width: int) -> str:
    if width == 1:
        return "v0, = s"
    return ", ".join(f"v{i}" for i in range(width)) + " = s"


def _successors_source(instances, width: int, name: str) -> list[str]:
    """The function testing every guard; an enabled instance's next state
    comes from its update function ``_U[k]`` (see ``_lazy_updates``)."""
    lines = [f"def {name}(s):", f"    {_unpack(width)}", "    out = []", "    add = out.append", "    U = _U"]
    for k, inst in enumerate(instances):
        lines.append(f"    # {inst.label()}")
        lines.append(f"    if {to_python(inst.guard)}:")
        lines.append(f"        add(({k}, U[{k}](s)))")
    lines.append("    return out")
    return lines


def _update_source(inst, width: int, name: str) -> list[str]:
    """``name(s)``: the next state of one action instance, from the slots it reads."""
    updates = inst.updates
    read = sorted(slots_read(*updates.values()))  # one walk: the updates share most of their subtrees
    lines = [f"def {name}(s):"]
    lines.extend(f"    v{i} = s[{i}]" for i in read)
    shared = shared_temps(list(updates.values()))
    temps: dict[int, str] = {}
    for j, node in enumerate(shared):
        src = to_python(node, temps)
        temps[id(node)] = f"t{j}"
        lines.append(f"    t{j} = {src}")
    if 3 * len(updates) < width:  # a few slots change: copy the state and set them
        lines.append("    n = list(s)")
        for i in sorted(updates):
            lines.append(f"    n[{i}] = {to_python(updates[i], temps)}")
        lines.append("    return tuple(n)")
        return lines
    cells = [to_python(updates[i], temps) if i in updates else f"s[{i}]" for i in range(width)]
    tail = "," if width == 1 else ""
    lines.append(f"    return ({', '.join(cells)}{tail})")
    return lines


def _lazy_updates(instances, width: int, label: str) -> list:
    """Each instance's update function, compiled the first time the instance
    is enabled (a search may never enable most of them, and compiling is the
    slow part of starting one)."""
    table: list = [None] * len(instances)

    def stub(k):
        def first_call(s):
            source = "\n".join(_update_source(instances[k], width, "update")) + "\n"
            namespace: dict = {}
            exec(compile(source, f"<modelcheck {label}: {instances[k].label()}>", "exec"), namespace)
            table[k] = namespace["update"]
            return table[k](s)
        return first_call
    for k in range(len(instances)):
        table[k] = stub(k)
    return table


def compile_successors(instances, width: int, label: str = "actions") -> Callable[[tuple], list]:
    """``successors(s)`` for any list of action instances: (position in the
    list, next state) for each one enabled in ``s``."""
    source = "\n".join(_successors_source(instances, width, "successors")) + "\n"
    namespace: dict = {"_U": _lazy_updates(instances, width, label)}
    exec(compile(source, f"<modelcheck {label}>", "exec"), namespace)
    return namespace["successors"]


def compile_conditions(exprs: dict[str, Expr], width: int) -> dict[str, Callable[[tuple], bool]]:
    """One function per named condition over a tuple of ``width`` slots (a
    state, or a state followed by its successor for step predicates)."""
    lines = []
    names = list(exprs)
    for k, name in enumerate(names):
        lines.append(f"def condition_{k}(s):")
        lines.append(f"    {_unpack(width)}")
        lines.append(f"    return bool({to_python(exprs[name])})")
    namespace: dict = {}
    exec(compile("\n".join(lines) + "\n", "<modelcheck conditions>", "exec"), namespace)
    return {name: namespace[f"condition_{k}"] for k, name in enumerate(names)}


def compile_model(model) -> CompiledModel:
    width = model.schema.width
    # instance positions in model.instances are their indices
    lines = _successors_source(model.instances, width, "successors")

    predicate_names = list(model.invariants) + [n for n in model.sometimes if n not in model.invariants]
    exprs = {**model.invariants, **model.sometimes}
    for k, name in enumerate(predicate_names):
        lines.append(f"def predicate_{k}(s):")
        lines.append(f"    {_unpack(width)}")
        lines.append(f"    return {to_python(exprs[name])}")

    source = "\n".join(lines) + "\n"
    namespace: dict = {"_U": _lazy_updates(model.instances, width, model.spec.name)}
    exec(compile(source, f"<modelcheck {model.spec.name}>", "exec"), namespace)
    predicates = {name: namespace[f"predicate_{k}"] for k, name in enumerate(predicate_names)}
    return CompiledModel(namespace["successors"], predicates, source)
