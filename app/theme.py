"""Light or dark, as the system says: Qt's colour scheme (``QStyleHints.colorScheme``,
which follows the desktop's setting), followed live when it changes.

The user can choose instead (View > Theme: Light, Dark, Follow the system), kept in their
settings (``ui/theme``: ``light``, ``dark`` or ``system``). ``ARL_THEME=light`` or ``dark``
overrides both (for a desktop that reports no scheme, and for screenshots and tests). Dark uses the Fusion style with a dark palette of its own (Fusion
is the one style that paints every widget from the palette on every platform). The
documents under review keep their own colours (a page is shown as its author made it);
the verdict colours (``app.docview.STYLES``) have 3:1 against both a white page and this
palette's base (WCAG 1.4.11), which ``tests/app/test_app_theme.py`` checks.
"""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle

DARK = {
    "window": "#2b2b2b",
    "base": "#1f1f1f",
    "alternate": "#262626",
    "text": "#e8e8e8",
    "disabled": "#8a8a8a",
    "button": "#353535",
    "highlight": "#3c79b6",  # white on it 4.56:1; on base 3.61:1, on window 3.10:1
    "link": "#8ab4f8",
    "tooltip": "#3a3a3a",
    # Not a palette role: what Fusion derives a check box's and a radio button's outline
    # from (``Indicators``). Its outlines come out #929292 and #858585, 3:1 or more on the
    # base, the window and a button (tests/app/test_theme_contrast.py measures the pixels).
    "indicator_window": "#c8c8c8",
}


class Indicators(QProxyStyle):
    """Fusion, with check box and radio button outlines that show in the dark scheme.

    Fusion draws those outlines in the palette's Window colour made darker (by 1.4 for a
    check box, 1.5 for a radio button): on a dark palette that is the base itself, and an
    unticked box or an unchosen radio button was invisible (WCAG 1.4.11 asks 3:1 for a
    control's boundary). Those two primitives are drawn here with ``DARK
    ["indicator_window"]`` as the Window colour; everything else is Fusion's own.
    """

    OUTLINED = (
        QStyle.PrimitiveElement.PE_IndicatorCheckBox,
        QStyle.PrimitiveElement.PE_IndicatorRadioButton,
    )

    def drawPrimitive(self, element, option, painter, widget=None) -> None:
        if element not in self.OUTLINED or option is None:
            super().drawPrimitive(element, option, painter, widget)
            return
        saved = QPalette(option.palette)
        palette = QPalette(saved)
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            palette.setColor(group, QPalette.ColorRole.Window, QColor(DARK["indicator_window"]))
        option.palette = palette
        try:
            super().drawPrimitive(element, option, painter, widget)
        finally:
            option.palette = saved


THEME_KEY = "ui/theme"
CHOICES = ("light", "dark", "system")
"""The user's choices, kept under ``THEME_KEY``; anything else stored reads ``system``."""


def forced() -> str:
    """``"light"`` or ``"dark"`` when ``ARL_THEME`` says so, else ``""``."""
    value = os.environ.get("ARL_THEME", "").strip().lower()
    return value if value in ("dark", "light") else ""


def choice(settings: Any = None) -> str:
    """The user's choice (``CHOICES``), from their settings; ``system`` when none."""
    if settings is None:
        from app.settings import Settings

        settings = Settings()
    value = str(settings.q.value(THEME_KEY, "system") or "system").strip().lower()
    return value if value in CHOICES else "system"


def choose(app: QApplication, which: str, settings: Any = None) -> str:
    """Keep ``which`` (one of ``CHOICES``; ValueError otherwise) as the user's choice and
    apply it now; returns the scheme applied."""
    if which not in CHOICES:
        raise ValueError(f"theme must be one of {CHOICES}, not {which!r}")
    if settings is None:
        from app.settings import Settings

        settings = Settings()
    settings.q.setValue(THEME_KEY, which)
    settings.q.sync()
    return apply(app, which)


def scheme(app: QGuiApplication | None = None, chosen: str | None = None) -> str:
    """``"dark"`` or ``"light"``: ``ARL_THEME`` if set, else the user's choice (``chosen``,
    or read from their settings), else the system's scheme."""
    if forced():
        return forced()
    chosen = choice() if chosen is None else chosen
    if chosen in ("dark", "light"):
        return chosen
    app = app or QGuiApplication.instance()
    if app is None:
        return "light"
    try:
        dark = app.styleHints().colorScheme() == Qt.ColorScheme.Dark
    except AttributeError:  # Qt before 6.5
        dark = False
    return "dark" if dark else "light"


def dark_palette() -> QPalette:
    p = QPalette()
    c = {k: QColor(v) for k, v in DARK.items()}
    R, G = QPalette.ColorRole, QPalette.ColorGroup
    for role, colour in (
        (R.Window, c["window"]),
        (R.WindowText, c["text"]),
        (R.Base, c["base"]),
        (R.AlternateBase, c["alternate"]),
        (R.Text, c["text"]),
        (R.Button, c["button"]),
        (R.ButtonText, c["text"]),
        (R.BrightText, QColor("#ffffff")),
        (R.Highlight, c["highlight"]),
        (R.HighlightedText, QColor("#ffffff")),
        (R.Link, c["link"]),
        (R.ToolTipBase, c["tooltip"]),
        (R.ToolTipText, c["text"]),
        (R.PlaceholderText, c["disabled"]),
    ):
        p.setColor(role, colour)
    for role in (R.WindowText, R.Text, R.ButtonText):
        p.setColor(G.Disabled, role, c["disabled"])
    return p


_light: QPalette | None = None
_dark_style: QProxyStyle | None = None
_light_style: str = ""


def apply(app: QApplication, chosen: str | None = None) -> str:
    """Give ``app`` the palette of the current scheme (``chosen``: the user's choice, read
    from their settings when None); returns the scheme applied."""
    global _light, _light_style
    if _light is None:
        _light = QPalette(app.palette())
        _light_style = app.style().name()
    which = scheme(app, chosen)
    # Said before the palette changes: a view redrawing on the palette's change event
    # (the charts, the scorecard) reads the scheme it is changing to.
    app.setProperty("arl_scheme", which)
    if which == "dark":
        global _dark_style
        _dark_style = Indicators("Fusion")  # kept: the application does not own it in Python
        app.setStyle(_dark_style)
        app.setPalette(dark_palette())
    else:
        if _light_style:
            app.setStyle(_light_style)
        app.setPalette(_light)
    return which


def follow(app: QApplication) -> None:
    """Apply the scheme now and again whenever the system's changes."""
    apply(app)
    try:
        app.styleHints().colorSchemeChanged.connect(lambda _s: apply(app))
    except AttributeError:  # Qt before 6.5
        pass


def is_dark() -> bool:
    """Whether the dark scheme is the one applied (``apply``)."""
    app = QGuiApplication.instance()
    return app is not None and app.property("arl_scheme") == "dark"


CHART_BACKGROUND = {"light": "#ffffff", "dark": DARK["base"]}


def chart_background() -> str:
    """The background of a chart (the Suites tab) in the applied scheme."""
    return CHART_BACKGROUND["dark" if is_dark() else "light"]


def muted() -> str:
    """The colour of secondary text in rich text (ids, notes) for the current scheme, with
    4.5:1 against the base."""
    app = QGuiApplication.instance()
    return "#b0b0b0" if app is not None and app.property("arl_scheme") == "dark" else "#5f5f5f"
