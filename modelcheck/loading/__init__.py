"""What a command is asked to check: the spec (``registry``: by name, from
the entry point group ``modelcheck.specs`` installed packages and modelcheck
itself offer specs in, or from a Python file; a TLA+ module as the front-end
arrives), its constants with their defaults, a TLC .cfg (``cfgfile``, its
substitutions read against the spec's definitions) and ``--const``, the
invariants and temporal properties chosen, and the warnings about them
(``request``). Every command reads its input through here.

May import: specs, the TLA+ front-end, the model, the language, the runtime.
Must not import: search machinery, engines, capabilities, presentation,
runs or commands.
"""
