"""Two document panes that scroll together, by the diff's alignment.

When one pane scrolls, the character at its top is asked of the page (UTF-16 offset),
mapped through the engine's alignment of the two versions
(``engine.diff.marks.ChangeView.b_for_a`` / ``a_for_b``: the same character in equal
text, the place the text went inside a change) and the other pane is scrolled to put
that character at the same height; a pane at its very top puts the other at its top. The
pane moved by the link is quiet for a moment, so the two never drive each other round in a
loop; a programmatic move of both (a comment picked) holds the link the same way, and the
page is told so (``DocumentView.link_quiet``).

A pane is followed only when the text in its view moved: the page counts the moves of the
character at its top since the link's last hold of it (``__arl.topPlace().moves`` and
``.hold``); a scroll that leaves that character where it was (Chromium's scroll anchoring,
as blocks above the view are laid out at last and the page is moved under a text that stays
put) is not one, nor a move while the page is held (the page keeps the hold while it goes
on scrolling by itself, up to a second), nor the page putting the text back where a scroll
of ours asked it. Before, such scrolls after a comment was picked re-aligned the panes on
their top lines half a second later, and the comment's text moved a line or two under the
reader's eyes. ``enabled`` False unlinks them.
"""

from __future__ import annotations

import time
from typing import Any, TypeGuard

from PySide6.QtCore import QObject, QTimer

from app.docview import DocumentView

QUIET_S = 0.35  # a pane moved by the link ignores its own scroll events this long
COALESCE_MS = 30  # scroll events within this time are followed once


class ScrollLink(QObject):
    """Links ``left`` (version a) and ``right`` (version b)."""

    def __init__(self, left: DocumentView, right: DocumentView, parent: QObject | None = None):
        super().__init__(parent)
        self.left, self.right = left, right
        self.enabled = True
        self.alignment: Any = None  # engine.diff.marks.ChangeView of left -> right
        self._quiet: dict[int, float] = {}
        # per pane: (the hold it is since, its page's count of text moves), as last read
        self._moves: dict[int, tuple[int, int]] = {}
        self._holds = 0  # the number of the last hold of a pane
        self._pending: DocumentView | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(COALESCE_MS)
        self._timer.timeout.connect(self._follow)
        self.followed = 0  # times one pane was moved to follow the other (for tests)
        for view in (left, right):
            view.page().scrollPositionChanged.connect(lambda _p, v=view: self._moved(v))

    def set_alignment(self, cv: Any) -> None:
        """The engine's ``ChangeView`` of the left version against the right (None: the
        panes are not linked until one is given). The counts of moves read are forgotten."""
        self.alignment = cv
        self._moves.clear()

    def hold(self, seconds: float = QUIET_S) -> None:
        """Both panes are about to be moved on purpose (a comment was picked): do not
        follow either for ``seconds``."""
        self._quiet_for(self.left, seconds)
        self._quiet_for(self.right, seconds)

    def _quiet_for(self, view: DocumentView, seconds: float) -> None:
        """``view`` is not followed for ``seconds``, nor are its page's moves counted."""
        self._quiet[id(view)] = time.monotonic() + seconds
        self._holds += 1
        self._moves[id(view)] = (self._holds, 0)
        view.link_quiet(seconds, self._holds)

    def _moved(self, view: DocumentView) -> None:
        if not self.enabled or self.alignment is None:
            return
        if time.monotonic() < self._quiet.get(id(view), 0.0):
            return
        self._pending = view
        self._timer.start()

    def _follow(self) -> None:
        src = self._pending
        if src is None or self.alignment is None:
            return
        src.top_place(lambda place: self._place(src, place))

    def _place(self, src: DocumentView, place: Any) -> None:
        """Put the character aligned with ``src``'s top one (``DocumentView.top_place``) at
        the same height in the other pane; ``src`` at its very top puts the other at its
        top (its first character would otherwise be pulled up past the page's margin)."""
        if not isinstance(place, dict) or self.alignment is None or not self.enabled:
            return
        moves, hold = place.get("moves"), place.get("hold")
        if _number(moves) and _number(hold):
            now, was = (int(hold), int(moves)), self._moves.get(id(src))
            if was is not None and (now == was or now[0] != was[0]):
                return  # its text did not move in its view (or this was asked before a hold)
            self._moves[id(src)] = now
        off, y = place.get("off"), place.get("y")
        if isinstance(off, float) and off.is_integer():
            off = int(off)
        if not isinstance(off, int) or isinstance(off, bool):
            return
        cv = self.alignment
        try:
            target = cv.b_for_a(off) if src is self.left else cv.a_for_b(off)
        except ValueError:
            return  # the page's text is not the one aligned (a new bundle is loading)
        dst = self.right if src is self.left else self.left
        self._quiet_for(dst, QUIET_S)
        self.followed += 1
        if place.get("top") is True:
            dst.scroll_to_top()
        else:
            dst.scroll_to_offset(target, y if isinstance(y, (int, float)) else None)


def _number(value: Any) -> TypeGuard[int | float]:
    """Whether ``value`` (from the page's JSON) is a number (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)
