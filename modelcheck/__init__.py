"""modelcheck: a model checker for the Kafka replication protocol's TLA+ specs."""

__version__ = "0.1.0"
