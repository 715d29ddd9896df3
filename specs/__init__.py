"""The spec registry: CLI name -> spec definition.

One module per upstream TLA+ module, named after it. Helper modules
(id_sequence, finite_replicated_log, family) have no Next of their own.
"""

from __future__ import annotations

from modelcheck.errors import InputError, no_such
from modelcheck.model.spec import Model, SpecDefinition


def all_specs() -> dict[str, SpecDefinition]:
    from modelcheck.specs import (async_isr, kafka_clients, kafka_truncate_to_high_watermark, kip101, kip279, kip320,
                       kip320_consumer, kip320_first_try)
    from modelcheck.specs.kraft import kafka_replication_kip_966, kafka_replication_v3_5
    modules = (kafka_truncate_to_high_watermark, kip101, kip279, kip320, kip320_first_try, async_isr,
               kip320_consumer, kafka_clients, kafka_replication_v3_5, kafka_replication_kip_966)
    return {m.SPEC.name: m.SPEC for m in modules}


def get_spec(name: str) -> SpecDefinition:
    specs = all_specs()
    if name not in specs:
        raise InputError(no_such("unknown spec", name, specs, "known specs"))
    return specs[name]


_LOADED: dict[tuple, Model] = {}


def load_model(key: tuple) -> Model:
    """The model named by ``Model.key()``, built once per process (Spark
    executors and worker processes rebuild the driver's model this way)."""
    model = _LOADED.get(key)
    if model is None:
        name, items = key[:2]
        spec = get_spec(name)
        model = spec.instantiate(spec.resolve_constants(parsed=dict(items)), view="view" in key[2:])
        _LOADED[key] = model
    return model
