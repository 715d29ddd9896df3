"""Test setup: the repository and this folder on sys.path, and shared fixtures."""

import os
import sys

import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
for path in (ROOT, TESTS):
    if path not in sys.path:
        sys.path.insert(0, path)


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in an empty directory, so default trace files land there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
