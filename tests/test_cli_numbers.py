"""Numbers are ASCII digits, and finite: nan, inf and other scripts' digits
(which Python's int and float accept) are refused in one line, exit 2."""

import pytest

from support import invoke, one_error_line
from modelcheck.engines.settings import FastSettings
from modelcheck.errors import InputError

RUN = ("run", "kip320", "--const", "Replicas=2")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999", "٣"])
def test_checkpoint_every_must_be_a_finite_number(in_tmp, value):
    code, out, err = invoke(*RUN, "--checkpoint", "ck", "--checkpoint-every", value)
    assert code == 2 and out == ""
    assert "'--checkpoint-every'" in one_error_line(err) and "not a valid finite number" in one_error_line(err)


def test_settings_built_in_code_refuse_nan_too():
    with pytest.raises(InputError, match="positive number"):
        FastSettings(checkpoint="ck", checkpoint_every=float("nan"))


@pytest.mark.parametrize("args, said", [
    (("--const", "LogSize=٣"), "constant LogSize must be an integer, got '٣'"),
    (("--const", "Replicas=٢"), "Replicas must be a count"),
    (("--max-depth", "٣"), "'٣' is not a valid integer"),
    (("--max-states", "１０"), "'１０' is not a valid integer"),
    (("--max-memory", "٢G"), "--max-memory expects a size"),
])
def test_only_ascii_digits_are_numbers(in_tmp, args, said):
    code, out, err = invoke(*RUN, *args)
    assert code == 2 and out == ""
    assert said in one_error_line(err)


def test_a_cfg_with_other_digits_names_its_line(in_tmp):
    (in_tmp / "m.cfg").write_text("CONSTANTS\n  LogSize = ٣\n", encoding="utf-8")
    code, _, err = invoke("run", "kip320", "--config", "m.cfg")
    assert code == 2 and "m.cfg:2:" in one_error_line(err)


def test_ascii_numbers_still_work(in_tmp):
    code, out, err = invoke(*RUN, "--const", "LogSize=+1", "--max-depth", " 3", "--checkpoint", "ck",
                            "--checkpoint-every", "0.5", "--json")
    assert code == 0, err
