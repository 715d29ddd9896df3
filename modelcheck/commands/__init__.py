"""The command line: ``cli`` (the click group), the options every command
shares (``options``), and one module per command that needs more than a
few lines (``sweep``, ``simulation``, ``graph``, ``prove``, ``listing``).
Each parses its options and hands them to the layers below.

May import: every layer.
Must not be imported by any of them.
"""
