"""A spec definition and what is built from it: ``SpecDefinition`` and the
``Model`` it instantiates with constants (Init, action instances, predicates,
``spec``), declared with parameter domains, actions and invariants
(``declarations``); a mistake in a definition placed at its part and line
(``placing``); why a state breaks an invariant (``explain``); ITF traces
(``trace``); the vocabulary viewer layouts are written in (``display``).

May import: the language, the backends, the runtime.
Must not import: specs, loading, engines or anything above.
"""
