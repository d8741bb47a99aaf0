"""Open a local file in the desktop's program for it, or say where it is.

``QDesktopServices.openUrl`` returns False when no program on this desktop opens the file
(no browser, no ``xdg-open``): then a small window says so in plain words, shows the
file's path as text that can be selected, and offers a Copy button, instead of nothing
happening. (A program that starts and then fails on its own is beyond what can be seen
from here.)
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QMessageBox, QWidget


def open_local(parent: QWidget | None, path: Path, what: str, opener=None) -> bool:
    """Open ``path`` (``what``: "the index" etc., for the message); True when a program
    took it. ``opener`` stands in for ``QDesktopServices.openUrl`` (tests)."""
    opener = opener or QDesktopServices.openUrl
    if opener(QUrl.fromLocalFile(str(path))):
        return True
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Information)
    box.setWindowTitle("No program opened it")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(
        f"No program on this computer opened {what} (no web browser or file opener was "
        "found). It is this file; open it in a browser on this or another computer:"
    )
    box.setInformativeText(str(path))
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    copy = box.addButton("Copy the path", QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Close)
    copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(str(path)))
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    if parent is not None:
        parent._no_opener_box = box  # kept for tests and so it is not collected
    return False
