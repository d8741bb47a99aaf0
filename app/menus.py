"""The main window's menus: File (new run, open a bundle, recent bundles, the example,
compare, publish and export, the verdicts into a Word copy, quit), Edit (Your name...: the
name the reviewer's decisions, replies and comments carry), View (one entry per tab,
Ctrl+1..9, and Theme: Light, Dark, Follow the system, kept per user) and Help (how to
read the verdicts, the README, About). ``build_menus(window)`` adds them and sets the
window's ``act_*`` actions and ``recent_menu``."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu

from app import theme

TAB_NAMES = (
    "Start",
    "Run",
    "Verdicts",
    "Metrics",
    "Scorecard",
    "Checks",
    "Compare",
    "Suites",
    "Published",
)
"""The View menu's entries, one per tab in the window's order (Ctrl+1..9)."""


def _word_copy(w: Any) -> None:
    from app.word_copy import show_word_copy_dialog

    show_word_copy_dialog(w)


def build_menus(w: Any) -> None:
    """``w``: the ``app.window.MainWindow`` (not imported here: that would be a circle)."""
    m = w.menuBar().addMenu("&File")
    w.act_open = QAction(
        "&Open evidence bundle (folder or .zip)\u2026",
        w,
        shortcut=QKeySequence.StandardKey.Open,
        triggered=w.ask_open_bundle,
    )
    w.act_example = QAction(
        "Open the &example run",
        w,
        shortcut=QKeySequence("Ctrl+E"),
        triggered=w.open_example,
    )
    w.act_new = QAction(
        "&New run\u2026",
        w,
        shortcut=QKeySequence.StandardKey.New,
        triggered=w.start_setup,
    )
    w.act_check = QAction(
        "&Check a revision made elsewhere\u2026",
        w,
        shortcut=QKeySequence("Ctrl+Shift+R"),
        triggered=w.check_revision,
    )
    w.act_compare = QAction(
        "Co&mpare two bundles\u2026",
        w,
        shortcut=QKeySequence("Ctrl+Shift+C"),
        triggered=w.show_compare,
    )
    w.recent_menu = m.addMenu("&Recent bundles")
    w.act_export_html = QAction(
        "Export scorecard as &HTML\u2026", w, triggered=w.scorecard.ask_export_html
    )
    w.act_export_pdf = QAction(
        "Export scorecard as &PDF\u2026",
        w,
        shortcut=QKeySequence("Ctrl+P"),
        triggered=w.scorecard.ask_export_pdf,
    )
    # The button and this entry do the same: publish into a folder the user picks.
    w.act_publish = QAction(
        "P&ublish scorecard to your publishing folder",
        w,
        triggered=lambda: w.scorecard.publish_to_folder(),
    )
    w.act_word_copy = QAction(
        "Save the verdicts into a &Word copy\u2026",
        w,
        triggered=lambda: _word_copy(w),
    )
    w.act_quit = QAction("&Quit", w, shortcut=QKeySequence("Ctrl+Q"), triggered=w.close)
    m.addAction(w.act_new)
    m.addAction(w.act_check)
    m.addAction(w.act_open)
    m.addMenu(w.recent_menu)
    m.addAction(w.act_example)
    m.addAction(w.act_compare)
    m.addSeparator()
    m.addAction(w.act_publish)
    m.addAction(w.act_export_html)
    m.addAction(w.act_export_pdf)
    m.addAction(w.act_word_copy)
    m.addSeparator()
    m.addAction(w.act_quit)
    for a in (w.act_publish, w.act_export_html, w.act_export_pdf):
        a.setEnabled(False)
    _edit_menu(w)
    _view_and_help_menus(w)


def _edit_menu(w: Any) -> None:
    """Edit > Your name...: the name asked before the first decision or reply (and on the
    wizard's comments page), changed here at any time (``app.decisions_panel.ensure_name``)."""
    from app.decisions_panel import ensure_name, reviewer_name

    def change() -> None:
        ensure_name(
            w,
            w.settings,
            lambda: w.statusBar().showMessage(
                f"Your name is now \u201c{reviewer_name(w.settings)}\u201d: the decisions, "
                "replies and comments you make from now on carry it."
            ),
            again=True,
        )

    e = w.menuBar().addMenu("&Edit")
    w.act_your_name = QAction("Your &name\u2026", w, triggered=change)
    w.act_your_name.setStatusTip("The name your decisions, replies and comments carry")
    e.addAction(w.act_your_name)


def _view_and_help_menus(w: Any) -> None:
    """The View menu (a tab per Ctrl+digit) and the Help menu."""
    v = w.menuBar().addMenu("&View")
    for i, name in enumerate(TAB_NAMES):
        act = QAction(name, w, shortcut=QKeySequence(f"Ctrl+{i + 1}"))
        act.triggered.connect(lambda _=False, i=i: w._go(i))
        v.addAction(act)
    v.addSeparator()
    _theme_menu(w, v.addMenu("&Theme"))
    h = w.menuBar().addMenu("&Help")
    h.addAction(
        QAction(
            "How to read the &verdicts",
            w,
            shortcut=QKeySequence.StandardKey.HelpContents,
            triggered=w.show_reading_help,
        )
    )
    h.addAction(QAction("The &README\u2019s sections\u2026", w, triggered=w.open_readme))
    h.addSeparator()
    h.addAction(QAction("&About", w, triggered=w.show_about))


THEME_ENTRIES = (("&Light", "light"), ("&Dark", "dark"), ("&Follow the system", "system"))


def _theme_menu(w: Any, menu: QMenu) -> None:
    """Light, Dark or Follow the system, one ticked; the choice is kept in the user's
    settings (``app.theme.choose``). ``ARL_THEME`` set: the entries are shown, not usable,
    under a line saying so."""
    group = QActionGroup(w)
    group.setExclusive(True)
    now = theme.choice()
    w.theme_actions = {}
    for label, which in THEME_ENTRIES:
        act = QAction(label, w, checkable=True)
        act.setChecked(which == now)
        act.triggered.connect(lambda _=False, which=which: _choose(which))
        group.addAction(act)
        menu.addAction(act)
        w.theme_actions[which] = act
    if theme.forced():
        note = menu.addAction(f"Set to {theme.forced()} by ARL_THEME for this session")
        note.setEnabled(False)
        group.setEnabled(False)


def _choose(which: str) -> None:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        theme.choose(app, which)
