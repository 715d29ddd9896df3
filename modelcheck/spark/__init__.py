"""Running the search on Apache Spark.

The pieces, each behind a narrow interface:

* ``settings``: what the user asked for (master, partitions, checkpoints),
  validated before anything starts;
* ``java``: finding a Java runtime Spark can use, with a plain message when
  there is none;
* ``session``: starting a SparkContext that fails fast when the master
  cannot be reached or gives no executor;
* ``jvm``: Spark's log configuration and the driver JVM's output;
* ``shipping``: the zip of this project's code the executors import;
* ``blocks``: what runs on the executors: expanding a partition of the
  frontier and the anti-join against the visited set, on numpy blocks;
* ``cluster``: a standalone master and workers on this machine, for users
  who want a real cluster without installing one.

The level-by-level search itself is the ``spark`` engine
(``modelcheck.engines.spark``).
"""
