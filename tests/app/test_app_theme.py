"""Light and dark: the theme follows the system's colour scheme (ARL_THEME overrides), and
every verdict colour has 3:1 against a white page and against the dark base (WCAG 1.4.11),
with badge text at 4.5:1 on it (1.4.3)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtGui import QPalette

from app import theme
from app.docview import CHANGE_STYLES, STYLES


def _lum(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) / 255 for i in (0, 2, 4))

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_lum(a), _lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_contrast_formula_matches_wcag_examples():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


LIGHT_BACKGROUNDS = ("#ffffff", "#f7f7f7")  # a page; the table's alternate rows
DARK_BACKGROUNDS = (theme.DARK["base"], theme.DARK["alternate"], theme.DARK["window"])


@pytest.mark.parametrize("kind", sorted(STYLES))
@pytest.mark.parametrize("background", LIGHT_BACKGROUNDS + DARK_BACKGROUNDS)
def test_every_verdict_mark_has_3_to_1_in_both_themes(kind, background):
    assert contrast(STYLES[kind].line, background) >= 3.0, (kind, background)


@pytest.mark.parametrize("kind", sorted(STYLES))
def test_badge_text_is_readable_on_its_badge(kind):
    s = STYLES[kind]
    assert contrast(s.badge_text, s.line) >= 4.5, kind


@pytest.mark.parametrize("kind", sorted(CHANGE_STYLES))
def test_change_marks_have_3_to_1_on_a_page(kind):
    assert contrast(str(CHANGE_STYLES[kind]["line"]), "#ffffff") >= 3.0


def test_dark_palette_text_has_4_5_to_1():
    assert contrast(theme.DARK["text"], theme.DARK["base"]) >= 4.5
    assert contrast(theme.DARK["text"], theme.DARK["window"]) >= 4.5
    assert contrast(theme.DARK["disabled"], theme.DARK["base"]) >= 3.0
    assert contrast("#b0b0b0", theme.DARK["base"]) >= 4.5  # theme.muted() in dark
    assert contrast("#5f5f5f", "#ffffff") >= 4.5  # and in light


def test_the_theme_follows_the_override_and_back(qapp, monkeypatch):
    monkeypatch.setenv("ARL_THEME", "dark")
    assert theme.apply(qapp) == "dark"
    base = qapp.palette().color(QPalette.ColorRole.Base).name()
    assert base == theme.DARK["base"] and theme.muted() == "#b0b0b0"
    monkeypatch.setenv("ARL_THEME", "light")
    assert theme.apply(qapp) == "light"
    assert qapp.palette().color(QPalette.ColorRole.Base).name() != theme.DARK["base"]
    assert theme.muted() == "#5f5f5f"


def test_without_an_override_the_system_scheme_decides(qapp, monkeypatch):
    from PySide6.QtCore import Qt

    monkeypatch.delenv("ARL_THEME", raising=False)
    expected = "dark" if qapp.styleHints().colorScheme() == Qt.ColorScheme.Dark else "light"
    assert theme.scheme(qapp) == expected
    theme.apply(qapp)


def test_the_view_menu_chooses_the_theme_and_it_is_remembered(qtbot, qapp, monkeypatch):
    """View > Theme: Dark applies the dark palette and is kept in the user's settings, so
    the next start is dark; Follow the system goes back to the system's scheme."""
    from app import theme
    from app.settings import Settings
    from app.window import MainWindow

    monkeypatch.delenv("ARL_THEME", raising=False)
    system = theme.scheme(qapp, "system")
    w = MainWindow()
    qtbot.addWidget(w)
    acts = w.theme_actions
    assert set(acts) == {"light", "dark", "system"} and acts["system"].isChecked()
    try:
        acts["dark"].trigger()
        assert qapp.property("arl_scheme") == "dark" and theme.is_dark()
        assert Settings().q.value(theme.THEME_KEY) == "dark"
        assert theme.scheme(qapp) == "dark"  # what the next start applies
        again = MainWindow()
        qtbot.addWidget(again)
        assert again.theme_actions["dark"].isChecked()
        acts["light"].trigger()
        assert qapp.property("arl_scheme") == "light"
        acts["system"].trigger()
        assert theme.choice() == "system" and qapp.property("arl_scheme") == system
    finally:
        theme.apply(qapp, "light")


def test_arl_theme_overrides_the_menu_which_says_so(qtbot, monkeypatch):
    from app.window import MainWindow

    monkeypatch.setenv("ARL_THEME", "dark")
    w = MainWindow()
    qtbot.addWidget(w)
    assert not w.theme_actions["light"].isEnabled()
    texts = [a.text() for a in w.theme_actions["light"].associatedObjects()[0].actions()]
    assert any("ARL_THEME" in t for t in texts)
