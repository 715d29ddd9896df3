"""Kafka's KRaft-era replication protocol, ported from the TLA+ specs of
github.com/Vanlightly/kafka-tlaplus (kafka_data_replication/kraft/).

One module per upstream TLA+ module: ``network`` (message passing), the
v3.5 ``types``, ``functions`` and ``properties`` modules, and the main
module ``kafka_replication_v3_5``.
"""

UPSTREAM_REPOSITORY = "github.com/Vanlightly/kafka-tlaplus"
UPSTREAM_COMMIT = "823615e"
