"""Every exit code modelcheck uses, in one place.

The verdict codes are TLC's where TLC has one (11, 12, 13); the README's
table of exit codes is held to this module by a test.
"""

from __future__ import annotations

import signal

OK = 0  # no violation: the check passed, or a bounded check found nothing
INTERNAL_ERROR = 1  # a bug in modelcheck (the traceback with MODELCHECK_DEBUG=1)
BAD_INPUT = 2  # bad usage or input: one line on stderr, no traceback
NOT_A_BEHAVIOUR = 3  # replay: the trace is not a behaviour of the spec (or its lasso is not fair)
DEADLOCK = 11  # a state without successors, with --check-deadlock (TLC's code)
INVARIANT_VIOLATED = 12  # an invariant is violated (TLC's code); for prove, the base case fails
PROPERTY_VIOLATED = 13  # a temporal property is violated (TLC's code)
NOT_INDUCTIVE = 20  # prove: no counterexample from Init, but the induction step fails
EVALUATION_FAILED = 75  # the spec cannot be evaluated in a reached state (TLC's exit status for it)
INTERRUPTED = 130  # Ctrl-C: the report shows what was done (128 + SIGINT, as shells count)
TERMINATED = 143  # SIGTERM, handled as Ctrl-C is (128 + SIGTERM)

# what each code means, as the README's table says it
MEANINGS: dict[int, str] = {
    OK: "no violation found",
    INTERNAL_ERROR: "internal error",
    BAD_INPUT: "bad input",
    NOT_A_BEHAVIOUR: "replay: not a behaviour of the spec",
    DEADLOCK: "deadlock reached (--check-deadlock)",
    INVARIANT_VIOLATED: "invariant violated",
    PROPERTY_VIOLATED: "temporal property violated",
    NOT_INDUCTIVE: "prove: not inductive",
    EVALUATION_FAILED: "the spec cannot be evaluated (as TLC, which stops with an error)",
    INTERRUPTED: "interrupted (Ctrl-C)",
    TERMINATED: "stopped by SIGTERM, handled as Ctrl-C is",
}


def interrupted(signum: int | None) -> int:
    """The exit code of a run stopped by ``signum``: 143 for SIGTERM, else 130."""
    return TERMINATED if signum == signal.SIGTERM else INTERRUPTED
