import os
import subprocess
import sys
import time
import zipfile

import pytest

from spark_support import free_port
from modelcheck.engines.spark import check_code_origin
from modelcheck.errors import InputError
from modelcheck.spark.blocks import LevelSummary
from modelcheck.spark.session import DaemonShutdownFilter, build_code_zip, check_master_reachable, log4j_config, spark_conf_pairs
from modelcheck.spark.settings import SparkSettings


def test_code_zip_holds_the_packages_the_driver_runs(tmp_path):
    path = build_code_zip(str(tmp_path))
    names = zipfile.ZipFile(path).namelist()
    for module in ("modelcheck/__init__.py", "modelcheck/spark/blocks.py", "specs/kip320.py"):
        assert module in names and module + "c" in names
    assert not any("__pycache__" in n for n in names)
    assert build_code_zip(str(tmp_path)) == path  # same code, same name


def test_executors_import_the_zip_even_beside_another_checkout(tmp_path):
    """What a Python worker does: the zip on sys.path, started in a directory
    that holds a different modelcheck package."""
    path = build_code_zip(str(tmp_path))
    decoy = tmp_path / "checkout" / "modelcheck"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise ImportError('the decoy was imported')\n")
    env = dict(os.environ, PYTHONSAFEPATH="1")
    env.pop("PYTHONPATH", None)
    code = (f"import sys; sys.path.insert(1, {path!r}); import modelcheck.spark.blocks as b; "
            f"print(b.__file__)")
    done = subprocess.run([sys.executable, "-c", code], cwd=str(decoy.parent), env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(os.path.join(path, "modelcheck", "spark", "blocks.py"))


def test_a_foreign_origin_stops_the_run():
    def summary(origin):
        return LevelSummary(0, 1, 1, 1, 1, None, (), None, origin)
    check_code_origin([summary("/tmp/x/modelcheck-code-ab.zip/modelcheck/__init__.py")], "modelcheck-code-ab.zip")
    with pytest.raises(RuntimeError, match="imported modelcheck from /work/modelcheck"):
        check_code_origin([summary("/work/modelcheck/__init__.py")], "modelcheck-code-ab.zip")


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
    submitted = dict(spark_conf_pairs(SparkSettings(), None, "app", "/tmp/x", under_submit=True))
    assert "spark.master" not in submitted and "spark.driver.extraJavaOptions" not in submitted


def test_log_levels():
    assert "rootLogger.level = warn" in log4j_config(False, False)
    assert "NativeCodeLoader" in log4j_config(False, False)
    assert "rootLogger.level = info" in log4j_config(True, False)
    assert "must not be on the local filesystem" in log4j_config(False, True)


def test_jvm_output_filter_drops_only_daemon_shutdown_noise():
    f = DaemonShutdownFilter(("WARNING: Using incubator",))
    noise = ["Traceback (most recent call last):\n",
             '  File ".../pyspark.zip/pyspark/daemon.py", line 95, in worker\n',
             "BrokenPipeError: [Errno 32] Broken pipe\n"]
    real = ["Traceback (most recent call last):\n", '  File "x.py", line 1, in f\n', "ValueError: bad\n"]
    out = [line for text in ["WARNING: Using incubator modules\n", *noise, "spark: WARN x\n", *real]
           for line in f.feed(text)]
    assert out == ["spark: WARN x\n", *real]
