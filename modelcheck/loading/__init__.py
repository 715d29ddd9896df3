"""What a command is asked to check: the spec (by name today; from a Python
file, an installed package's entry point or a TLA+ module as those arrive),
its constants with their defaults, a TLC .cfg (``cfgfile``) and ``--const``,
the invariants and temporal properties chosen, and the warnings about them
(``request``). Every command reads its input through here.

May import: specs, the TLA+ front-end, the model, the language, the runtime.
Must not import: search machinery, engines, capabilities, presentation,
runs or commands.
"""
