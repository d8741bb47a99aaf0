"""Qt set-up for the GUI tests (pytest-qt), and for them only.

- Qt runs offscreen; QtWebEngineWidgets is imported before any QApplication exists
  (QtWebEngine requires it), GPU off, Chromium sandbox off when running as root.
- Any QSettings made without an explicit file lands in the test's own ``ARL_HOME``.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--disable-gpu")
from app import webflags

webflags.apply()  # the program's own switches: no network at the socket level, as in app.main

import pytest  # noqa: E402

try:  # must precede the QApplication; absent Qt only skips the Qt tests
    from PySide6 import QtWebEngineWidgets  # noqa: F401
except ImportError:  # pragma: no cover
    pass


@pytest.fixture(scope="session")
def qapp_args():
    return [sys.argv[0], "--webEngineArgs", "--disable-gpu"]


@pytest.fixture(autouse=True)
def qsettings_in_arl_home(arl_home):
    """Point QSettings' user scope at the test's ARL_HOME."""
    try:
        from PySide6.QtCore import QSettings

        for fmt in (QSettings.Format.IniFormat, QSettings.Format.NativeFormat):
            QSettings.setPath(fmt, QSettings.Scope.UserScope, str(arl_home / "qsettings"))
    except ImportError:  # pragma: no cover
        pass
    return arl_home
