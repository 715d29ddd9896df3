import os
import stat

import pytest

from modelcheck.errors import InputError
from modelcheck.spark.java import MINIMUM_JAVA, parse_major, require_java


@pytest.mark.parametrize("text, major", [
    ('openjdk version "17.0.15" 2025-04-15', 17),
    ('java version "1.8.0_292"', 8),
    ('openjdk version "21" 2023-09-19', 21),
    ("no version here", None),
])
def test_parse_major(text, major):
    assert parse_major(text) == major


def test_the_java_spark_will_use_is_found():
    java = require_java()
    assert java.major >= MINIMUM_JAVA and os.path.isabs(java.path)


def test_no_java_is_one_clear_message(tmp_path):
    with pytest.raises(InputError) as e:
        require_java({"PATH": str(tmp_path)})
    assert "needs Java 17" in str(e.value) and "no 'java' on PATH" in str(e.value)
    with pytest.raises(InputError, match="has no bin/java"):
        require_java({"PATH": str(tmp_path), "JAVA_HOME": str(tmp_path)})


def test_an_old_java_is_refused(tmp_path):
    fake = tmp_path / "bin" / "java"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\necho \'openjdk version "11.0.2" 2019-01-15\' >&2\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(InputError, match="is Java 11"):
        require_java({"PATH": os.environ["PATH"], "JAVA_HOME": str(tmp_path)})
