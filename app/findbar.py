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
        names: Sequence[str] = (),
    ):
        super().__init__(parent)
        self._panes, self._rows, self._select, self._current = panes, rows, select_row, current_row
        self._names = tuple(names)
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
        self.at: dict[str, int] = {}  # pane -> 0-based index of its current match, -1 none
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
        self.matches, self.at = {}, {}
        for i, pane in enumerate(self._panes()):
            pane.find_text(words, backward, lambda n, at, i=i: self._pane_found(i, n, at))
        rows = self.matching_rows(words) if words else []
        self.matches["rows"] = len(rows)
        self.at["rows"] = -1
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
            self.at["rows"] = rows.index(target)
        self._say()

    def _pane_found(self, i: int, count: int, at: int = -1) -> None:
        self.matches[f"pane{i}"] = count
        self.at[f"pane{i}"] = at
        self._say()

    def _shown(self) -> list[tuple[int, str]]:
        """The panes on screen (a hidden one, the other view's, is searched but not
        counted), each with its name."""
        out = []
        for i, pane in enumerate(self._panes()):
            if pane.isVisibleTo(pane.window()):
                out.append((i, self._names[i] if i < len(self._names) else f"document {i + 1}"))
        return out

    def _say(self) -> None:
        """Says where the current match is: "2 of 3" in each document on screen (named
        when there are two) and among the comments."""
        if not self.field.text():
            self.result.setText("")
            return
        shown = self._shown()
        rows = self.matches.get("rows", 0)
        if not rows and not any(self.matches.get(f"pane{i}", 0) for i, _n in shown):
            self.result.setText("Not found")
            return
        parts = []
        for i, name in shown:
            said = _where(self.matches.get(f"pane{i}"), self.at.get(f"pane{i}", -1))
            parts.append(f"{name}: {said}" if len(shown) > 1 else f"{said} in the document")
        at_row = self.at.get("rows", -1)
        if rows == 1:
            parts.append("1 comment")
        elif rows:
            parts.append(f"comment {at_row + 1} of {rows}" if at_row >= 0 else f"{rows} comments")
        else:
            parts.append("no comment")
        self.result.setText(", ".join(parts))


def _where(count: int | None, at: int) -> str:
    """One document's part: "2 of 3", "none", or "\u2026" while it has not answered."""
    if count is None:
        return "\u2026"
    if not count:
        return "none"
    return f"{at + 1} of {count}" if at >= 0 else str(count)


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
