"""Running the search on Apache Spark: the package of the ``[spark]`` extra.

Only the Spark engine (``modelcheck.engines.spark``) imports it, and the
registry loads that engine only when it is chosen (docs/spark.md says why
each module exists). The pieces, each behind a narrow interface:

* ``settings``: what the user asked for (master, partitions, checkpoints),
  validated before anything starts;
* ``java``: finding a Java runtime Spark can use, with a plain message when
  there is none;
* ``session``: starting a SparkContext that fails fast when the master
  cannot be reached or gives no executor;
* ``jvm``: Spark's log configuration and the driver JVM's output;
* ``shipping``: the zip of this project's code the executors import;
* ``blocks``: what runs on the executors: a partition's step of a level
  (the anti-join against its visited set, the invariants, the expansion),
  on numpy blocks;
* ``visited``: each partition's visited set, as sorted runs in files every
  executor reaches, and what a Python worker keeps of it between levels;
* ``resume``: the manifest that lets ``--resume`` continue a search whose
  driver died;
* ``swarm``: the executor side of ``simulate --engine spark``;
* ``cluster`` and ``commands``: a standalone master and workers on this
  machine, for users who want a real cluster without installing one.

The level-by-level search itself is the ``spark`` engine
(``modelcheck.engines.spark``).

May import: search machinery, specs, loading, the model, the language, the
backends, the runtime, pyspark and psutil.
Must not be imported by anything but ``modelcheck.engines.spark`` (and the
registry's ``modelcheck cluster`` command, by name).
"""
