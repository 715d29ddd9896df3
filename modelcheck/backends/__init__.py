"""Backends evaluate the spec's expression trees: concretely (Python code
generation; the plain reference reading is ``modelcheck.language.interpreter``), on whole frontiers (numpy) or symbolically (z3); C is built by the system
compiler into shared libraries, cached and checked before they are loaded
(``native``).

May import: the language and the runtime.
Must not import: the model, specs or anything above.
"""
