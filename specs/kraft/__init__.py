"""Kafka's KRaft-era replication protocol, ported from the TLA+ specs of
github.com/Vanlightly/kafka-tlaplus (kafka_data_replication/kraft/).

One module per upstream TLA+ module: ``network`` (message passing), the
v3.5 ``types``, ``functions`` and ``properties`` modules, and the main
module ``kafka_replication_v3_5``.
"""

UPSTREAM_REPOSITORY = "github.com/Vanlightly/kafka-tlaplus"
UPSTREAM_COMMIT = "823615e"


def viewer_layout():
    """How the trace viewers draw kraft-3.5's states (``specs/kraft/layout.py``),
    loaded only when a trace is shown."""
    from modelcheck.specs.kraft.layout import V3_5
    return (V3_5,)


def viewer_layout_kip966():
    """The same for kraft-kip966, with its ELR."""
    from modelcheck.specs.kraft.layout import KIP_966
    return (KIP_966,)
