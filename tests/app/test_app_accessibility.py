"""Every control reachable and named for a screen reader: a walk of each tab's
accessibility tree (names and roles present, every focusable control in the focus chain),
and the Verdicts view used with the keyboard only."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from app.window import MainWindow

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "remote-work-policy-scripted"
CONTROLS = (
    QAbstractButton,
    QLineEdit,
    QComboBox,
    QAbstractItemView,
    QAbstractSpinBox,
    QPlainTextEdit,
    QTextEdit,
)


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1366, 768)
    w.show()
    with qtbot.waitSignal(w.verdicts.rendered, timeout=30000):
        w.open_bundle(DEMO)
    return w


def _controls(tab: QWidget) -> list[QWidget]:
    out = []
    for c in tab.findChildren(QWidget):
        if isinstance(c, CONTROLS) and c.isVisibleTo(tab) and c.isEnabled():
            if type(c).__name__ in ("QLineEdit",) and isinstance(c.parent(), QComboBox):
                continue  # a combo box's own editor: the combo box is named
            if isinstance(c, QHeaderView) or c.objectName() in (
                "qt_tableview_cornerbutton",
                "qt_spinbox_lineedit",  # a spin box's own editor: the spin box is named
            ):
                continue  # a table's own header parts: the table is named
            out.append(c)
    return out


def _name(w: QWidget) -> str:
    iface = QAccessible.queryAccessibleInterface(w)
    return (iface.text(QAccessible.Text.Name) if iface is not None else "").strip()


def test_every_control_of_every_tab_has_a_name_and_a_role(qtbot, window):
    missing = []
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        tab = window.tabs.widget(i)
        qtbot.wait(20)
        for c in _controls(tab):
            iface = QAccessible.queryAccessibleInterface(c)
            role = iface.role() if iface is not None else QAccessible.Role.NoRole
            if not _name(c) or role == QAccessible.Role.NoRole:
                what = c.text() if isinstance(c, QAbstractButton) else c.objectName()
                missing.append(f"{window.tabs.tabText(i)}: {type(c).__name__} {what!r}")
    assert not missing, "\n".join(missing)


def test_every_focusable_control_of_the_verdicts_tab_is_in_the_focus_chain(qtbot, window):
    window.tabs.setCurrentIndex(window.TAB_VERDICTS)
    tab = window.tabs.widget(window.TAB_VERDICTS)
    focusable = {
        c for c in _controls(tab) if c.focusPolicy() & Qt.FocusPolicy.TabFocus and c.isVisible()
    }
    chain, w = set(), window.verdicts.table
    for _ in range(2000):
        chain.add(w)
        w = w.nextInFocusChain()
        if w is window.verdicts.table:
            break
    assert focusable <= chain, [type(c).__name__ for c in focusable - chain]


def test_the_verdicts_view_with_the_keyboard_only(qtbot, window):
    v = window.verdicts
    window.tabs.setCurrentIndex(window.TAB_VERDICTS)
    qtbot.keyClick(v, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)  # to the comments
    assert v.table.hasFocus()
    first = v.table.currentIndex().row()
    qtbot.keyClick(v.table, Qt.Key.Key_Down)  # the next comment
    row = v.table.selectionModel().selectedRows()[0].row()
    assert row == first + 1
    assert f"Comment {v.rows[row]['n']}" in v.detail.toPlainText()  # its detail is open
    qtbot.keyClick(v.table, Qt.Key.Key_Up)  # and back
    assert v.table.selectionModel().selectedRows()[0].row() == first
    qtbot.keyClick(v.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = v.tools.find_bar
    assert bar.field.hasFocus()
    qtbot.keyClicks(bar.field, "annual leave")
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    found = v.table.selectionModel().selectedRows()[0].row()
    assert "annual leave" in v.rows[found]["quote"].casefold()
    qtbot.keyClick(bar.field, Qt.Key.Key_Escape)
    assert not bar.isVisible()
    qtbot.keyClick(
        v.table,
        Qt.Key.Key_D,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert v.doc_stack.currentIndex() == 1  # the changes in one document
    # Deciding from the keyboard (A, D, N, ...) is tested with the decisions
    # (tests/app/test_app_decisions.py); its keys are live while the table has the focus.
