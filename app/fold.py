"""A label that folds to its first line, with a button to show the rest.

On a short screen (1366 x 768 at 1.5x scale, a laptop with large text) the Verdicts
view's banner and legend took 40 % of the height, leaving the documents a few lines. Folded,
a label shows its first line (the banner puts its most important sentence first: TAMPERED,
the signature) and a "Show all" button; the button unfolds it. Until the user chooses, a
label folds by itself when its full text would take more than ``SHARE`` of the window's
height, and unfolds when there is room again; after a click it stays as the user set it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

SHARE = 0.13  # of the window's height, above which a label folds by itself


def first_line_height(label: QLabel) -> int:
    """The height, in pixels, of ``label``'s first line as it lays out its text at its
    present width (rich text as rich text), rounded up."""
    import math

    from PySide6.QtGui import QTextDocument

    doc = QTextDocument()
    doc.setDocumentMargin(0)  # as a QLabel lays its text out
    doc.setDefaultFont(label.font())
    if label.textFormat() == Qt.TextFormat.PlainText:
        doc.setPlainText(label.text())
    else:
        doc.setHtml(label.text())
    m = label.contentsMargins()
    doc.setTextWidth(max(label.width() - m.left() - m.right(), 50))
    doc.size()  # lays it out
    lines = doc.firstBlock().layout()
    if lines is None or lines.lineCount() == 0:
        return label.fontMetrics().lineSpacing()
    return math.ceil(lines.lineAt(0).height() + doc.firstBlock().blockFormat().topMargin())


class Fold(QWidget):
    """Holds ``label`` and its Show all / Show less button."""

    def __init__(self, label: QLabel, what: str, pad: int = 0, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = label
        self.what = what
        self.pad = pad  # the label's own padding and border (a style sheet's), in pixels
        self.button = QToolButton()
        self.button.setAutoRaise(True)
        self.button.setCheckable(True)
        self.button.setAccessibleName(f"Show all of the {what}")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(label, 1)
        lay.addWidget(self.button, 0, Qt.AlignmentFlag.AlignTop)
        self.chosen: bool | None = None  # the user's choice: folded or not
        self.auto = True  # False: never folds by itself (a TAMPERED banner is read whole)
        self.folded = False
        self.button.clicked.connect(self._clicked)
        self._watched: QObject | None = None
        self._set(False)

    # -- state ---------------------------------------------------------------------------

    def _one_line(self) -> int:
        """The label's height showing its first line whole: that line's own height as the
        label lays it out (rich text: a bold run or a coloured chip is taller than the
        font's line spacing, and a guess from it cut the legend's chips at the bottom at
        1.5x), with the label's margins (a style sheet's padding and border among them)."""
        m = self.label.contentsMargins()
        return first_line_height(self.label) + m.top() + m.bottom() + self.pad

    def full_height(self) -> int:
        w = max(self.label.width(), 200)
        h = self.label.heightForWidth(w)
        return h if h > 0 else self.label.sizeHint().height()

    def _set(self, folded: bool) -> None:
        self.folded = folded
        self.label.setMaximumHeight(self._one_line() if folded else 16_777_215)
        self.button.setChecked(not folded)
        self.button.setText("Show all \u25b8" if folded else "Show less")
        self.button.setToolTip(
            f"Show the whole {self.what}" if folded else f"Fold the {self.what} to one line"
        )
        self.button.setVisible(folded or self.full_height() > self._one_line())

    def _clicked(self) -> None:
        self.chosen = not self.folded
        self._set(self.chosen)

    def refit(self) -> None:
        """Fold or unfold by the window's height, unless the user has chosen."""
        if self.chosen is not None:
            self._set(self.chosen)
            return
        win = self.window()
        height = win.height() if win is not None else 0
        self._set(self.auto and bool(height) and self.full_height() > SHARE * height)

    # -- following the window and the text ------------------------------------------------

    def showEvent(self, event) -> None:
        super().showEvent(event)
        win = self.window()
        if win is not None and win is not self._watched:
            win.installEventFilter(self)
            self._watched = win
        QTimer.singleShot(0, self, self.refit)  # not after self is gone

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self._watched and event.type() == QEvent.Type.Resize:
            QTimer.singleShot(0, self, self.refit)  # not after self is gone
        return False

    def text_changed(self) -> None:
        """Call after the label's text changed: its height may have."""
        QTimer.singleShot(0, self, self.refit)  # not after self is gone
