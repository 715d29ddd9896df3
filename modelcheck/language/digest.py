"""Digests of expression trees: what a model's code is, as the engines read it.

Whatever a spec is written in (a Python module, a TLA+ module), an engine
sees only the model it becomes: a state layout, initial states, action
instances (guards and assignments) and predicates, all expression trees
over the state's slots. A digest of those is a digest of the spec's code
and constants as far as any search is concerned: it changes when an action
is dropped, reordered or changed, and not when a comment or a name that no
engine reads does.

Each node's digest is a hash of its operator, its sort and its operands'
digests (a Merkle hash), so two trees with the same structure have the same
digest however their nodes are shared; a node shared by many trees is
hashed once. The largest model here (kraft-3.5 at its .cfg's constants,
716,150 nodes) takes 1.5 to 2 s, about as long as building it; so it is
computed only for a run that saves or resumes a checkpoint.
"""

from __future__ import annotations

import sys
from hashlib import blake2b

from modelcheck.language.expr import Expr

SIZE = 16  # bytes of a node's digest
DEEP = 20_000  # the recursion allowed while a tree is hashed (deeper ones are hashed without recursion)


class TreeDigests:
    """Digests of expression trees, each shared node hashed once."""

    def __init__(self):
        self._known: dict[int, bytes] = {}
        self._held: list[Expr] = []  # the nodes hashed, kept alive so that no other node takes their id

    def of(self, root: Expr) -> bytes:
        """The digest of ``root``'s tree."""
        found = self._known.get(id(root))
        if found is not None:
            return found
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, DEEP))
        try:
            return self._recursive(root)
        except RecursionError:
            return self._iterative(root)
        finally:
            sys.setrecursionlimit(limit)

    def _node(self, node: Expr, operands: list[bytes]) -> bytes:
        h = blake2b(f"{node.op}/{node.sort}".encode(), digest_size=SIZE)
        for a, digest in zip(node.args, operands):
            h.update(b"e" + digest if digest is not None else b"v" + repr(a).encode() + b"\0")
        found = self._known[id(node)] = h.digest()
        self._held.append(node)
        return found

    def _recursive(self, node: Expr) -> bytes:
        found = self._known.get(id(node))
        if found is not None:
            return found
        return self._node(node, [self._recursive(a) if isinstance(a, Expr) else None for a in node.args])

    def _iterative(self, root: Expr) -> bytes:
        known, stack = self._known, [root]
        while stack:  # operands before the node
            node = stack[-1]
            if id(node) in known:
                stack.pop()
                continue
            waiting = [a for a in node.args if isinstance(a, Expr) and id(a) not in known]
            if waiting:
                stack.extend(waiting)
                continue
            stack.pop()
            self._node(node, [known[id(a)] if isinstance(a, Expr) else None for a in node.args])
        return known[id(root)]
