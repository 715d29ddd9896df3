"""docs/writing-specs.md's first spec, taken from the page and run as the
page runs it: the figures and the text the page shows are what modelcheck
prints."""

import os
import re

from support import ROOT, invoke, invoke_json

PAGE = os.path.join(ROOT, "docs", "writing-specs.md")


def page_blocks() -> list[str]:
    with open(PAGE, encoding="utf-8") as f:
        return re.findall(r"```(?:python|)\n(.*?)```", f.read(), re.S)


def first_spec() -> str:
    return next(b for b in page_blocks() if b.startswith("# mutex.py"))


def test_the_first_spec_prints_what_the_page_shows(in_tmp):
    (in_tmp / "mutex.py").write_text(first_spec())
    code, out, _ = invoke("run", "mutex.py", "-q")
    assert code == 12
    shown = next(b for b in page_blocks() if b.startswith("$ modelcheck run mutex.py\n"))
    expected = [line for line in shown.splitlines()[1:] if not line.startswith("  time ")]
    assert [line for line in out.splitlines() if not line.startswith("  time ")] == expected


def test_the_fix_holds_and_deadlocks_as_the_page_says(in_tmp):
    text = first_spec()
    fix = next(b for b in page_blocks() if b.startswith("@action(p=PROC)\ndef Check"))
    start, end = text.index("@action(p=PROC)\ndef Check"), text.index("@action(p=PROC)\ndef Leave")
    (in_tmp / "mutex.py").write_text(text[:start] + fix + "\n\n" + text[end:])
    code, out, _ = invoke_json("run", "mutex.py", "--const", "Proc=3", "-q")
    assert (code, out["result"], out["distinct_states"], out["depth"]) == (0, "ok", 20, 5)
    code, out, _ = invoke_json("run", "mutex.py", "--check-deadlock", "-q")
    assert code == 11 and out["violation"]["trace_length"] == 3


def test_a_misspelt_string_is_named_as_the_page_says(in_tmp):
    (in_tmp / "mutex.py").write_text(first_spec().replace('s.pc[p] == "critical"', 's.pc[p] == "critcal"'))
    code, _, err = invoke("run", "mutex.py")
    assert code == 2 and '"critcal" is not a value pc[p1] can hold' in err
