"""Progress lines on stderr while a search runs.

On a terminal the line is rewritten in place at most once per ``interval``
seconds. When stderr is not a terminal (a run in the background, its
stderr in a log file), a plain line is added once a minute instead, as TLC
does, so a long run shows how it goes; shorter runs, and piped or captured
ones, stay quiet, but for a line before a slow step a run takes only now
and then (``announce``: building the C kernel for new constants).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


LOG_INTERVAL = 60.0  # seconds between progress lines written to a file or pipe


class Progress:
    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None, interval: float = 0.5):
        self.stream = stream or sys.stderr
        terminal = self.stream.isatty()
        self.terminal = terminal
        self.enabled = terminal if enabled is None else enabled
        # not a terminal, and not told to be quiet: a line a minute (``search``)
        self.logging = enabled is None and not terminal
        self.interval = interval
        self.started = time.monotonic()
        self._last = 0.0
        self._logged = self.started
        self._shown = False
        self.carried = 0  # states a resumed search started with: its rate counts only those it finds
        self.searching_since = self.started  # and only the time since it went on (``resumed``)

    def restart(self) -> None:
        """The search starts now: its line's seconds and rate count from here,
        not from the reading of the spec and the making of the model and kernels."""
        self.started = self.searching_since = self._logged = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def resumed(self, carried: int) -> None:
        """A search read back from a checkpoint goes on from here with
        ``carried`` states: the rate shown is of the states it finds itself,
        in the time it searches, not the time the checkpoint took to read."""
        self.carried = carried
        self.searching_since = time.monotonic()

    def rate(self, states: int) -> float:
        return max(0, states - self.carried) / max(time.monotonic() - self.searching_since, 1e-9)

    def update(self, text: str, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < self.interval:
            return
        self._last = now
        self.stream.write("\r\x1b[2K" + text)
        self.stream.flush()
        self._shown = True

    def search(self, depth: int, states: int, queue: int, force: bool = False) -> None:
        """The standard line for a state-space search."""
        if not (self.enabled or self.logging):
            return
        elapsed = max(self.elapsed(), 1e-9)
        line = (f"depth {depth} · {states:,} states · queue {queue:,} · "
                f"{self.rate(states):,.0f} states/s · {elapsed:.1f} s")
        if self.logging:
            now = time.monotonic()
            if now - self._logged >= LOG_INTERVAL:
                self._logged = now
                self.stream.write(f"progress: {line}\n")
                self.stream.flush()
            return
        self.update(line, force)

    def note(self, text: str) -> None:
        """A line that stays (per-level logs and the like)."""
        if not self.enabled:
            return
        self.clear()
        self.stream.write(text + "\n")
        self.stream.flush()

    def status(self, text: str) -> None:
        """What a run is doing before its search starts ("building the
        model"), on a terminal only, rewritten in place by what comes next."""
        if self.enabled and self.terminal:  # not counted as a progress line: the search's first is shown at once
            self.stream.write("\r\x1b[2K" + text)
            self.stream.flush()
            self._shown = True

    def announce(self, text: str) -> None:
        """A line said before something slow that a run does only now and
        then (building a kernel): kept on a terminal, and written to a log
        or pipe too, where progress lines are not; nothing with --quiet."""
        if self.enabled:
            self.note(text)
        elif self.logging:
            self.stream.write(text + "\n")
            self.stream.flush()

    def clear(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._shown = False


class Silent(Progress):
    def __init__(self):
        super().__init__(enabled=False)
