"""Labels that fold to their first line, with a button to show the rest, and the room a
view gives them.

On a short screen (1366 x 768, at 1x and more so at 1.5x scale) the Verdicts view's banner
and legend took 110 to 150 px, leaving the documents a third of the window. Folded, a label
shows its first line (the banner puts its most important sentence first: TAMPERED, the
signature) and a "Show all" button; the button unfolds it.

Until the user chooses, the labels fold by themselves when the view has no room for them:
``Room`` shares the height a view can spare (what is left once its main content has its
share: ``spare``) among its folds in order, and a label unfolds only when the rest of its
text fits in what is left. A label whose ``auto`` is off (a TAMPERED banner is read whole)
never folds by itself and takes its room first. Once the user clicks, a label stays as they
set it, also in later sessions when the fold has a settings key (``ui/fold/<key>``:
``folded`` or ``shown``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

FOLD_KEY = "ui/fold/"
"""Settings prefix of a fold's remembered choice: ``ui/fold/banner`` = ``folded``/``shown``."""


def first_line_height(label: QLabel) -> int:
    """The height, in pixels, of ``label``'s first line as it lays out its text at its
    present width (rich text as rich text), rounded up."""
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


def elide_words(text: str, fm: Any, width: int) -> str:
    """``text`` whole when it fits ``width`` pixels of ``fm``, else its first words that
    fit followed by "\u2026" (cut between words, never inside one; a first word wider than
    ``width`` alone is cut by Qt)."""
    if fm.horizontalAdvance(text) <= width:
        return text
    words = text.split(" ")
    for n in range(len(words) - 1, 0, -1):
        head = " ".join(words[:n]).rstrip(" ,;:\u2014\u00b7") + "\u2026"
        if fm.horizontalAdvance(head) <= width:
            return head
    return fm.elidedText(text, Qt.TextElideMode.ElideRight, width)


class Summary(QLabel):
    """A fold's one line when folded: a phrase of plain text elided between words to the
    width it has (``elide_words``), the whole phrase in its tooltip."""

    def __init__(self) -> None:
        super().__init__()
        self.whole = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(False)
        font = self.font()
        font.setBold(True)
        self.setFont(font)
        from PySide6.QtWidgets import QSizePolicy

        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def set_whole(self, text: str, rich: bool = False) -> None:
        """``text``: plain, elided between words; ``rich``: rich text shown whole (a
        legend's chips, short enough for one line)."""
        self.whole = text
        self.rich = rich
        self.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        self._elide()

    def _elide(self) -> None:
        if getattr(self, "rich", False):
            self.setText(self.whole)
            return
        m = self.contentsMargins()
        self.setText(
            elide_words(self.whole, self.fontMetrics(), self.width() - m.left() - m.right())
        )

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._elide()


class Fold(QWidget):
    """Holds ``label`` and its Show all / Show less button.

    ``key`` names the fold in the settings (``FOLD_KEY + key``) so that the user's choice
    outlives the session; ``settings_of`` returns the ``app.settings.Settings`` (or None:
    the choice lasts the session only).
    """

    def __init__(
        self,
        label: QLabel,
        what: str,
        key: str = "",
        settings_of: Callable[[], Any] = lambda: None,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.label = label
        self.what = what
        self.key = key
        self.settings_of = settings_of
        self.button = QToolButton()
        self.button.setAutoRaise(True)
        self.button.setCheckable(True)
        self.button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # Tab reaches it
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(label, 1)
        # Folded with a summary (``set_summary``): that line instead of the label's first.
        self.summary = Summary()
        self.summary.hide()
        lay.addWidget(self.summary, 1)
        lay.addWidget(self.button, 0, Qt.AlignmentFlag.AlignTop)
        self._chosen: bool | None = None  # the user's choice this session: folded or not
        self.auto = True  # False: never folds by itself (a TAMPERED banner is read whole)
        self.folded = False
        self.room: Room | None = None  # set by Room: it decides when the user has not
        self.button.clicked.connect(self._clicked)
        self._set(False)

    # -- state ---------------------------------------------------------------------------

    @property
    def chosen(self) -> bool | None:
        """The user's choice, True folded, False shown, None not chosen: this session's
        click, else the one kept in the settings."""
        if self._chosen is not None or not self.key:
            return self._chosen
        settings = self.settings_of()
        kept = settings.get(FOLD_KEY + self.key) if settings is not None else ""
        return {"folded": True, "shown": False}.get(kept)

    def one_line(self) -> int:
        """The label's height showing its first line whole: that line's own height as the
        label lays it out (rich text: a bold run or a coloured chip is taller than the
        font's line spacing, and a guess from it cut the legend's chips at the bottom at
        1.5x), with the label's margins (a style sheet's padding and border among them)."""
        m = self.label.contentsMargins()
        return first_line_height(self.label) + m.top() + m.bottom()

    def full_height(self) -> int:
        """The label's height with all of its text, at its present width (pixels)."""
        w = max(self.label.width(), 200)
        h = self.label.heightForWidth(w)
        return h if h > 0 else self.label.sizeHint().height()

    def extra(self) -> int:
        """What showing the whole label takes beyond its first line (pixels, 0 or more)."""
        return max(0, self.full_height() - self.one_line())

    def set_summary(self, text: str, rich: bool = False, tip: str = "") -> None:
        """What the folded label shows: ``text`` whole, or elided between words (a
        banner's headline, never its first line cut mid-sentence); "" for its first line.
        ``rich``: rich text shown whole; ``tip``: its tooltip (else the label's)."""
        self.summary.set_whole(text, rich)
        self.tip = tip
        self._set(self.folded)

    def _set(self, folded: bool) -> None:
        self.folded = folded
        brief = folded and bool(self.summary.whole)
        self.label.setVisible(not brief)
        self.summary.setVisible(brief)
        if brief:
            self.summary.setStyleSheet(self.label.styleSheet())
            self.summary.setToolTip(getattr(self, "tip", "") or self.label.toolTip())
            self.summary.setAccessibleName(self.label.accessibleName())
        self.label.setMaximumHeight(self.one_line() if folded else 16_777_215)
        self.button.setChecked(not folded)
        self.button.setText("Show all \u25b8" if folded else "Show less")
        self.button.setAccessibleName(
            f"Show all of the {self.what}" if folded else f"Fold the {self.what} to one line"
        )
        self.button.setToolTip(
            f"Show the whole {self.what}" if folded else f"Fold the {self.what} to one line"
        )
        self.button.setVisible(folded or self.extra() > 0)

    def _clicked(self) -> None:
        self._chosen = not self.folded
        settings = self.settings_of() if self.key else None
        if settings is not None:
            settings.set(FOLD_KEY + self.key, "folded" if self._chosen else "shown")
        self._set(self._chosen)
        if self.room is not None:
            self.room.refit_soon()  # the others may get, or give back, the room

    def refit(self, fits: bool = True) -> None:
        """Fold or unfold: as the user chose, else folded when the rest of the text does
        not fit (``fits`` False) and the label may fold by itself (``auto``)."""
        chosen = self.chosen
        self._set(chosen if chosen is not None else (self.auto and not fits))

    def text_changed(self) -> None:
        """Call after the label's text changed: its height may have."""
        if self.room is not None:
            self.room.refit_soon()
        else:
            QTimer.singleShot(0, self, self.refit)  # not after self is gone


class Room(QObject):
    """Shares the height a view can spare among its ``folds``, in their order.

    ``spare()`` is the height, in pixels, the view could give its labels beyond one line
    each with every fold folded (the view's main content keeping its share); a fold that
    never folds by itself (``auto`` False) or that the user chose to show takes its part
    first, then each other fold in order unfolds only if the rest of its text fits in what
    is left. Refitted when ``view``'s window is resized and when a label's text changes.
    """

    def __init__(self, view: QWidget, folds: Sequence[Fold], spare: Callable[[], int]):
        super().__init__(view)
        self.view = view
        self.folds = list(folds)
        self.spare = spare
        self._watched: QObject | None = None
        self._due = False
        for f in self.folds:
            f.room = self
        view.installEventFilter(self)

    def refit(self) -> None:
        self._due = False
        # What the folds take now beyond one line, given back: spare() measures the
        # layout as it stands.
        left = self.spare() + sum(
            max(0, f.label.height() - f.one_line()) for f in self.folds if not f.folded
        )
        first = [f for f in self.folds if f.chosen is False or (f.chosen is None and not f.auto)]
        for f in first:
            f.refit()
            left -= f.extra()
        for f in self.folds:
            if f in first:
                continue
            fits = f.extra() <= left
            f.refit(fits)
            if not f.folded:
                left -= f.extra()

    def refit_soon(self) -> None:
        """Refit once the event loop has laid out what just changed."""
        if not self._due:
            self._due = True
            QTimer.singleShot(0, self, self.refit)  # not after the view is gone

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        kind = event.type()
        if obj is self.view and kind == QEvent.Type.Show:
            win = self.view.window()
            if win is not None and win is not self._watched:
                win.installEventFilter(self)
                self._watched = win
            self.refit_soon()
        elif obj is self._watched and kind == QEvent.Type.Resize:
            self.refit_soon()
        return False
