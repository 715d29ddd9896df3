"""The ``modelcheck cluster`` commands, which the Spark engine brings: a
standalone master and workers on this machine.

The CLI loads this module only when ``cluster`` is used (the engine registry
names it), after checking that the Spark extra (pyspark, psutil) is
installed, so the rest of modelcheck never imports Spark or psutil.
"""

from __future__ import annotations

import os

import click

from modelcheck import exitcodes


def default_state_dir() -> str:
    """Where ``cluster start`` records its processes: $MODELCHECK_CLUSTER_DIR,
    else the user's state directory (XDG)."""
    given = os.environ.get("MODELCHECK_CLUSTER_DIR")
    if given:
        return given
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "modelcheck", "spark-cluster")


@click.group()
def cluster():
    """Start and stop a Spark standalone cluster on this machine (127.0.0.1)."""


def _state_dir_option(fn):
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
    return exitcodes.OK


@cluster.command()
@_state_dir_option
def stop(state_dir):
    """Stop the processes `cluster start` recorded, and only those."""
    from modelcheck.spark.cluster import stop_cluster

    outcome = stop_cluster(state_dir)
    if outcome is None:
        click.echo(f"no cluster is recorded in {state_dir}; nothing to stop", err=True)
        return exitcodes.OK
    for record, what in outcome:
        click.echo(f"{record.role:<10} pid {record.pid}: {what}")
    return exitcodes.OK


@cluster.command()
@_state_dir_option
def status(state_dir):
    """Show the recorded cluster and which of its processes run."""
    from modelcheck.spark.cluster import ClusterState

    state = ClusterState.load(state_dir)
    if state is None:
        click.echo(f"no cluster is recorded in {state_dir}")
        return exitcodes.OK
    click.echo(state.master_url + (f"  (web UI {state.web_ui})" if state.web_ui else ""))
    for p in state.processes:
        click.echo(f"  {p.role:<10} pid {p.pid}: {'running' if p.running() else 'not running'}  log {p.log}")
    return exitcodes.OK


def _dir_flag(state_dir: str) -> str:
    return "" if state_dir == default_state_dir() else f" --state-dir {state_dir}"
