"""Shared test setup for every test, engine and app alike: kept minimal and general.

- The workspace and settings (``ARL_HOME``) point at a fresh temp folder per test, and
  ``OPENAI_API_KEY`` is unset, so no test sees the developer's own.
- An in-memory keyring backend replaces the OS keyring for every test and the original is
  restored afterwards; no test ever touches a real keyring.

Qt set-up lives in ``tests/app/conftest.py`` and applies to the GUI tests only, so an engine
test file runs alone without Qt (``uv run pytest tests/engine/test_html5lib_conformance.py``).
"""

from __future__ import annotations

import keyring
import keyring.backend
import pytest
from keyring.errors import PasswordDeleteError


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring that keeps passwords in a dict for the life of one test."""

    priority = 1

    def __init__(self):
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.passwords.get((service, username))

    def set_password(self, service, username, password):
        self.passwords[(service, username)] = password

    def delete_password(self, service, username):
        try:
            del self.passwords[(service, username)]
        except KeyError:
            raise PasswordDeleteError("no such password") from None


@pytest.fixture(autouse=True)
def arl_home(tmp_path, monkeypatch):
    """A fresh ARL_HOME (settings, workspace, logs) for each test."""
    home = tmp_path / "arl-home"
    home.mkdir()
    monkeypatch.setenv("ARL_HOME", str(home))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return home


@pytest.fixture(autouse=True)
def memory_keyring():
    """Install an in-memory keyring backend; restore the original afterwards."""
    original = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(original)
