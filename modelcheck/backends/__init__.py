"""Backends evaluate the spec's expression trees: concretely (interpreter,
Python code generation), on whole frontiers (numpy) or symbolically (z3)."""
