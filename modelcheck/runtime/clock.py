"""How long the process has been running: the ``startup`` of a command's
timings (the interpreter, the imports and the options, before the spec is
read) is measured from the moment the process started, as ``time`` would
count it, not from when modelcheck's own code began.

On Linux the kernel records when a process started (``/proc/self/stat``,
field 22, in clock ticks since boot), so this needs nothing to run early;
elsewhere it counts from when this module was first imported.
"""

from __future__ import annotations

import os
import time

_IMPORTED = time.perf_counter()


def seconds_since_start() -> float:
    """Seconds since the process started (to the clock tick, 10 ms on Linux)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read().decode()
        # the command name, field 2, is in parentheses and may hold spaces: count from after it
        started_ticks = int(stat[stat.rindex(")") + 2:].split()[19])
        since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
        return max(0.0, since_boot - started_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return time.perf_counter() - _IMPORTED
