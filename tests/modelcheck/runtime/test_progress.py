"""Progress on stderr: rewritten in place on a terminal, a line a minute in a log."""

import io

from modelcheck.runtime import progress
from modelcheck.runtime.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_the_line_rewritten_in_place():
    out = Terminal()
    p = Progress(out)
    p.search(3, 1200, 40, force=True)
    assert out.getvalue().startswith("\r\x1b[2Kdepth 3 · 1,200 states · queue 40")


def test_a_log_gets_a_plain_line_once_a_minute(monkeypatch):
    log = io.StringIO()
    p = Progress(log)
    p.search(3, 1200, 40, force=True)
    assert log.getvalue() == ""  # a short run leaves its log as it was
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)
    p.search(4, 5000, 90, force=True)
    lines = log.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("progress: depth 4 · 5,000 states · queue 90")
    assert "\x1b" not in log.getvalue()


def test_quiet_means_nothing_at_all(monkeypatch):
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)
    for stream in (io.StringIO(), Terminal()):
        p = Progress(stream, enabled=False)
        p.search(4, 5000, 90, force=True)
        p.note("checkpoint saved")
        assert stream.getvalue() == ""


def test_a_resumed_search_shows_the_rate_of_what_it_found_since_it_went_on(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    out = Terminal()
    p = Progress(out)
    clock[0] = 300.0  # 200 s reading a checkpoint of a million states
    p.resumed(1_000_000)
    clock[0] = 310.0
    p.search(9, 1_050_000, 10, force=True)
    # 50,000 found in the 10 s since: not 1,050,000 / 210 s, nor 50,000 / 210 s
    assert "5,000 states/s · 210.0 s" in out.getvalue()


def test_the_line_counts_from_the_search_s_start_not_the_command_s(monkeypatch):
    """Reading the spec and making the model and kernels come before the
    search: its seconds and rate count from restart()."""
    clock = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    out = Terminal()
    p = Progress(out)
    clock[0] += 10.0  # the model and its kernel
    p.restart()
    clock[0] += 2.0
    p.search(5, 4000, 10, force=True)
    assert out.getvalue().endswith("depth 5 · 4,000 states · queue 10 · 2,000 states/s · 2.0 s")


def test_a_status_before_the_search_is_shown_on_a_terminal_only():
    out, log = Terminal(), io.StringIO()
    for stream in (out, log):
        Progress(stream).status("building the model of kip320 for these constants")
    assert out.getvalue() == "\r\x1b[2Kbuilding the model of kip320 for these constants" and log.getvalue() == ""


def test_an_announcement_reaches_a_log_too_but_not_a_quiet_run():
    out, log, quiet = Terminal(), io.StringIO(), io.StringIO()
    Progress(out).announce("building the C kernel")
    Progress(log).announce("building the C kernel")
    Progress(quiet, enabled=False).announce("building the C kernel")
    assert out.getvalue().endswith("building the C kernel\n") and log.getvalue() == "building the C kernel\n"
    assert quiet.getvalue() == ""
