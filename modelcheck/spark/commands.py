"""The command-line face of the Spark engine: the options ``run`` takes for
``--engine spark``, and the ``cluster`` command group.

Kept here rather than in cli.py so that the CLI gains them with two lines.
"""

from __future__ import annotations

import click

from modelcheck.errors import InputError

# option name -> SparkSettings field
SPARK_OPTIONS = {
    "master": "master",
    "partitions": "partitions",
    "checkpoint_dir": "checkpoint_dir",
    "checkpoint_levels": "checkpoint_levels",
    "spark_conf": "conf",
    "executor_wait": "executor_wait",
    "lead_in": "lead_in",
    "verbose": "verbose",
}


def spark_options(fn):
    """Add the ``--engine spark`` options to a click command."""
    options = [
        click.option("--master", metavar="URL",
                     help="--engine spark: local[*] (default), local[N] or spark://HOST:PORT."),
        click.option("--partitions", type=int, metavar="N",
                     help="--engine spark: partitions of the frontier and visited set "
                          "(default: the cores Spark has)."),
        click.option("--checkpoint-dir", metavar="DIR",
                     help="--engine spark: keep checkpoints here (default: a temporary directory, removed "
                          "afterwards). On a multi-machine cluster, a directory every executor can reach."),
        click.option("--checkpoint-levels", type=int, metavar="N",
                     help="--engine spark: checkpoint every N levels (default 5)."),
        click.option("--spark-conf", multiple=True, metavar="KEY=VALUE",
                     help="--engine spark: a Spark setting, e.g. spark.executor.memory=4g. Repeatable."),
        click.option("--executor-wait", type=float, metavar="SECONDS",
                     help="--engine spark: how long to wait for a cluster's first executor (default 60)."),
        click.option("--lead-in", type=int, metavar="N",
                     help="--engine spark: while Spark starts, the driver runs the first levels itself, up to "
                          "levels of N successors (default 2,000,000; 0: the executors run every level)."),
        click.option("--verbose", is_flag=True, help="--engine spark: show Spark's own log."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def engine_options_from(engine: str, given: dict) -> dict:
    """The engine options for ``RunRequest``; Spark options with another
    engine are a mistake worth saying."""
    chosen = {SPARK_OPTIONS[k]: v for k, v in given.items()
              if k in SPARK_OPTIONS and v is not None and v is not False and v != ()}
    if chosen and engine != "spark":
        flag = next(k for k in SPARK_OPTIONS if SPARK_OPTIONS[k] in chosen).replace("_", "-")
        raise InputError(f"--{flag} applies only to --engine spark")
    return chosen


@click.group()
def cluster():
    """Start and stop a Spark standalone cluster on this machine (127.0.0.1)."""


def _state_dir_option(fn):
    from modelcheck.spark.cluster import default_state_dir
    return click.option("--state-dir", metavar="DIR", default=default_state_dir, show_default=True,
                        help="Where the cluster's PIDs and logs are recorded ($MODELCHECK_CLUSTER_DIR).")(fn)


@cluster.command()
@click.option("--workers", type=int, default=2, show_default=True, help="Worker processes.")
@click.option("--cores", type=int, default=1, show_default=True, help="Cores each worker offers.")
@click.option("--memory", default="1g", show_default=True, help="Memory each worker offers (e.g. 1g, 512m).")
@click.option("--port", type=int, default=7077, show_default=True,
              help="The master's port (the next free one if taken).")
@click.option("--webui-port", type=int, default=8080, show_default=True, help="The master's web UI port.")
@_state_dir_option
def start(workers, cores, memory, port, webui_port, state_dir):
    """Start a master and workers; print the master URL to run against."""
    from modelcheck.spark.cluster import ClusterSettings, check_startable, start_cluster

    settings = ClusterSettings(workers=workers, cores=cores, memory=memory, port=port, webui_port=webui_port)
    check_startable(state_dir)
    click.echo(f"starting a Spark master and {workers} worker(s) on 127.0.0.1 ...", err=True)
    state = start_cluster(settings, state_dir)
    click.echo(state.master_url)
    click.echo(f"  master     pid {state.processes[0].pid}" + (f", web UI {state.web_ui}" if state.web_ui else ""),
               err=True)
    for w in state.workers():
        click.echo(f"  {w.role:<10} pid {w.pid}, {cores} core(s), {memory}", err=True)
    click.echo(f"  logs       {state_dir}/logs", err=True)
    click.echo(f"run against it:  modelcheck run SPEC --engine spark --master {state.master_url}", err=True)
    click.echo("stop it:         modelcheck cluster stop" + _dir_flag(state_dir), err=True)
    return 0


@cluster.command()
@_state_dir_option
def stop(state_dir):
    """Stop the processes `cluster start` recorded, and only those."""
    from modelcheck.spark.cluster import stop_cluster

    outcome = stop_cluster(state_dir)
    if outcome is None:
        click.echo(f"no cluster is recorded in {state_dir}; nothing to stop", err=True)
        return 0
    for record, what in outcome:
        click.echo(f"{record.role:<10} pid {record.pid}: {what}")
    return 0


@cluster.command()
@_state_dir_option
def status(state_dir):
    """Show the recorded cluster and which of its processes run."""
    from modelcheck.spark.cluster import ClusterState

    state = ClusterState.load(state_dir)
    if state is None:
        click.echo(f"no cluster is recorded in {state_dir}")
        return 0
    click.echo(state.master_url + (f"  (web UI {state.web_ui})" if state.web_ui else ""))
    for p in state.processes:
        click.echo(f"  {p.role:<10} pid {p.pid}: {'running' if p.running() else 'not running'}  log {p.log}")
    return 0


def _dir_flag(state_dir: str) -> str:
    from modelcheck.spark.cluster import default_state_dir
    return "" if state_dir == default_state_dir() else f" --state-dir {state_dir}"
