"""Shared test setup for every test, engine and app alike: kept minimal and general.

- The workspace and settings (``ARL_HOME``) point at a fresh temp folder per test, and
  ``OPENAI_API_KEY`` is unset, so no test sees the developer's own.
- An in-memory keyring backend replaces the OS keyring for every test and the original is
  restored afterwards; no test ever touches a real keyring.

Qt set-up lives in ``tests/app/conftest.py`` and applies to the GUI tests only, so an engine
test file runs alone without Qt (``uv run pytest tests/engine/test_html5lib_conformance.py``).

On a machine without Qt's system libraries (a fresh Linux install), every GUI test module
(``tests/app``) is reported skipped with one reason, the missing libraries and the command
that installs them (``engine.system_libs``, the same check the program makes before it
starts), written once at the end of the run; pytest-qt, which would import Qt at start-up and
stop the whole run with an ``INTERNALERROR``, is not loaded. CI sets
``ARL_REQUIRE_QT_TESTS=1``: there the same situation stops the run with that line instead.
"""

from __future__ import annotations

import os
from pathlib import Path

import keyring
import keyring.backend
import pytest
from hypothesis import HealthCheck, settings
from keyring.errors import PasswordDeleteError

# Hypothesis profiles for the property tests (tests/engine/test_deleted_span_properties.py):
# "ci", the default, is derandomized (a fixed seed: the same examples every run) and
# bounded; "long" draws thousands of fresh examples, on demand:
#   uv run pytest tests/engine/test_deleted_span_properties.py --hypothesis-profile=long
# or ARL_HYPOTHESIS_PROFILE=long. Neither has a per-example deadline (CI machines are slow).
settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "long",
    max_examples=3000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile(os.environ.get("ARL_HYPOTHESIS_PROFILE", "ci"))


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


# -- Qt's system libraries: without them the GUI tests are skipped, with the reason ----------

_APP_TESTS = Path(__file__).resolve().parent / "app"
_QT_MISSING: str | None = None


def _qt_missing_line() -> str | None:
    """One line naming the system libraries Qt lacks here for the GUI tests (offscreen) and
    for the window (xcb), with the one command that installs both; None when none lack."""
    from engine.system_libs import missing_for

    found = missing_for(["offscreen", "xcb"])
    if found is None:
        return None
    missing, command = found
    return (
        f"Qt needs system libraries that are missing here: {', '.join(missing)}. "
        f"Install them with: {command}"
    )


def pytest_addhooks(pluginmanager):
    """Runs when this file is loaded, before any plugin's pytest_configure: without Qt's
    system libraries, unload pytest-qt (its pytest_configure imports Qt and would stop the
    run) unless CI requires the GUI tests."""
    global _QT_MISSING
    _QT_MISSING = _qt_missing_line()
    if _QT_MISSING is None or os.environ.get("ARL_REQUIRE_QT_TESTS"):
        return
    plugin = pluginmanager.get_plugin("pytest-qt")
    if plugin is not None:
        pluginmanager.unregister(plugin)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if _QT_MISSING is not None and os.environ.get("ARL_REQUIRE_QT_TESTS"):
        raise pytest.UsageError(f"the GUI tests cannot run (ARL_REQUIRE_QT_TESTS): {_QT_MISSING}")


class _NeedsQt(pytest.Module):
    """A GUI test module on a machine without Qt's system libraries: skipped unimported."""

    def collect(self):
        raise pytest.skip.Exception(f"GUI tests skipped: {_QT_MISSING}")


def pytest_pycollect_makemodule(module_path, parent):
    if _QT_MISSING is not None and module_path.is_relative_to(_APP_TESTS):
        return _NeedsQt.from_parent(parent, path=module_path)
    return None


def pytest_terminal_summary(terminalreporter):
    if _QT_MISSING is not None:
        terminalreporter.write_line(
            f"GUI tests (tests/app) skipped: {_QT_MISSING}", yellow=True, bold=True
        )
