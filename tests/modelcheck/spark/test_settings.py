import pytest

from modelcheck.errors import InputError
from modelcheck.spark.settings import (SparkSettings, check_master, is_loopback_master, parse_conf,
                                       standalone_addresses)


@pytest.mark.parametrize("master", ["local", "local[2]", "local[*]", "local[2,3]", "spark://127.0.0.1:7077",
                                    "spark://a.example:7077,b.example:7078", "spark://[::1]:7077"])
def test_accepted_masters(master):
    check_master(master)


@pytest.mark.parametrize("master, fragment", [
    ("yarn", "spark-submit"),
    ("local[0]", "expected"),
    ("spark://127.0.0.1", "is not HOST:PORT"),
    ("spark://127.0.0.1:99999", "is not HOST:PORT"),
    ("http://127.0.0.1:7077", "expected"),
])
def test_rejected_masters(master, fragment):
    with pytest.raises(InputError, match=fragment):
        check_master(master)


def test_standalone_addresses_and_loopback():
    assert standalone_addresses("spark://a:1,b:2") == [("a", 1), ("b", 2)]
    assert standalone_addresses("local[2]") == []
    assert is_loopback_master("local[*]") and is_loopback_master("spark://127.0.0.1:7077")
    assert not is_loopback_master("spark://10.1.2.3:7077")


@pytest.mark.parametrize("options, fragment", [
    ({"partitions": 0}, "--partitions"),
    ({"checkpoint_levels": 0}, "--checkpoint-levels"),
    ({"conf": ["executor.memory=1g"]}, "start with 'spark.'"),
    ({"conf": ["spark.executor.memory"]}, "KEY=VALUE"),
    ({"checkpoint_every": 60.0}, "--checkpoint-every does not apply to --engine spark"),
])
def test_bad_options(options, fragment):
    with pytest.raises(InputError, match=fragment):
        SparkSettings.from_engine_options(options)


def test_checkpoint_dir_must_be_a_directory(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(InputError, match="not a directory"):
        SparkSettings(checkpoint_dir=str(f))
    with pytest.raises(InputError, match="does not exist"):
        SparkSettings(checkpoint_dir=str(tmp_path / "no" / "such"))
    SparkSettings(checkpoint_dir=str(tmp_path / "new"))  # created when the run starts
    with pytest.raises(InputError, match="keeps its visited set in files there"):
        SparkSettings(checkpoint_dir="hdfs://namenode:8020/modelcheck")  # executors open the runs by path


def test_options_become_settings():
    s = SparkSettings.from_engine_options({"master": "local[2]", "partitions": 3, "conf": ("spark.a=b ",),
                                           "verbose": None})
    assert (s.master, s.partitions, s.conf, s.verbose) == ("local[2]", 3, (("spark.a", "b"),), False)
    assert parse_conf([("spark.x", "1")]) == (("spark.x", "1"),)
