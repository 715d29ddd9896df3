"""The table of exit codes in docs/running.md is the one in modelcheck/exitcodes.py."""

import os
import re

from modelcheck import exitcodes
from support import ROOT


def documented_table() -> dict[int, str]:
    text = open(os.path.join(ROOT, "docs", "running.md"), encoding="utf-8").read()
    section = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    return {int(code): meaning.strip() for code, meaning in re.findall(r"^\| (\d+) \| (.+?) \|$", section, re.M)}


def test_the_documented_table_is_the_exit_codes_module():
    assert documented_table() == exitcodes.MEANINGS


def test_the_codes_are_distinct():
    codes = [v for k, v in vars(exitcodes).items() if k.isupper() and isinstance(v, int)]
    assert len(codes) == len(set(codes)) == len(exitcodes.MEANINGS)


def test_the_readme_summary_names_only_real_codes():
    """The README lists the common codes in a sentence and links the table;
    each code it names must mean what the module says (first words agree)."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    summary = text.split("(docs/running.md#exit-codes) (", 1)[1].split(")", 1)[0]
    named = re.findall(r"(\d+) ([a-z ]+?)(?:,|$)", " ".join(summary.split()))
    assert len(named) >= 6
    for code, words in named:
        meaning = exitcodes.MEANINGS[int(code)]
        assert meaning.split()[0] == words.split()[0] or (int(code) == exitcodes.OK and words == "ok"), (code, words)
