"""How to install an optional part of modelcheck (an extra, such as
``spark``). modelcheck is installed from a clone of its repository (it is
not on PyPI), so the command names the clone's extra, and the packages
themselves for an installation whose clone is gone."""

from __future__ import annotations


def install_command(extra: str, modules: tuple[str, ...] = ()) -> str:
    """"pip install '.[spark]' in the modelcheck clone (or pip install 'pyspark>=3.5' 'psutil>=5.9')"."""
    packages = " ".join(f"'{r}'" for r in requirements(extra)) or " ".join(modules)
    return f"pip install '.[{extra}]' in the modelcheck clone (or pip install {packages})"


def requirements(extra: str) -> list[str]:
    """The extra's requirements as the installed metadata lists them ("pyspark>=3.5"), or none known."""
    try:
        from importlib.metadata import PackageNotFoundError, requires
        listed = requires("modelcheck") or []
    except (ImportError, PackageNotFoundError):
        return []
    marker = f'extra == "{extra}"'
    return [r.split(";")[0].strip() for r in listed if marker in r]
