"""A destination that names no file, or a symbolic link to nothing, is
refused before any search (one line, exit 2), not found out at the end."""

import os

import pytest

from support import ROOT, invoke, one_error_line

TRACE = os.path.join(ROOT, "traces", "kafka-clients-acks1-lost.itf.json")
RUN = ("run", "kip320", "--const", "Replicas=2")
WRITES = {"run": (*RUN, "--trace-out"), "simulate": ("simulate", "kip320", "--const", "Replicas=2", "--trace-out"),
          "show --html": ("show", TRACE, "--html"), "graph --out": ("graph", "kip320", "--const", "Replicas=2", "--out")}


def refused_before_any_work(*args) -> str:
    code, out, err = invoke(*args)
    assert code == 2 and out == "", (code, out)
    return one_error_line(err)


@pytest.mark.parametrize("command", WRITES)
@pytest.mark.parametrize("name", ["", " "])
def test_an_empty_destination_is_refused(in_tmp, command, name):
    assert "needs a name" in refused_before_any_work(*WRITES[command], name)


@pytest.mark.parametrize("command", WRITES)
@pytest.mark.parametrize("overwrite", [(), ("--overwrite",)], ids=["", "overwrite"])
def test_a_dangling_symlink_is_refused(in_tmp, command, overwrite):
    target = "gone/away.itf.json" if command != "graph --out" else "gone/away.dot"
    link = "link" + os.path.splitext(target)[1]
    os.symlink(target, link)
    line = refused_before_any_work(*WRITES[command], link, *overwrite)
    assert f"is a symbolic link to {target}, which does not exist" in line
    assert os.path.islink(link) and not os.path.exists("gone")


def test_an_empty_trace_dir_is_refused_not_replaced_by_the_default(in_tmp):
    line = refused_before_any_work("sweep", "kip320", "--const", "Replicas=2", "--vary", "LogSize=1,2",
                                   "--trace-dir", "")
    assert "--trace-dir needs a name; it was given ''" in line
    assert not os.path.exists("modelcheck-out")
