"""What the TLA+ front-end's tests share: the project's own TLA+ test modules."""

import os

MODULES = os.path.join(os.path.dirname(__file__), "modelcheck", "tlaplus", "modules")


def module_path(name: str) -> str:
    """A module or .cfg of tests/modelcheck/tlaplus/modules/."""
    return os.path.join(MODULES, name)
