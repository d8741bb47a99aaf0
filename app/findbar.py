"""Find (Ctrl+F) in the document panes and the comment table, and zoom (Ctrl+plus,
Ctrl+minus, Ctrl+0) of the documents, remembered in the user's settings.

``FindBar`` searches every pane it is given through the page helper
(``DocumentView.find_text``: the page's whole text, including the parts of a long document
not laid out yet, case ignored, a space matching any white space; matches highlighted in
the page) and the rows of a table model (a row matches when any of its cells holds the
words, case ignored); Enter goes to the next match, Shift+Enter to the previous one, Esc
closes the bar. (Chromium's own find lays out a long document whole before it answers.) ``Zoom`` sets the
zoom factor of every pane and keeps it as a percentage (``ui/zoom_percent``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from app.docview import DocumentView

ZOOM_STEPS = (50, 67, 75, 80, 90, 100, 110, 125, 150, 175, 200, 250, 300)
ZOOM_KEY = "ui/zoom_percent"


class FindBar(QWidget):
    """A find field over ``panes`` (document views) and a table's rows.

    ``rows()`` returns the table's rows as lists of cell texts; ``select_row(i)`` shows
    row ``i``; ``current_row()`` is the row selected (-1 for none)."""

    def __init__(
        self,
        panes: Callable[[], Sequence[DocumentView]],
        rows: Callable[[], list[list[str]]],
        select_row: Callable[[int], None],
        current_row: Callable[[], int],
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self._panes, self._rows, self._select, self._current = panes, rows, select_row, current_row
        self.field = QLineEdit()
        self.field.setPlaceholderText("Find in both documents and the comments")
        self.field.setAccessibleName("Find")
        self.field.setClearButtonEnabled(True)
        self.result = QLabel()
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setAccessibleName("Find results")
        prev = QPushButton("Previous")
        nxt = QPushButton("Next")
        close = QPushButton("Close")
        prev.setToolTip("Previous match (Shift+Enter)")
        nxt.setToolTip("Next match (Enter)")
        close.setToolTip("Close the find bar (Esc)")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel("Find:"))
        lay.addWidget(self.field, 1)
        lay.addWidget(prev)
        lay.addWidget(nxt)
        lay.addWidget(self.result)
        lay.addWidget(close)
        self.field.returnPressed.connect(lambda: self.find(backward=False))
        # Only while the bar has the focus: Esc elsewhere keeps its own meaning.
        ctx = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys in ("Shift+Return", "Shift+Enter"):
            QShortcut(QKeySequence(keys), self.field, lambda: self.find(backward=True), context=ctx)
        QShortcut(QKeySequence("Esc"), self, self.close_bar, context=ctx)
        self.field.textChanged.connect(lambda _t: self.find(backward=False, fresh=True))
        prev.clicked.connect(lambda: self.find(backward=True))
        nxt.clicked.connect(lambda: self.find(backward=False))
        close.clicked.connect(self.close_bar)
        self.matches: dict[str, int] = {}
        self.setVisible(False)

    def open_bar(self) -> None:
        self.setVisible(True)
        self.field.setFocus()
        self.field.selectAll()

    def close_bar(self) -> None:
        for pane in self._panes():
            pane.find_text("")  # clears the match marks
        self.setVisible(False)

    def matching_rows(self, words: str) -> list[int]:
        w = words.casefold()
        return [i for i, cells in enumerate(self._rows()) if any(w in c.casefold() for c in cells)]

    def find(self, backward: bool = False, fresh: bool = False) -> None:
        """Go to the next (or previous) match in every pane and in the table."""
        words = self.field.text()
        self.matches = {}
        for i, pane in enumerate(self._panes()):
            pane.find_text(words, backward, lambda n, i=i: self._pane_found(i, n))
        rows = self.matching_rows(words) if words else []
        self.matches["rows"] = len(rows)
        if rows:
            cur = self._current()
            if fresh and cur in rows:
                target = cur
            elif backward:
                before = [r for r in rows if r < cur]
                target = before[-1] if before else rows[-1]
            else:
                after = [r for r in rows if r > cur]
                target = after[0] if after else rows[0]
            self._select(target)
        self._say()

    def _pane_found(self, i: int, count: int) -> None:
        self.matches[f"pane{i}"] = count
        self._say()

    def _say(self) -> None:
        if not self.field.text():
            self.result.setText("")
            return
        in_docs = sum(v for k, v in self.matches.items() if k.startswith("pane"))
        rows = self.matches.get("rows", 0)
        if not in_docs and not rows:
            self.result.setText("Not found")
            return
        self.result.setText(f"{in_docs} in the documents, {rows} comment{'s' if rows != 1 else ''}")


class Zoom:
    """The zoom of every pane, stepped through ``ZOOM_STEPS`` and kept in the settings."""

    def __init__(self, panes: Callable[[], Sequence[DocumentView]], settings=None):
        if settings is None:
            from app.settings import Settings

            settings = Settings()
        self.settings = settings
        self._panes = panes
        try:
            self.percent = int(settings.q.value(ZOOM_KEY, 100) or 100)
        except (TypeError, ValueError):
            self.percent = 100
        self.percent = min(max(self.percent, ZOOM_STEPS[0]), ZOOM_STEPS[-1])

    def apply(self) -> None:
        for pane in self._panes():
            pane.setZoomFactor(self.percent / 100)

    def _set(self, percent: int) -> None:
        self.percent = percent
        self.settings.q.setValue(ZOOM_KEY, percent)
        self.apply()

    def zoom_in(self) -> None:
        bigger = [s for s in ZOOM_STEPS if s > self.percent]
        self._set(bigger[0] if bigger else ZOOM_STEPS[-1])

    def zoom_out(self) -> None:
        smaller = [s for s in ZOOM_STEPS if s < self.percent]
        self._set(smaller[-1] if smaller else ZOOM_STEPS[0])

    def reset(self) -> None:
        self._set(100)
