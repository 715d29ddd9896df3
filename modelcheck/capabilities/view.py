"""Whether a run applies its spec's VIEW, and what a VIEW rules out.

TLC's VIEW names an expression: states with the same value of it count as
one, and the first found is kept (and explored, whole). A port declares its
module's VIEW as the variables it keeps (``SpecDefinition.view``); the model
then fingerprints only their slots (``Schema.view_slots``), while every
engine keeps and expands full states. Because the engines also meet states
in TLC's order, the state kept for each view is TLC's.

A run applies the VIEW when asked (``--view`` / ``--no-view``), else when
its .cfg has a VIEW line, else when the spec says its own .cfg does.
"""

from __future__ import annotations

from modelcheck.engines import entry, refusal
from modelcheck.engines.contract import EXHAUSTIVE, VIEW
from modelcheck.errors import InputError


def wanted_view(request, spec, cfg, properties, warnings: list[str]) -> bool:
    named = cfg.view if cfg is not None else None
    if not spec.view:
        if request.view:
            raise InputError(f"{spec.name} defines no VIEW")
        if named is not None:
            warnings.append(f"{cfg.path}:{named[1]}: VIEW {named[0]} is not used by modelcheck "
                            f"({spec.name} defines no VIEW)")
        return False
    if request.view is not None:
        wanted = request.view
    elif cfg is not None:
        wanted = named is not None
    else:
        wanted = spec.view_default and not properties
    applies = entry(request.engine).has(VIEW)
    if wanted and request.view is None and not applies:
        # the VIEW only decides counts: an engine that cannot apply it runs on whole states
        if entry(request.engine).has(EXHAUSTIVE):
            warnings.append(f"--engine {request.engine} does not apply {spec.name}'s VIEW: its counts are of "
                            f"whole states, not TLC's counts under the VIEW")
        return False
    if named is not None and named[0] != "view" and spec.ported:  # a TLA+ module read directly compiles its .cfg's VIEW
        raise InputError(f"{cfg.path}:{named[1]}: {spec.name} knows only its module's VIEW, named view")
    if not wanted:
        return False
    if properties:
        raise InputError("temporal properties are checked on whole states: drop the VIEW (--no-view, or the "
                         ".cfg's VIEW line)")
    if request.symmetry:
        raise InputError("--symmetry and a VIEW together are not supported; drop one (--no-view)")
    if not applies:
        raise InputError(f"{refusal(request.engine, VIEW)}, or --no-view")
    return True
