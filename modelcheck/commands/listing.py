"""``modelcheck list``: every spec with its constants, invariants (each with
its meaning), actions, specifications and temporal properties."""

from __future__ import annotations

import json

from modelcheck.language.constants import format_value


def property_docs(spec, notation: bool) -> dict[str, str]:
    """Each temporal property's meaning, after its form: in TLA+ notation
    ("P ~> Q: ...", for --json) or in words ("(leads to): ...")."""
    out = {}
    for p in spec.properties:
        form, variable = spec.property_forms()[p.name]
        doc = " ".join(p.doc.split())
        out[p.name] = f"{form.notation_for(variable)}: {doc}" if notation else f"({form.words_for(variable)}): {doc}"
    return out


def default_constants(spec) -> dict[str, str]:
    """Each constant's default value, in TLA+ notation."""
    c = spec.resolve_constants()
    return {d.name: format_value(d.kind, c[d.name]) for d in spec.constants}


def specs_json(specs) -> str:
    return json.dumps([{
        "name": s.name, "module": s.module, "summary": s.summary,
        "actions": [a.name for a in s.next],
        "invariants": s.invariant_names(), "default_invariants": list(s.default_invariants),
        "lemmas": list(s.lemmas),
        "constants": default_constants(s),
        "properties": property_docs(s, notation=True),
        "specifications": {sp.name: sp.labels() for sp in s.all_specifications()},
    } for s in specs], indent=1)


def specs_text(specs) -> str:
    lines: list[str] = []
    for s in specs:
        lines.append(f"{s.name}  ({s.source()})")
        lines.append(f"  {s.summary}")
        lines.append("  constants:  " + (", ".join(f"{k}={v}" for k, v in default_constants(s).items()) or "none"))
        defaults = set(s.default_invariants)
        shown = [n for n in s.invariant_names() if n not in s.lemmas]
        width = max((len(n) + 1 for n in shown), default=1)
        lines.append("  invariants: (* checked by default)")
        for n in shown:
            lines.append(f"    {(n + ('*' if n in defaults else '')).ljust(width)}  {s.invariant_summary(n)}")
        if s.lemmas:
            lines.append("  lemmas:     " + ", ".join(s.lemmas) + "   (invariants too; `prove --lemmas` adds them)")
        lines.append("  actions:    " + ", ".join(a.name for a in s.next))
        specifications = s.all_specifications()
        for sp in specifications:
            lines.append(f"  spec.:      {sp.name}: {sp.fairness_words()}")
        meanings = dict.fromkeys(m for sp in specifications for m in sp.fairness_meanings())
        for k, meaning in enumerate(meanings):
            lines.append(f"  {'fairness:' if k == 0 else '':<10}  {meaning}")
        for why in dict.fromkeys(w for sp in specifications for w in sp.outside_next(s.name, s.next)):
            lines.append(f"  note:       {why}")
        if s.properties:
            lines.append("  properties (--prop):")
            for name, doc in property_docs(s, notation=False).items():
                lines.append(f"    {name} {doc}")
        if s.notes:
            lines.append(f"  note:       {s.notes}")
        lines.append("")
    return "\n".join(lines)
