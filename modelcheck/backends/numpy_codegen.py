"""Compile a model's expression trees into numpy code over batches of states.

A batch is a (width, n) int64 array: one row per state slot, one column per
state. Three generated functions read it:

* ``enabled(C)`` evaluates every action instance's guard on the whole batch
  and returns, per instance, the indices of the states where it holds;
* ``updates[i](C, idx)`` computes instance ``i``'s assigned slots for just
  those states;
* ``predicates(C)`` evaluates invariants and reachability checks.

Action instances repeat a great deal of structure (``leader[r] = r`` appears
in dozens of guards), so before generating code the trees are hash-consed:
structurally equal subexpressions become one node, computed once per batch.
Each intermediate array is deleted right after its last use, which keeps the
memory of a batch to a few live columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from modelcheck.language.expr import Expr

_COMMUTATIVE = {"add", "eq", "ne", "and", "or", "band", "bor", "bxor"}
_INFIX = {"add": "+", "sub": "-", "eq": "==", "ne": "!=", "lt": "<", "le": "<=",
          "band": "&", "bor": "|", "bxor": "^", "and": "&", "or": "|"}


class _Dag:
    """Structurally unique nodes, numbered children-first."""

    def __init__(self):
        self.ids: dict[tuple, int] = {}
        self.nodes: list[tuple] = []  # (op, args) with args as node ids, slot or value
        self._by_object: dict[int, int] = {}

    def add(self, e: Expr) -> int:
        known = self._by_object.get(id(e))
        if known is not None:
            return known
        if e.op in ("const", "var"):
            key = (e.op, e.args[0], type(e.args[0]).__name__)
        else:
            children = [self.add(a) for a in e.args]
            if e.op in _COMMUTATIVE:
                children.sort()
            key = (e.op, tuple(children))
        node = self.ids.get(key)
        if node is None:
            node = len(self.nodes)
            self.ids[key] = node
            self.nodes.append((e.op, key[1] if e.op not in ("const", "var") else e.args[0]))
        self._by_object[id(e)] = node
        return node


def _emit(dag: _Dag, roots: list[int], column: Callable[[int], str], n_expr: str) -> tuple[list[str], dict[int, str]]:
    """Statements computing every node the roots need, in order, freeing
    intermediates after their last use. Returns the lines and each root's
    expression (a name, or a literal for constant roots)."""
    needed: list[int] = []
    seen: set[int] = set()
    # iterative post-order over the DAG
    order_stack: list[tuple[int, bool]] = [(r, False) for r in roots]
    while order_stack:
        node, done = order_stack.pop()
        if done:
            needed.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        op, args = dag.nodes[node]
        order_stack.append((node, True))
        if op not in ("const", "var"):
            for child in args:
                if child not in seen:
                    order_stack.append((child, False))

    def ref(node: int) -> str:
        op, arg = dag.nodes[node]
        if op == "const":
            return repr(arg)
        return f"t{node}"

    last_use: dict[int, int] = {}
    for position, node in enumerate(needed):
        op, args = dag.nodes[node]
        if op not in ("const", "var"):
            for child in args:
                last_use[child] = position
    root_set = set(roots)
    lines: list[str] = []
    for position, node in enumerate(needed):
        op, args = dag.nodes[node]
        if op == "const":
            continue
        if op == "var":
            lines.append(f"t{node} = {column(args)}")
        elif op == "not":
            lines.append(f"t{node} = ~{ref(args[0])}")
        elif op == "ite":
            c, a, b = args
            lines.append(f"t{node} = _where({ref(c)}, {ref(a)}, {ref(b)})")
        elif op in _INFIX:
            lines.append(f"t{node} = " + f" {_INFIX[op]} ".join(f"({ref(a)})" for a in args))
        else:
            raise ValueError(f"unknown operator {op}")
        frees = [child for child in (args if op not in ("const", "var") else ())
                 if last_use.get(child) == position and child not in root_set and dag.nodes[child][0] != "const"]
        if frees:
            lines.append("del " + ", ".join(f"t{c}" for c in sorted(set(frees))))
    results = {}
    for r in roots:
        op, arg = dag.nodes[r]
        results[r] = f"_full({n_expr}, {arg!r})" if op == "const" else f"t{r}"
    return lines, results


@dataclass
class NumpyKernel:
    enabled: Callable[[np.ndarray], list]
    updates: list[Callable[[np.ndarray, np.ndarray], list]]
    predicates: Callable[[np.ndarray], dict]
    source: str


_NAMESPACE = {"_where": np.where, "_nonzero": np.flatnonzero, "_full": lambda n, v: np.full(n, v)}


def _conditions_source(exprs: dict[str, Expr], name: str) -> list[str]:
    dag = _Dag()
    names = list(exprs)
    roots = [dag.add(exprs[n]) for n in names]
    body, results = _emit(dag, roots, lambda slot: f"C[{slot}]", "C.shape[1]")
    lines = [f"def {name}(C):"]
    lines.extend("    " + line for line in body)
    lines.append("    return {" + ", ".join(f"{n!r}: {results[r]}" for n, r in zip(names, roots)) + "}")
    return lines


def compile_conditions(exprs: dict[str, Expr]) -> Callable[[np.ndarray], dict]:
    """``conditions(C)``: each named condition on every column of a batch
    (states, or states stacked over their successors for step predicates)."""
    namespace = dict(_NAMESPACE)
    exec(compile("\n".join(_conditions_source(exprs, "conditions")) + "\n", "<modelcheck numpy conditions>",
                 "exec"), namespace)
    return namespace["conditions"]


def compile_numpy(model, predicate_names: list[str] | None = None, instances=None) -> NumpyKernel:
    """The kernel of a model's Next, or of another list of action instances
    (a fair action outside Next); ``updates`` follow the list's order."""
    instances = model.instances if instances is None else instances
    lines: list[str] = []

    # guards, shared across all instances
    dag = _Dag()
    roots = [dag.add(inst.guard) for inst in instances]
    body, results = _emit(dag, roots, lambda slot: f"C[{slot}]", "C.shape[1]")
    lines.append("def enabled(C):")
    lines.extend("    " + line for line in body)
    lines.append("    return [" + ", ".join(f"_nonzero({results[r]})" for r in roots) + "]")

    # invariants and reachability checks, shared
    exprs = {**model.invariants, **model.sometimes}
    names = predicate_names if predicate_names is not None else list(exprs)
    lines.extend(_conditions_source({n: exprs[n] for n in names}, "predicates"))

    source = "\n".join(lines) + "\n"
    namespace = dict(_NAMESPACE)
    exec(compile(source, f"<modelcheck numpy {model.spec.name}>", "exec"), namespace)
    return NumpyKernel(namespace["enabled"], _lazy_updates(instances, model.spec.name), namespace["predicates"],
                       source)


def _update_source(inst, name: str) -> str:
    """One instance's update function, on the selected states only."""
    local = _Dag()
    slots = sorted(inst.updates)
    uroots = [local.add(inst.updates[s]) for s in slots]
    body, results = _emit(local, uroots, lambda slot: f"C[{slot}][idx]", "idx.size")
    lines = [f"def {name}(C, idx):"] + ["    " + line for line in body]
    lines.append("    return [" + ", ".join(f"({s}, {results[r]})" for s, r in zip(slots, uroots)) + "]")
    return "\n".join(lines) + "\n"


def _lazy_updates(instances, label: str) -> list:
    """Each instance's update function, generated and compiled the first time
    the instance is enabled on some state (a search may never enable most of
    them, and compiling is the slow part of starting one)."""
    table: list = [None] * len(instances)

    def stub(k):
        def first_call(C, idx):
            namespace = dict(_NAMESPACE)
            exec(compile(_update_source(instances[k], "update"), f"<modelcheck numpy {label}: update {k}>", "exec"),
                 namespace)
            table[k] = namespace["update"]
            return table[k](C, idx)
        return first_call
    for k in range(len(instances)):
        table[k] = stub(k)
    return table


def compile_columns(exprs: list[Expr], name: str = "columns") -> Callable[[np.ndarray], list[np.ndarray]]:
    """One function evaluating ``exprs`` on a batch, as a list of arrays (a
    constant expression becomes a full column). Shared subexpressions are
    computed once, as in ``compile_numpy``."""
    dag = _Dag()
    roots = [dag.add(e) for e in exprs]
    body, results = _emit(dag, roots, lambda slot: f"C[{slot}]", "C.shape[1]")
    lines = ["def evaluate(C):"] + ["    " + line for line in body]
    lines.append("    return [" + ", ".join(results[r] for r in roots) + "]")
    namespace = {"_where": np.where, "_full": lambda n, v: np.full(n, v)}
    exec(compile("\n".join(lines) + "\n", f"<modelcheck numpy {name}>", "exec"), namespace)
    return namespace["evaluate"]
