"""How the trace viewers draw a state of AsyncIsr: the controller's and the
leader's ISR state (with the high watermark, by the spec's own operator),
each replica's offset and ISR membership, and the request and update
messages. The viewer reads it through ``SpecDefinition.layout``.
"""

from __future__ import annotations

from functools import partial

from modelcheck.model.display import Cell, Group, Layout, Row, names_text, set_cell, text_cell

ASYNC_ISR_VARIABLES = frozenset({"controllerState", "leaderState", "requests", "updates"})

ASYNC_ISR_GROUPS = [
    Group("controller", "controller", "line"),
    Group("leader", "leader", "line"),
    Group("replicas", "replica", "table",
          (("offset", "offset"), ("controllerIsr", "in controller ISR"), ("leaderIsr", "in leader ISR"),
           ("pending", "in pending ISR"))),
    Group("messages", "messages", "line"),
]


def async_isr_rows(high_watermark, model, state, values) -> list[Row]:
    """The rows of a state; ``high_watermark`` is the spec's own operator
    (not a copy of it), evaluated on the state."""
    from modelcheck.model.explain import Probe
    controller, leader = values["controllerState"], values["leaderState"]
    replicas = list(leader["offsets"])
    hw = Probe(model, state).value(high_watermark(Probe(model, state).s))
    rows = [
        Row("controller", "controller", [set_cell("isr", controller["isr"], replicas),
                                         text_cell("version", controller["version"])]),
        Row("leader", "leader", [set_cell("isr", leader["isr"], replicas), text_cell("version", leader["version"]),
                                 set_cell("pendingIsr", leader["pendingIsr"], replicas, "pending isr"),
                                 text_cell("pendingVersion", leader["pendingVersion"], "pending version"),
                                 text_cell("highWatermark", hw, "high watermark")]),
    ]
    for name in replicas:
        rows.append(Row("replicas", name, [
            text_cell("offset", leader["offsets"][name]),
            Cell("controllerIsr", "yes" if name in controller["isr"] else "no", label="in controller ISR"),
            Cell("leaderIsr", "yes" if name in leader["isr"] else "no", label="in leader ISR"),
            Cell("pending", "yes" if name in leader["pendingIsr"] else "no", label="in pending ISR"),
        ]))
    for var in ("requests", "updates"):
        messages = sorted(values[var], key=lambda m: (m["version"], sorted(m["isr"])))
        rows.append(Row("messages", var, [Cell(f"v{m['version']}:{','.join(sorted(m['isr']))}",
                                               f"v{m['version']} {names_text(m['isr'])}") for m in messages]
                        or [Cell("none", "none", "placeholder")]))
    return rows


def layout(high_watermark) -> Layout:
    return Layout(ASYNC_ISR_GROUPS, partial(async_isr_rows, high_watermark), ASYNC_ISR_VARIABLES)
