"""Shared test setup for every engineer's tests: kept minimal and general.

- Qt runs offscreen; QtWebEngineWidgets is imported before any QApplication exists
  (QtWebEngine requires it), GPU off, Chromium sandbox off when running as root.
- QSettings and the workspace (``ARL_HOME``) point at a fresh temp folder per test.
- An in-memory keyring backend replaces the OS keyring for every test and the original is
  restored afterwards; no test ever touches a real keyring.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--disable-gpu")

import pytest

try:  # must precede the QApplication; absent Qt only skips the Qt tests
    from PySide6 import QtWebEngineWidgets  # noqa: F401
except ImportError:  # pragma: no cover
    pass

import keyring
import keyring.backend
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


@pytest.fixture(scope="session")
def qapp_args():
    return [sys.argv[0], "--webEngineArgs", "--disable-gpu"]


@pytest.fixture(autouse=True)
def arl_home(tmp_path, monkeypatch):
    """A fresh ARL_HOME (settings, workspace, logs) for each test."""
    home = tmp_path / "arl-home"
    home.mkdir()
    monkeypatch.setenv("ARL_HOME", str(home))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    try:  # any QSettings made without an explicit file lands there too
        from PySide6.QtCore import QSettings

        for fmt in (QSettings.Format.IniFormat, QSettings.Format.NativeFormat):
            QSettings.setPath(fmt, QSettings.Scope.UserScope, str(home / "qsettings"))
    except ImportError:  # pragma: no cover
        pass
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
