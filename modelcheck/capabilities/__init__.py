"""What a run asks of an engine beside invariants, each in a module of its own
with the hook the engine calls and the request checks: symmetry
(``symmetry``), temporal properties on the state graph (``liveness/``),
coverage (``coverage``), proofs by induction (``induction``), a VIEW
(``view``) and evaluating a named state (``evaluation``).

May import: the engines (their contract and registry), search machinery,
the model, the language, the backends, the runtime.
Must not import: presentation, runs or commands.
"""
