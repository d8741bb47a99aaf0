"""The main window fits the screen it opens on and remembers the user's size."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import QRect

from app.window import MainWindow


class _Screen:
    def __init__(self, w: int, h: int):
        self.rect = QRect(0, 0, w, h)

    def availableGeometry(self) -> QRect:
        return self.rect


@pytest.mark.parametrize(("w", "h"), [(1366, 768 - 28), (1024, 700), (1920, 1050), (800, 560)])
def test_the_window_fits_the_available_screen(qtbot, monkeypatch, w, h):
    monkeypatch.setattr(MainWindow, "screen", lambda self: _Screen(w, h))
    win = MainWindow()
    qtbot.addWidget(win)
    geo = win.frameGeometry()
    assert QRect(0, 0, w, h).contains(geo), (w, h, geo)
    assert win.width() == min(1400, w) and win.height() == min(900, h)
    assert win.minimumWidth() <= w and win.minimumHeight() <= h


def test_the_users_size_is_remembered_and_shrunk_only_to_fit(qtbot, monkeypatch):
    # the offscreen test screen is 800 x 800: the user's size must fit in it
    monkeypatch.setattr(MainWindow, "screen", lambda self: _Screen(800, 800))
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    win.resize(800, 650)
    assert (win.width(), win.height()) == (800, 650)
    win.close()
    again = MainWindow()
    qtbot.addWidget(again)
    assert (again.width(), again.height()) == (800, 650)
    monkeypatch.setattr(MainWindow, "screen", lambda self: _Screen(640, 480))
    smaller = MainWindow()
    qtbot.addWidget(smaller)
    assert smaller.width() <= 640 and smaller.height() <= 480
    assert QRect(0, 0, 640, 480).contains(smaller.frameGeometry())
