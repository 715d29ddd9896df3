"""``modelcheck list``: every spec with its constants, invariants (each with
its meaning), actions, specifications and temporal properties."""

from __future__ import annotations

import json

from modelcheck.constants import format_value


def specs_json(specs) -> str:
    return json.dumps([{
        "name": s.name, "module": s.module, "summary": s.summary,
        "actions": [a.name for a in s.next],
        "invariants": s.invariant_names(), "default_invariants": list(s.default_invariants),
        "lemmas": list(s.lemmas),
        "constants": {d.name: format_value(d.kind, d.default) for d in s.constants},
        "properties": {p.name: " ".join(p.doc.split()) for p in s.properties},
        "specifications": {sp.name: [f.label() for f in sp.fairness] for sp in s.all_specifications()},
    } for s in specs], indent=1)


def specs_text(specs) -> str:
    lines: list[str] = []
    for s in specs:
        lines.append(f"{s.name}  ({s.source()})")
        lines.append(f"  {s.summary}")
        lines.append("  constants:  " + ", ".join(f"{d.name}={format_value(d.kind, d.default)}" for d in s.constants))
        defaults = set(s.default_invariants)
        shown = [n for n in s.invariant_names() if n not in s.lemmas]
        width = max(len(n) + 1 for n in shown)
        lines.append("  invariants: (* checked by default)")
        for n in shown:
            lines.append(f"    {(n + ('*' if n in defaults else '')).ljust(width)}  {s.invariant_summary(n)}")
        if s.lemmas:
            lines.append("  lemmas:     " + ", ".join(s.lemmas) + "   (invariants too; `prove --lemmas` adds them)")
        lines.append("  actions:    " + ", ".join(a.name for a in s.next))
        for sp in s.all_specifications():
            fairness = ", ".join(f.label() for f in sp.fairness) or "no fairness"
            lines.append(f"  spec.:      {sp.name}: {fairness}")
        if s.properties:
            lines.append("  properties (--prop):")
            for p in s.properties:
                lines.append(f"    {p.name}: {' '.join(p.doc.split())}")
        if s.notes:
            lines.append(f"  note:       {s.notes}")
        lines.append("")
    return "\n".join(lines)
