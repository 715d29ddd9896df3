"""Engines behind one interface: ``check(model, options) -> CheckResult``."""

from __future__ import annotations

from modelcheck.errors import InputError


def engine_names() -> list[str]:
    return ["bfs"]


def get_engine(name: str):
    if name == "bfs":
        from modelcheck.engines.bfs import BfsChecker
        return BfsChecker()
    raise InputError(f"unknown engine {name!r} (engines: {', '.join(engine_names())})")
