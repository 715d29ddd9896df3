"""What `pip install .` installs: modelcheck's packages, the built-in specs
among them as modelcheck.specs (the specs/ folder, which modelcheck/specs
links to), the `cli` module of the console script, and no top-level
`specs` package that would shadow a user's own."""

import os
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_configuration_installs_the_specs_under_modelcheck():
    from setuptools.config.setupcfg import read_configuration
    options = read_configuration(os.path.join(ROOT, "setup.cfg"))["options"]
    packages = set(options["packages"])
    assert {"modelcheck", "modelcheck.specs", "modelcheck.specs.kraft"} <= packages
    assert all(p == "modelcheck" or p.startswith("modelcheck.") for p in packages)
    assert options["py_modules"] == ["cli"]


def test_the_wheel_holds_the_specs_as_modelcheck_specs_and_no_top_level_specs(tmp_path):
    """A wheel built from a copy of the tree (building in place would leave
    build/ behind), the way `pip install .` builds one."""
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__",
                                                  ".pytest_cache", ".hypothesis", "modelcheck-out", "site"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"),
                           str(source)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0 and "No matching distribution found for setuptools" in done.stderr:
        pytest.skip("pip cannot fetch the build backend (setuptools) here")
    assert done.returncode == 0, done.stderr
    [wheel] = os.listdir(tmp_path / "dist")
    names = zipfile.ZipFile(tmp_path / "dist" / wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"cli.py", "modelcheck", wheel.split("-py3")[0] + ".dist-info"}
    assert {"modelcheck/specs/__init__.py", "modelcheck/specs/kip320.py",
            "modelcheck/specs/kraft/kafka_replication_v3_5.py"} <= set(names)
    top_level = zipfile.ZipFile(tmp_path / "dist" / wheel).read(
        wheel.split("-py3")[0] + ".dist-info/top_level.txt").decode().split()
    assert sorted(top_level) == ["cli", "modelcheck"]
