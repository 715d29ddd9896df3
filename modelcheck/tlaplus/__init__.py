"""The TLA+ front-end: a TLA+ module and its .cfg compiled onto the same
``SpecDefinition`` a Python spec gives, so every engine, capability and
viewer works on it unchanged. Its stages (parse, resolve, lower, infer
shapes, emit) are described in docs/architecture.md.

May import: the model, the language, the runtime.
Must not import: specs, loading, engines or anything above; loading calls
it, never the other way round.
"""
