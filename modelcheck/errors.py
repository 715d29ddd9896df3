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
