"""Resource limits on input: sizes are checked before anything is built from
them, error lines stay short, and malformed input of any size is exit 2."""

import json
import resource
import subprocess
import sys

import pytest

from support import ROOT, invoke, one_error_line

SHORT = 200  # characters an error line may take


def short_error(code, err) -> str:
    assert code == 2
    line = one_error_line(err)
    assert len(line) < SHORT, line[:300]
    return line


def run_limited(*args, cwd) -> str:
    """The CLI in a process limited to 2 GiB of address space and 20 s (a
    huge count built before it is checked would exhaust one or the other);
    returns its one short error line."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    proc = subprocess.run([sys.executable, "-c", "from cli import main; main()", *args], cwd=cwd,
                          env={"PYTHONPATH": ROOT, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                          timeout=20, preexec_fn=limit)
    return short_error(proc.returncode, proc.stderr)


@pytest.mark.parametrize("value", ["10000000", "99999999999999999999999999", "1" + "0" * 5000],
                         ids=["ten-million", "26-digits", "5001-digits"])
def test_a_huge_replica_count_is_refused_before_anything_is_built(tmp_path, value):
    line = run_limited("run", "kip320", "--const", f"Replicas={value}", cwd=tmp_path)
    assert "Replicas can be at most 8" in line


def test_a_long_replica_set_gives_a_short_line(in_tmp):
    names = ",".join(f"a{i}" for i in range(20000))
    line = short_error(*invoke("run", "kip320", "--const", f"Replicas={{{names}}}")[::2])
    assert "at most 8" in line


def test_a_huge_integer_constant_is_refused_in_a_short_line(in_tmp):
    line = short_error(*invoke("run", "kip320", "--const", "LogSize=" + "9" * 100000)[::2])
    assert "LogSize can be at most 16" in line


def test_a_huge_count_in_a_cfg_names_the_file_and_line(in_tmp):
    (in_tmp / "m.cfg").write_text("CONSTANTS\n  LogSize = 2\n  Replicas = 99999999999999999999999999\n")
    line = run_limited("run", "kip320", "--config", "m.cfg", cwd=in_tmp)
    assert "m.cfg:3: Replicas can be at most 8" in line


def test_a_wrong_type_in_a_cfg_names_the_file_and_line(in_tmp):
    (in_tmp / "m.cfg").write_text("CONSTANTS\n  Replicas = 2\n  LogSize = lots\n")
    line = short_error(*invoke("run", "kip320", "--config", "m.cfg")[::2])
    assert "m.cfg:3: constant LogSize must be an integer" in line


def test_a_cfg_with_a_byte_order_mark_is_read(in_tmp):
    (in_tmp / "m.cfg").write_bytes("\ufeffCONSTANTS\n  Replicas = 2\n".encode("utf-8"))
    code, out, err = invoke("run", "kip320", "--config", "m.cfg", "--json")
    assert code == 0, err
    assert json.loads(out)["constants"]["Replicas"] == ["r1", "r2"]


def itf_with_replicas(names) -> dict:
    return {"#meta": {"modelcheck": {"spec": "kip320", "constants": {"Replicas": names}}},
            "vars": [], "states": [{"#meta": {"index": 0}}]}


def test_a_huge_replica_set_in_a_trace_is_refused_in_a_short_line(in_tmp):
    (in_tmp / "t.json").write_text(json.dumps(itf_with_replicas({"#set": [f"a{i}" for i in range(100000)]})))
    line = short_error(*invoke("show", "t.json")[::2])
    assert "at most 8" in line


@pytest.mark.parametrize("text, fragment", [
    ('{"states": [{"x": ' + "9" * 100000 + "}]}", "number too long"),
    ("[" * 200000 + "]" * 200000, "nested too deeply"),
    ('{"states": [{"x": ' + "[" * 50000 + "]" * 50000 + "}]}", "nested too deeply"),
], ids=["long-integer", "deep-list", "deep-value"])
def test_malformed_traces_of_any_size_give_one_line(in_tmp, text, fragment):
    (in_tmp / "t.json").write_text(text)
    for command in (("show", "t.json"), ("replay", "kip320", "t.json")):
        line = short_error(*invoke(*command)[::2])
        assert fragment in line


def test_an_impossible_cluster_state_directory_is_exit_2(tmp_path):
    line = short_error(*invoke("cluster", "start", "--state-dir", "/proc/nonexistent/x")[::2])
    assert "--state-dir /proc/nonexistent/x" in line
