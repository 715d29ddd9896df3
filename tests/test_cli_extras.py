"""Spark is an extra: without pyspark and psutil everything else works, and
whatever needs them says so in one line, with the command that installs them."""

import pytest

from support import one_error_line, run_subprocess


@pytest.fixture
def without_spark(tmp_path):
    """PYTHONPATH under which pyspark and psutil cannot be imported."""
    for name in ("pyspark", "psutil"):
        shadow = tmp_path / "shadow" / name
        shadow.mkdir(parents=True)
        (shadow / "__init__.py").write_text(f"raise ImportError('{name} is not installed here')\n")
    return {"PYTHONPATH": str(tmp_path / "shadow")}


@pytest.mark.parametrize("args, what", [
    (["run", "kip320", "--engine", "spark"], "--engine spark"),
    (["simulate", "kip320", "--engine", "spark", "--num", "1"], "--engine spark"),
    (["cluster", "start"], "modelcheck cluster"),
    (["cluster", "status"], "modelcheck cluster"),
])
def test_what_needs_spark_says_how_to_install_it(tmp_path, without_spark, args, what):
    done = run_subprocess(*args, cwd=str(tmp_path), env=without_spark, timeout=60)
    assert done.returncode == 2
    line = one_error_line(done.stderr)
    assert line.startswith(f"modelcheck: error: {what} needs pyspark")
    # modelcheck is not on PyPI: the clone's extra, or the packages themselves
    assert line.endswith("pip install '.[spark]' in the modelcheck clone (or pip install 'pyspark>=3.5' "
                         "'psutil>=5.9')")


def test_everything_else_runs_without_spark(tmp_path, without_spark):
    done = run_subprocess("run", "kip320", "--const", "Replicas=2", "--json", cwd=str(tmp_path), env=without_spark,
                          timeout=120)
    assert done.returncode == 0 and '"distinct_states": 5973' in done.stdout
    help_text = run_subprocess("--help", cwd=str(tmp_path), env=without_spark, timeout=60)
    assert help_text.returncode == 0 and "cluster" in help_text.stdout
