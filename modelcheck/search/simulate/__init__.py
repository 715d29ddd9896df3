"""Simulation as a capability: random walks for models too big to exhaust.

walks.py runs batched walks on the fast engine's kernels, shrink.py shortens
a violating behaviour and settings.py says what a simulation is asked to do.
The simulators, the engines that run the walks, are
``modelcheck.engines.simulate`` (in process) and the Spark engine's swarm
(``modelcheck.engines.spark``, ``modelcheck.spark.swarm``); the engine
registry says which engines simulate. The command and its report are
``modelcheck/commands/simulation.py``.

May import what the rest of ``modelcheck.search`` may.
"""
