"""Backends evaluate the spec's expression trees: concretely (Python code
generation; the plain reference reading is ``modelcheck.language.interpreter``), on whole frontiers (numpy) or symbolically (z3).

May import: the language.
Must not import: the model, specs or anything above.
"""
