"""The tool row above the Verdicts view's documents: side by side or the changes in one
document, the panes scrolling together (or not), find, and zoom.

Keys: Ctrl+F find, Ctrl+plus / Ctrl+minus / Ctrl+0 zoom in, out and back to 100 %
(kept per user in the settings), Ctrl+Shift+D switches between side by side and changes.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.changes_view import ChangesView
from app.docview import DocumentView
from app.findbar import FindBar, Zoom
from app.scroll_link import ScrollLink

SIDE_BY_SIDE, CHANGES = 0, 1


class DocTools(QWidget):
    """The row of controls and the find bar under it; owns the scroll link and the zoom.

    ``stack`` holds the side-by-side page (index 0) and the changes view (index 1)."""

    def __init__(
        self,
        host: QWidget,
        v1: DocumentView,
        v2: DocumentView,
        stack: QStackedWidget,
        changes: ChangesView,
        rows: Callable[[], list[list[str]]],
        select_row: Callable[[int], None],
        current_row: Callable[[], int],
    ):
        super().__init__(host)
        self.v1, self.v2, self.stack, self.changes = v1, v2, stack, changes
        self.link = ScrollLink(v1, v2, self)
        self.zoom = Zoom(self.panes)
        self.zoom.apply()

        self.side = QRadioButton("Side by side")
        self.merged = QRadioButton("Changes in one document")
        self.side.setToolTip("v1 and v2 next to each other (Ctrl+Shift+D switches)")
        self.merged.setToolTip(
            "One document: deleted text struck through, inserted text underlined, "
            "comments on top (Ctrl+Shift+D switches)"
        )
        self.side.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.side, SIDE_BY_SIDE)
        group.addButton(self.merged, CHANGES)
        group.idToggled.connect(lambda i, on: on and self.show_mode(i))
        self.together = QCheckBox("Scroll v1 and v2 together")
        self.together.setChecked(True)
        self.together.setToolTip("Scrolling one version scrolls the other to the matching text")
        self.together.toggled.connect(self._link_toggled)
        # The middle zoom button says the zoom in force (150%); clicking it goes back to
        # actual size. There is no second figure beside it to disagree with.
        self.zoom_label = QToolButton()
        self.zoom_label.clicked.connect(self.zoom_reset)
        find = QToolButton()
        row = self._row(find)
        self.find_bar = FindBar(
            self.panes, rows, select_row, current_row, names=("v1", "v2", "changes")
        )
        find.clicked.connect(self.find_bar.open_bar)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(row)
        lay.addWidget(self.find_bar)
        self._say_zoom()
        ctx = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys, slot in (
            (QKeySequence.StandardKey.Find, self.find_bar.open_bar),
            (QKeySequence.StandardKey.ZoomIn, self.zoom_in),
            ("Ctrl+=", self.zoom_in),
            (QKeySequence.StandardKey.ZoomOut, self.zoom_out),
            ("Ctrl+0", self.zoom_reset),
            ("Ctrl+Shift+D", self.toggle_mode),
        ):
            QShortcut(QKeySequence(keys), host, slot, context=ctx)

    def _row(self, find: QToolButton) -> QHBoxLayout:
        """The one line of controls: view, scroll together, find, zoom."""
        buttons = []
        for text, tip, slot in (
            ("\u2212", "Zoom out (Ctrl+minus)", self.zoom_out),
            ("", "", None),
            ("+", "Zoom in (Ctrl+plus)", self.zoom_in),
        ):
            if slot is None:
                buttons.append(self.zoom_label)
                continue
            b = QToolButton()
            b.setText(text)
            b.setToolTip(tip)
            b.setAccessibleName(tip.split(" (")[0])
            b.clicked.connect(slot)
            buttons.append(b)
        find.setText("Find\u2026")
        find.setToolTip("Find in both documents and the comments (Ctrl+F)")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Show:"))
        row.addWidget(self.side)
        row.addWidget(self.merged)
        row.addSpacing(16)
        row.addWidget(self.together)
        row.addStretch(1)
        row.addWidget(find)
        row.addSpacing(12)
        row.addWidget(QLabel("Zoom:"))
        for b in buttons:
            row.addWidget(b)
        return row

    def panes(self) -> list[DocumentView]:
        return [self.v1, self.v2, self.changes.view]

    def show_mode(self, mode: int) -> None:
        """Side by side (0) or the changes in one document (1)."""
        (self.side if mode == SIDE_BY_SIDE else self.merged).setChecked(True)
        self.stack.setCurrentIndex(mode)
        self.together.setEnabled(mode == SIDE_BY_SIDE)
        if mode == CHANGES:
            self.changes.show_current()

    def toggle_mode(self) -> None:
        self.show_mode(CHANGES if self.stack.currentIndex() == SIDE_BY_SIDE else SIDE_BY_SIDE)

    def _link_toggled(self, on: bool) -> None:
        self.link.enabled = on

    def zoom_in(self) -> None:
        self.zoom.zoom_in()
        self._say_zoom()

    def zoom_out(self) -> None:
        self.zoom.zoom_out()
        self._say_zoom()

    def zoom_reset(self) -> None:
        self.zoom.reset()
        self._say_zoom()

    def _say_zoom(self) -> None:
        now = f"{self.zoom.percent}%"
        self.zoom_label.setText(now)
        self.zoom_label.setToolTip(f"Zoom {now}: click for actual size, 100% (Ctrl+0)")
        self.zoom_label.setAccessibleName(f"Zoom {now}, actual size")
