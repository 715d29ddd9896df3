import time

import pytest

from spark_support import free_port
from modelcheck.errors import InputError
from modelcheck.spark.session import check_master_reachable, spark_conf_pairs
from modelcheck.spark.settings import SparkSettings


def test_unreachable_master_is_reported_quickly():
    port = free_port()
    started = time.monotonic()
    with pytest.raises(InputError, match=f"cannot reach the Spark master spark://127.0.0.1:{port}"):
        check_master_reachable(f"spark://127.0.0.1:{port}", timeout=2)
    assert time.monotonic() - started < 5
    check_master_reachable("local[*]", timeout=2)  # nothing to reach


def test_conf_users_win_and_local_runs_bind_loopback():
    settings = SparkSettings(conf=(("spark.ui.enabled", "true"),))
    pairs = dict(spark_conf_pairs(settings, "local[2]", "app", "/tmp/log4j2.properties", under_submit=False))
    assert pairs["spark.ui.enabled"] == "true" and pairs["spark.master"] == "local[2]"
    assert pairs["spark.driver.host"] == "127.0.0.1"
    assert pairs["spark.executorEnv.PYTHONSAFEPATH"] == "1"
    remote = dict(spark_conf_pairs(SparkSettings(), "spark://10.0.0.5:7077", "app", None, under_submit=False))
    assert "spark.driver.host" not in remote
    own = SparkSettings(conf=(("spark.driver.extraJavaOptions", "-Xmx8g"),))
    options = dict(spark_conf_pairs(own, "local[2]", "app", "/tmp/l.properties", False))["spark.driver.extraJavaOptions"]
    assert options.startswith("-Dlog4j2.configurationFile=file:/tmp/l.properties") and options.endswith(" -Xmx8g")
    own = SparkSettings(conf=(("spark.executor.extraJavaOptions", "-XX:+UseG1GC"),))
    executors = dict(spark_conf_pairs(own, "local[2]", "app", None, False))["spark.executor.extraJavaOptions"]
    assert executors == "-XX:+UseG1GC"  # replaces ours whole (two collectors would stop the JVM)
    assert dict(spark_conf_pairs(SparkSettings(), "local[2]", "app", None, False))[
        "spark.executor.extraJavaOptions"] == "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
    submitted = dict(spark_conf_pairs(SparkSettings(), None, "app", "/tmp/x", under_submit=True))
    assert "spark.master" not in submitted and "spark.driver.extraJavaOptions" not in submitted


def test_a_search_done_in_the_driver_does_not_wait_for_spark(monkeypatch):
    """The lead-in finishes a small search in the driver: a Spark slow to
    give its executors (here 20 s) is not waited for; it is stopped beside,
    once up, before the next context of the process starts."""
    from modelcheck.engines.base import CheckOptions
    from modelcheck.engines.spark import SparkChecker
    from modelcheck.spark import session
    from support import model

    slow = 20.0
    original = session.wait_for_executors

    def slow_executors(*args, **kwargs):
        time.sleep(slow)
        return original(*args, **kwargs)
    monkeypatch.setattr(session, "wait_for_executors", slow_executors)
    started = time.monotonic()
    result = SparkChecker().check(model("kip320", Replicas=2, MaxLeaderEpoch=1),
                                  CheckOptions((), engine_options=SparkSettings(master="local[1]")))
    done = time.monotonic() - started
    assert result.result == "ok" and done < slow / 2, done
    assert "no level ran on Spark, which was not waited for; use --lead-in 0" in result.notes[0]
    session.stopped_beside()  # the context, once up, is stopped: none is left running
    from pyspark import SparkContext
    assert SparkContext._active_spark_context is None
