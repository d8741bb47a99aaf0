"""Qt set-up for the GUI tests (pytest-qt), and for them only.

- Qt runs offscreen; QtWebEngineWidgets is imported before any QApplication exists
  (QtWebEngine requires it), GPU off, Chromium sandbox off when running as root.
- Any QSettings made without an explicit file lands in the test's own ``ARL_HOME``.
"""

from __future__ import annotations

import asyncio
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


@pytest.fixture(autouse=True)
def garbage_collected_on_the_ui_thread():
    """As in the program (``app.jobs.collect_garbage_on_ui_thread``): no automatic garbage
    collection while a GUI test runs, so a worker thread never destroys a Qt object (that
    crashed the suite with a segmentation fault); the test's garbage is collected here,
    on the main thread, after its widgets are closed."""
    import gc

    was = gc.isenabled()
    gc.disable()
    yield
    gc.collect()
    if was:
        gc.enable()


# -- one qasync loop for the GUI tests that run coroutines (wizard, Run view) -----------

_LOOP = None


class QLoop:
    """A qasync loop marked running while pytest-qt spins Qt (``already_running``): a
    coroutine is a task on it, and the test waits for the task with ``qtbot.waitUntil``."""

    def __init__(self, loop, qtbot):
        self.loop, self.qtbot = loop, qtbot

    def run_until_complete(self, coro, timeout: float = 60.0):
        task = asyncio.ensure_future(coro, loop=self.loop)
        self.qtbot.waitUntil(task.done, timeout=int(timeout * 1000))
        return task.result()


@pytest.fixture(scope="session", autouse=True)
def _close_loop_at_the_end():
    yield
    global _LOOP
    if _LOOP is not None:
        executor = getattr(_LOOP, "_QEventLoop__default_executor", None)
        if executor is not None:
            executor.shutdown()  # joins its worker threads


@pytest.fixture
def qloop(qapp, qtbot):
    """One qasync loop for the session (a second one on the same application crashes
    qasync), set as the running loop for one test at a time."""
    global _LOOP
    if _LOOP is None:
        import qasync

        _LOOP = qasync.QEventLoop(qapp, already_running=True)
    asyncio.events._set_running_loop(_LOOP)
    asyncio.set_event_loop(_LOOP)
    yield QLoop(_LOOP, qtbot)
    asyncio.events._set_running_loop(None)
    asyncio.set_event_loop(None)


@pytest.fixture
def view(qtbot):
    """A document view, 900 x 700, shown (a test module may give its own ``view``)."""
    from app.docview import DocumentView

    v = DocumentView()
    qtbot.addWidget(v)
    v.resize(900, 700)
    v.show()
    return v
