"""The built-in specs: one module per TLA+ module, named after it.

Helper modules (id_sequence, finite_replicated_log, family) have no Next of
their own. The specs are offered to the command line as any package offers
its own: as entry points of the group ``modelcheck.specs`` (setup.cfg),
found by ``modelcheck.loading.registry``. ``BUILT_IN`` lists the same
entries, for a checkout run without installing it and for Spark executors;
a test holds setup.cfg to it.
"""

from __future__ import annotations

from importlib import import_module

from modelcheck.errors import InputError, no_such
from modelcheck.model.spec import SpecDefinition

BUILT_IN = (
    "truncate-to-hw = modelcheck.specs.kafka_truncate_to_high_watermark:SPEC",
    "kip101 = modelcheck.specs.kip101:SPEC",
    "kip279 = modelcheck.specs.kip279:SPEC",
    "kip320 = modelcheck.specs.kip320:SPEC",
    "kip320-first-try = modelcheck.specs.kip320_first_try:SPEC",
    "async-isr = modelcheck.specs.async_isr:SPEC",
    "kip320-consumer = modelcheck.specs.kip320_consumer:SPEC",
    "kafka-clients = modelcheck.specs.kafka_clients:SPEC",
    "kraft-3.5 = modelcheck.specs.kraft.kafka_replication_v3_5:SPEC",
    "kraft-kip966 = modelcheck.specs.kraft.kafka_replication_kip_966:SPEC",
)


def all_specs() -> dict[str, SpecDefinition]:
    """The built-in specs, by name (the command line also finds installed
    packages' specs and spec files: modelcheck.loading.registry)."""
    out = {}
    for line in BUILT_IN:
        name, target = (part.strip() for part in line.split("=", 1))
        module, _, attribute = target.partition(":")
        out[name] = getattr(import_module(module), attribute)
    return out


def get_spec(name: str) -> SpecDefinition:
    specs = all_specs()
    if name not in specs:
        raise InputError(no_such("unknown spec", name, specs, "known specs"))
    return specs[name]
