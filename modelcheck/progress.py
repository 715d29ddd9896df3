"""Progress lines on stderr while a search runs.

Shown only when stderr is a terminal (so piped and captured runs stay
quiet), rewritten in place at most once per ``interval`` seconds.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None, interval: float = 0.5):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.interval = interval
        self.started = time.monotonic()
        self._last = 0.0
        self._shown = False

    def elapsed(self) -> float:
        return time.monotonic() - self.started

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
        if not self.enabled:
            return
        elapsed = max(self.elapsed(), 1e-9)
        self.update(f"depth {depth} · {states:,} states · queue {queue:,} · "
                    f"{states / elapsed:,.0f} states/s · {elapsed:.1f} s", force)

    def note(self, text: str) -> None:
        """A line that stays (per-level logs and the like)."""
        if not self.enabled:
            return
        self.clear()
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
