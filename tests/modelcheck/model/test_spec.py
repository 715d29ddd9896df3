import gc

import pytest

from modelcheck.model.spec import Model
from modelcheck.specs import get_spec


@pytest.mark.parametrize("enabled", [True, False])
def test_building_a_model_leaves_the_garbage_collector_as_it_was(enabled, monkeypatch):
    # the build pauses the collector (its expression nodes hold no cycles); it must resume it
    # only if it was running, also when the build fails
    spec = get_spec("kip320")
    constants = spec.resolve_constants({"Replicas": "2"})
    paused = []
    build = Model._build_instances

    def watched(self, *args, **kwargs):
        paused.append(not gc.isenabled())
        return build(self, *args, **kwargs)

    def failing(self, *args, **kwargs):
        raise RuntimeError("a definition mistake")

    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        monkeypatch.setattr(Model, "_build_instances", watched)
        assert spec.instantiate(constants).instances
        assert paused == [True] and gc.isenabled() is enabled
        monkeypatch.setattr(Model, "_build_instances", failing)
        with pytest.raises(RuntimeError):
            spec.instantiate(constants)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
