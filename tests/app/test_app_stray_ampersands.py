"""No label of a dialog or a wizard page shows a literal '&': a QLabel turns "&Name" into a
mnemonic only when it is a buddy label (setBuddy) holding plain text; any other label shows
the '&' as it is ("The version you &reviewed"). Every dialog and every wizard page is built
offscreen and each of its labels' texts is checked as the label would draw it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtGui import Qt
from PySide6.QtWidgets import QLabel, QWidget

_ENTITY = re.compile(r"&(#\d+|#x[0-9a-fA-F]+|[A-Za-z]+);")


def stray(label: QLabel) -> bool:
    """Whether ``label`` draws a literal '&' its author meant as a mnemonic."""
    text = label.text()
    rich = label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and Qt.mightBeRichText(text)
    )
    if rich:
        return "&" in _ENTITY.sub("", text)
    if label.buddy() is not None:
        return False  # the '&' marks the mnemonic and is not drawn ("&&" draws one)
    return re.search(r"&(?!&)", text.replace("&&", "")) is not None


def labels_of(widget: QWidget) -> list[str]:
    return [lb.text() for lb in widget.findChildren(QLabel) if stray(lb)]


def test_the_rule_itself(qtbot) -> None:
    plain = QLabel("The version you &reviewed:")
    assert stray(plain)
    buddy = QLabel("&Name:")
    buddy.setBuddy(QLabel())
    assert not stray(buddy)
    assert not stray(QLabel("Fish && chips"))
    assert not stray(QLabel("<b>A</b> &amp; B"))
    assert stray(QLabel("<b>A</b> &B"))


def _dialogs(tmp_path: Path) -> list[QWidget]:
    from app.check_revision import CheckRevisionDialog
    from app.settings import Settings
    from app.wizard.setup import SetupWizard
    from app.word_copy import WordCopyDialog

    settings = Settings(tmp_path / "settings.ini")
    # the wizard holds every page (and the checks box on the last one) as its children
    return [
        CheckRevisionDialog(settings, None),
        WordCopyDialog(None, str(tmp_path)),
        SetupWizard(settings),
    ]


def test_no_dialog_or_wizard_page_shows_a_stray_ampersand(qtbot, tmp_path: Path) -> None:
    found = {}
    for w in _dialogs(tmp_path):
        qtbot.addWidget(w)
        bad = labels_of(w)
        if bad:
            found[type(w).__name__] = bad
    assert found == {}
