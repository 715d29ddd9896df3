"""Parsing: TLA+ text to the front-end's syntax (``syntax.py``).

tree-sitter-tlaplus, the grammar the TLA+ editor tooling maintains, gives a
concrete syntax tree; one function per kind of CST node builds the
corresponding ``Node``. A text the grammar cannot parse, or a construct the
front-end does not carry (proofs are skipped: they never change what TLC
checks), is reported with its file:line:col.
"""

from __future__ import annotations

import functools
import warnings

from modelcheck.tlaplus.syntax import (Assumption, ConstantDecl, InstanceDef, Loc, Module, Node, OpDef, TlaError,
                                       Unsupported, VariableDecl)

INFIX = {
    "eq": "=", "neq": "#", "lt": "<", "leq": "<=", "gt": ">", "geq": ">=", "plus": "+", "minus": "-",
    "mul": "*", "div": "\\div", "mod": "%", "pow": "^", "dots_2": "..", "land": "/\\", "lor": "\\/",
    "implies": "=>", "iff": "<=>", "equiv": "<=>", "in": "\\in", "notin": "\\notin", "subseteq": "\\subseteq",
    "subset": "\\subset", "supseteq": "\\supseteq", "supset": "\\supset", "cup": "\\cup", "cap": "\\cap",
    "setminus": "\\", "times": "\\X", "map_to": ":>", "compose": "@@", "leads_to": "~>", "circ": "\\o",
}
PREFIX = {"lnot": "~", "negative": "-.", "domain": "DOMAIN", "powerset": "SUBSET", "union": "UNION",
          "unchanged": "UNCHANGED", "enabled": "ENABLED", "always": "[]", "eventually": "<>"}
POSTFIX = {"prime": "'", "sup_plus": "^+", "asterisk": "^*", "sup_hash": "^#"}
# module-level nodes that never change what is checked
IGNORED_UNITS = {"theorem", "comment", "block_comment", "single_line", "double_line", "header_line",
                 "recursive_declaration", "use_or_hide", "extramodular_text"}


@functools.lru_cache(maxsize=1)
def _parser():
    from tree_sitter import Language, Parser
    import tree_sitter_tlaplus
    with warnings.catch_warnings():  # the binding's int-pointer constructor is deprecated upstream
        warnings.simplefilter("ignore", DeprecationWarning)
        language = Language(tree_sitter_tlaplus.language())
    return Parser(language)


def parse_module(text: str, path: str) -> Module:
    """The module a .tla file holds (its first MODULE ... ==== block)."""
    data = text.encode("utf-8")
    tree = _parser().parse(data)
    root = tree.root_node
    if root.has_error:
        bad = _first_error(root)
        where = Loc(path, bad.start_point[0] + 1, bad.start_point[1] + 1) if bad is not None else Loc(path, 1, 1)
        raise TlaError("this is not TLA+ the parser can read" + _snippet(bad), where)
    modules = [c for c in root.named_children if c.type == "module"]
    if not modules:
        raise TlaError("no ---- MODULE Name ---- header found", Loc(path, 1, 1))
    return _Builder(path).module(modules[0])


def _first_error(node):
    if node.type == "ERROR" or node.is_missing:
        return node
    for c in node.children:
        if c.has_error or c.is_missing or c.type == "ERROR":
            found = _first_error(c)
            if found is not None:
                return found
    return None


def _snippet(node) -> str:
    if node is None:
        return ""
    text = node.text.decode("utf-8", "replace").split("\n")[0].strip()
    return f" (near {text[:40]!r})" if text else ""


def _named(node) -> list:
    return [c for c in node.children if c.is_named and c.type not in ("comment", "block_comment")]


class _Builder:
    """Builds the syntax of one file; ``words`` collects its identifiers and
    strings in the order the text gives them."""

    def __init__(self, path: str):
        self.path = path
        self.words: list[str] = []

    def loc(self, node) -> Loc:
        return Loc(self.path, node.start_point[0] + 1, node.start_point[1] + 1)

    def text(self, node) -> str:
        return node.text.decode("utf-8")

    def unsupported(self, node, what: str | None = None):
        raise Unsupported(f"{what or node.type.replace('_', ' ')} is not supported by modelcheck's TLA+ front-end",
                          self.loc(node))

    # --- the module ------------------------------------------------------------
    def module(self, node) -> Module:
        self._collect_words(node)
        name = self.text(node.child_by_field_name("name"))
        mod = Module(name, self.path, (), [], (), self.loc(node))
        for unit in _named(node):
            kind = unit.type
            if kind in IGNORED_UNITS or unit == node.child_by_field_name("name"):
                continue
            if kind == "extends":
                mod.extends = tuple((self.text(c), self.loc(c)) for c in _named(unit))
            else:
                built = self.unit(unit)
                if built is not None:
                    mod.units.extend(built if isinstance(built, list) else [built])
        mod.words = tuple(self.words)
        return mod

    def _collect_words(self, root) -> None:
        stack = [root]
        out = self.words
        while stack:
            n = stack.pop()
            t = n.type
            if t in ("identifier", "identifier_ref"):
                out.append(self.text(n))
                continue
            if t == "string":
                out.append(self.string_value(n))
                continue
            if t in ("comment", "block_comment"):
                continue
            stack.extend(reversed(n.children))

    def unit(self, node, local: bool = False):
        kind = node.type
        if kind == "local_definition":
            inner = _named(node)
            return self.unit(inner[0], local=True)
        if kind == "constant_declaration":
            out = []
            for c in _named(node):
                if c.type == "identifier":
                    out.append(ConstantDecl(self.text(c), 0, self.loc(c)))
                elif c.type == "operator_declaration":
                    name, params = self.op_signature(c)
                    out.append(ConstantDecl(name, len(params), self.loc(c)))
                else:
                    self.unsupported(c)
            return out
        if kind == "variable_declaration":
            return [VariableDecl(self.text(c), self.loc(c)) for c in _named(node)]
        if kind == "operator_definition":
            name, params = self.op_signature(node)
            return OpDef(name, params, self.expr(node.child_by_field_name("definition")), self.loc(node), local)
        if kind == "function_definition":
            name = self.text(node.child_by_field_name("name"))
            bounds = tuple(b for q in _named(node) if q.type == "quantifier_bound" for b in self.bound(q))
            body = self.expr(node.child_by_field_name("definition"))
            return OpDef(name, (), body, self.loc(node), local, fun_bounds=bounds)
        if kind == "module_definition":
            name, params = self.op_signature(node)
            inst = self.instance(node.child_by_field_name("definition"), local)
            inst.name, inst.params = name, params
            return inst
        if kind == "instance":
            return self.instance(node, local)
        if kind == "assumption":
            exprs = [c for c in _named(node) if c.type not in ("identifier", "def_eq")]
            return Assumption(self.expr(exprs[-1]), self.loc(node))
        if kind == "module":
            self.unsupported(node, "a module nested inside another")
        if kind in ("proof", "terminal_proof", "non_terminal_proof"):
            return None
        self.unsupported(node)

    def op_signature(self, node) -> tuple[str, tuple[tuple[str, int], ...]]:
        name_node = node.child_by_field_name("name")
        name = self.symbol_name(name_node)
        params = []
        for i, c in enumerate(node.children):
            if node.field_name_for_child(i) != "parameter" or not c.is_named:
                continue
            if c.type == "identifier":
                params.append((self.text(c), 0))
            elif c.type == "operator_declaration":
                inner, arity = self.op_signature(c)
                params.append((inner, len(arity)))
            elif c.type in ("placeholder",):
                params.append(("_", 0))
            else:  # an infix or prefix parameter of a higher-order operator
                params.append((self.symbol_name(c), 2))
        return name, tuple(params)

    def symbol_name(self, node) -> str:
        if node.type in ("infix_op_symbol", "prefix_op_symbol", "postfix_op_symbol"):
            inner = _named(node)
            sym = inner[0] if inner else node
            return INFIX.get(sym.type) or PREFIX.get(sym.type) or POSTFIX.get(sym.type) or self.text(sym)
        return self.text(node)

    def instance(self, node, local: bool) -> InstanceDef:
        parts = _named(node)
        module = self.text(parts[0])
        subs = []
        for s in parts[1:]:
            if s.type != "substitution":
                self.unsupported(s)
            kids = [k for k in _named(s) if k.type != "gets"]
            target = self.symbol_name(kids[0]) if kids[0].type != "identifier_ref" else self.text(kids[0])
            subs.append((target, self.expr(kids[1])))
        return InstanceDef(module, tuple(subs), self.loc(node), local=local)

    # --- expressions -------------------------------------------------------------
    def node(self, kind: str, args: tuple, at) -> Node:
        return Node(kind, args, self.loc(at))

    def expr(self, node) -> Node:
        method = getattr(self, "e_" + node.type, None)
        if method is None:
            return self.deferred(node)
        try:
            return method(node)
        except Unsupported as e:
            # refused only where it is used: a module may define what a spec never evaluates
            return Node("unsupported", (e.message,), e.loc)

    def deferred(self, node, what: str | None = None) -> Node:
        return Node("unsupported", (f"{what or node.type.replace('_', ' ')} is not supported by modelcheck's "
                                    f"TLA+ front-end",), self.loc(node))

    def e_parentheses(self, node):
        return self.expr(_named(node)[0])

    def e_identifier_ref(self, node):
        return self.node("name", (self.text(node),), node)

    e_identifier = e_identifier_ref

    def e_nat_number(self, node):
        return self.node("num", (int(self.text(node)),), node)

    def e_binary_number(self, node):
        return self.node("num", (int(self.text(node)[2:], 2),), node)

    def e_octal_number(self, node):
        return self.node("num", (int(self.text(node)[2:], 8),), node)

    def e_hex_number(self, node):
        return self.node("num", (int(self.text(node)[2:], 16),), node)

    def string_value(self, node) -> str:
        raw = self.text(node)[1:-1]
        out, i = [], 0
        escapes = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "f": "\f"}
        while i < len(raw):
            ch = raw[i]
            if ch == "\\" and i + 1 < len(raw):
                out.append(escapes.get(raw[i + 1], raw[i + 1]))
                i += 2
            else:
                out.append(ch)
                i += 1
        return "".join(out)

    def e_string(self, node):
        return self.node("str", (self.string_value(node),), node)

    def e_boolean(self, node):
        return self.node("bool", (self.text(node) == "TRUE",), node)

    def e_nat_number_set(self, node):
        return self.node("name", ("Nat",), node)

    def e_int_number_set(self, node):
        return self.node("name", ("Int",), node)

    def e_boolean_set(self, node):
        return self.node("name", ("BOOLEAN",), node)

    def e_string_set(self, node):
        return self.node("name", ("STRING",), node)

    def e_bound_infix_op(self, node):
        sym_node = node.child_by_field_name("symbol")
        lhs, rhs = node.child_by_field_name("lhs"), node.child_by_field_name("rhs")
        sym = INFIX.get(sym_node.type) or self.text(sym_node)
        if sym in ("/\\", "\\/"):
            kind = "and" if sym == "/\\" else "or"
            items = []
            for side in (lhs, rhs):
                e = self.expr(side)
                if e.kind == kind and side.type == "bound_infix_op":
                    items.extend(e.args)
                else:
                    items.append(e)
            return self.node(kind, tuple(items), node)
        if sym == "\\X":
            items = []
            for side in (lhs, rhs):
                e = self.expr(side)
                if e.kind == "times" and side.type == "bound_infix_op":
                    items.extend(e.args)
                else:
                    items.append(e)
            return self.node("times", tuple(items), node)
        return self.node("op", (sym, self.expr(lhs), self.expr(rhs)), node)

    def e_bound_prefix_op(self, node):
        sym_node = node.child_by_field_name("symbol")
        sym = PREFIX.get(sym_node.type) or self.text(sym_node)
        return self.node("op", (sym, self.expr(node.child_by_field_name("rhs"))), node)

    def e_bound_postfix_op(self, node):
        sym_node = node.child_by_field_name("symbol")
        sym = POSTFIX.get(sym_node.type) or self.text(sym_node)
        return self.node("op", (sym, self.expr(node.child_by_field_name("lhs"))), node)

    def args_of(self, node) -> tuple:
        return tuple(self.expr(c) for i, c in enumerate(node.children)
                     if node.field_name_for_child(i) == "parameter" and c.is_named)

    def e_bound_op(self, node):
        name = self.text(node.child_by_field_name("name"))
        return self.node("apply", (name, self.args_of(node)), node)

    def e_bound_nonfix_op(self, node):
        sym_node = node.child_by_field_name("symbol")
        sym = self.symbol_name(sym_node)
        args = tuple(self.expr(c) for c in _named(node) if c != sym_node)
        return self.node("op", (sym,) + args, node)

    def e_prefixed_op(self, node):
        prefix = []
        for comp in _named(node.child_by_field_name("prefix")):
            inner = _named(comp)[0]
            if inner.type == "identifier_ref":
                prefix.append((self.text(inner), ()))
            elif inner.type == "bound_op":
                prefix.append((self.text(inner.child_by_field_name("name")), self.args_of(inner)))
            else:
                self.unsupported(inner, "this kind of instance reference")
        op = node.child_by_field_name("op")
        if op.type == "identifier_ref":
            return self.node("inst", (tuple(prefix), self.text(op), ()), node)
        if op.type == "bound_op":
            return self.node("inst", (tuple(prefix), self.text(op.child_by_field_name("name")), self.args_of(op)),
                             node)
        self.unsupported(op, "this kind of instance reference")

    def e_subexpression(self, node):
        parts = _named(node)
        comps = [c for c in _named(parts[0])]
        if len(comps) != 1 or _named(comps[0])[0].type != "identifier_ref":
            self.unsupported(node, "this subexpression reference")
        name = self.text(_named(comps[0])[0])
        positions = []
        for nav in parts[1:]:
            for c in _named(nav):
                if c.type != "child_id":
                    self.unsupported(c, "this subexpression reference")
                positions.append(int(self.text(c)))
        return self.node("subexpr", (name, tuple(positions)), node)

    def e_conj_list(self, node):
        return self.node("and", tuple(self.expr(_named(item)[-1]) for item in _named(node)), node)

    def e_disj_list(self, node):
        return self.node("or", tuple(self.expr(_named(item)[-1]) for item in _named(node)), node)

    def e_if_then_else(self, node):
        return self.node("if", (self.expr(node.child_by_field_name("if")), self.expr(node.child_by_field_name("then")),
                                self.expr(node.child_by_field_name("else"))), node)

    def e_case(self, node):
        arms, other = [], None
        for c in _named(node):
            if c.type == "case_arm":
                parts = [p for p in _named(c) if p.type != "case_arrow"]
                arms.append((self.expr(parts[0]), self.expr(parts[1])))
            elif c.type == "other_arm":
                parts = [p for p in _named(c) if p.type != "case_arrow"]
                other = self.expr(parts[0])
        return self.node("case", (tuple(arms), other), node)

    def e_let_in(self, node):
        defs = []
        for i, c in enumerate(node.children):
            if node.field_name_for_child(i) == "definitions" and c.is_named:
                built = self.unit(c)
                if isinstance(built, InstanceDef):
                    built = OpDef(built.name or "_", built.params, self.deferred(c, "INSTANCE inside LET"),
                                  built.loc)
                defs.append(built)
        body = self.expr(node.child_by_field_name("expression"))
        return self.node("let", (tuple(defs), body), node)

    def bound(self, q) -> list:
        """One quantifier_bound: (pattern, set) for each name it introduces."""
        intros = []
        for i, c in enumerate(q.children):
            if q.field_name_for_child(i) == "intro" and c.is_named:
                if c.type == "tuple_of_identifiers":
                    intros.append(tuple(self.text(x) for x in _named(c) if x.type == "identifier"))
                else:
                    intros.append(self.text(c))
        s = self.expr(q.child_by_field_name("set"))
        return [(p, s) for p in intros]

    def e_bounded_quantification(self, node):
        q = node.child_by_field_name("quantifier").type
        bounds = []
        for i, c in enumerate(node.children):
            if node.field_name_for_child(i) == "bound" and c.is_named:
                bounds.extend(self.bound(c))
        body = self.expr(node.child_by_field_name("expression"))
        return self.node("quant", ("E" if q == "exists" else "A", tuple(bounds), body), node)

    def e_unbounded_quantification(self, node):
        return self.deferred(node, "a quantifier without a set (\\E x : P)")

    def e_choose(self, node):
        intro = node.child_by_field_name("intro")
        if intro.type == "tuple_of_identifiers":
            pattern = tuple(self.text(x) for x in _named(intro) if x.type == "identifier")
        else:
            pattern = self.text(intro)
        s = node.child_by_field_name("set")
        return self.node("choose", (pattern, self.expr(s) if s is not None else None,
                                    self.expr(node.child_by_field_name("expression"))), node)

    def e_finite_set_literal(self, node):
        return self.node("setenum", tuple(self.expr(c) for c in _named(node)), node)

    def e_set_filter(self, node):
        (pattern, s), = self.bound(node.child_by_field_name("generator"))
        return self.node("setfilter", (pattern, s, self.expr(node.child_by_field_name("filter"))), node)

    def e_set_map(self, node):
        bounds = []
        for i, c in enumerate(node.children):
            if node.field_name_for_child(i) == "generator" and c.is_named:
                bounds.extend(self.bound(c))
        return self.node("setmap", (self.expr(node.child_by_field_name("map")), tuple(bounds)), node)

    def e_function_literal(self, node):
        bounds = []
        for c in _named(node):
            if c.type == "quantifier_bound":
                bounds.extend(self.bound(c))
        body = _named(node)[-1]
        return self.node("fundef", (tuple(bounds), self.expr(body)), node)

    def e_function_evaluation(self, node):
        parts = _named(node)
        return self.node("funapp", (self.expr(parts[0]), tuple(self.expr(p) for p in parts[1:])), node)

    def e_set_of_functions(self, node):
        parts = [p for p in _named(node) if p.type != "maps_to"]
        return self.node("funset", (self.expr(parts[0]), self.expr(parts[1])), node)

    def e_record_literal(self, node):
        parts = [p for p in _named(node) if p.type != "all_map_to"]
        return self.node("record", tuple((self.text(parts[i]), self.expr(parts[i + 1]))
                                         for i in range(0, len(parts), 2)), node)

    def e_set_of_records(self, node):
        parts = _named(node)
        return self.node("recset", tuple((self.text(parts[i]), self.expr(parts[i + 1]))
                                         for i in range(0, len(parts), 2)), node)

    def e_record_value(self, node):
        parts = _named(node)
        return self.node("dot", (self.expr(parts[0]), self.text(parts[1])), node)

    def e_except(self, node):
        base = self.expr(node.child_by_field_name("expr_to_update"))
        updates = []
        for c in _named(node):
            if c.type != "except_update":
                continue
            spec = c.child_by_field_name("update_specifier")
            if spec is None or spec.type != "except_update_specifier":
                spec = next(k for k in _named(c) if k.type == "except_update_specifier")
            path = []
            for step in _named(spec):
                if step.type == "except_update_record_field":
                    path.append((".", self.text(_named(step)[0])))
                else:
                    path.append(("[]", tuple(self.expr(a) for a in _named(step))))
            updates.append((tuple(path), self.expr(c.child_by_field_name("new_val"))))
        return self.node("except", (base, tuple(updates)), node)

    def e_prev_func_val(self, node):
        return self.node("at", (), node)

    def e_tuple_literal(self, node):
        return self.node("tuple", tuple(self.expr(c) for c in _named(node)
                                        if c.type not in ("langle_bracket", "rangle_bracket")), node)

    def e_lambda(self, node):
        parts = _named(node)
        names = tuple(self.text(p) for p in parts[:-1])
        return self.node("lambda", (names, self.expr(parts[-1])), node)

    def e_fairness(self, node):
        kind = "WF" if self.text(node.children[0]).startswith("WF") else "SF"
        parts = _named(node)
        return self.node("fair", (kind, self.expr(parts[0]), self.expr(parts[1])), node)

    def e_step_expr_or_stutter(self, node):
        parts = _named(node)
        return self.node("boxact", (self.expr(parts[0]), self.expr(parts[1])), node)

    def e_step_expr_no_stutter(self, node):
        parts = [p for p in _named(node) if p.type not in ("langle_bracket", "rangle_bracket_sub")]
        return self.node("diaact", (self.expr(parts[0]), self.expr(parts[1])), node)

    def e_label(self, node):
        return self.expr(node.child_by_field_name("expression"))

    def e_infix_op_symbol(self, node):
        """An operator symbol passed as an argument (``FoldSet(+, 0, S)``)."""
        return self.node("opref", (self.symbol_name(node),), node)

    e_prefix_op_symbol = e_infix_op_symbol
    e_postfix_op_symbol = e_infix_op_symbol
