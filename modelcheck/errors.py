"""The two kinds of failure modelcheck tells apart.

``InputError`` is the user's to fix (an unknown spec, a bad constant, a
malformed file). The CLI prints its message as one line and exits with 2.
``SpecDefinitionError`` means a spec module is written wrongly; it surfaces
when the spec is loaded, before any state is explored.
"""


class InputError(Exception):
    """Bad input from the user: reported as one line, exit code 2."""


class SpecDefinitionError(Exception):
    """A mistake in a spec definition, caught when the spec is built."""


class TraceFormatError(InputError):
    """A trace file that cannot be read as a trace of the given spec."""


SHOWN_IN_FULL = 10  # a list of names up to this long is given whole in an error; a longer one closest first
SHOWN_CLOSEST = 5


def no_such(what: str, name: str, known, listed: str) -> str:
    """The message for a name that is not among ``known``: ``what`` says
    what is missing ("kip320 has no invariant"), ``listed`` how the names
    are introduced ("its invariants"). The closest name is suggested ("did
    you mean StrongIsr?"); a long list is cut to the closest names, the
    rest counted."""
    known = list(known)
    ranked = sorted(known, key=lambda k: -_likeness(name, k))
    close = [k for k in ranked if _likeness(name, k) >= 0.6]
    message = f"{what} {name!r}"
    if close:
        message += f"; did you mean {close[0]}?"
    if not known:
        return message + f" ({listed}: none)"
    if len(known) <= SHOWN_IN_FULL:
        return message + f" ({listed}: {', '.join(known)})"
    shown, order = (ranked, ", closest first") if close else (known, "")  # nothing alike: as declared
    shown = shown[:SHOWN_CLOSEST]
    return message + (f" ({listed}{order}: {', '.join(shown)} and {len(known) - len(shown)} more; "
                      f"`modelcheck list` shows them all)")


def _likeness(given: str, known: str) -> float:
    """How alike two names are, case aside (difflib's ratio; an exact match but for case is 1)."""
    import difflib
    return difflib.SequenceMatcher(None, given.lower(), known.lower()).ratio()
