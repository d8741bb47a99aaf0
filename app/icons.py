"""Icons drawn as images, never as characters: an emoji or a rare symbol shows as an empty
box on a stock Linux font set. Each icon is one of Qt's standard icons (``QStyle``) or an
SVG shipped in ``resources/icons``.

``icon(name) -> QIcon`` for the names in ``ICON_NAMES`` (raises KeyError for another name);
``EVENT_ICONS`` maps each engine event class name (``engine.events``) to an icon name.
"""

from __future__ import annotations

from importlib import resources

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QStyle

SP = QStyle.StandardPixmap

# name -> a Qt standard pixmap, or the file name of an SVG in resources/icons.
_SOURCES: dict[str, SP | str] = {
    "info": SP.SP_MessageBoxInformation,
    "warning": SP.SP_MessageBoxWarning,
    "error": SP.SP_MessageBoxCritical,
    "recovered": SP.SP_BrowserReload,
    # Not a triangle: a row with one looks like it could be opened, and it cannot.
    "round": "round.svg",
    "model": SP.SP_DriveNetIcon,
    "tool": "tool.svg",
    "nudge": "step.svg",
    "pushed": SP.SP_ArrowUp,
    "report": SP.SP_FileDialogContentsView,
    "verdicts": SP.SP_FileDialogDetailedView,
    "reopened": SP.SP_BrowserReload,
    "done": SP.SP_DialogApplyButton,
    "finished": "finished.svg",
    "stopped": SP.SP_MediaStop,
    "signed": "signed.svg",
    "step": "step.svg",
}
ICON_NAMES = frozenset(_SOURCES)

EVENT_ICONS: dict[str, str] = {
    "RunStarted": "info",
    "RunRecovered": "recovered",
    "WordRevisionWritten": "info",
    "RoundStarted": "round",
    "ModelCalled": "model",
    "ToolCalled": "tool",
    "NarrationNudged": "nudge",
    "AgentNotice": "info",
    "VersionPushed": "pushed",
    "ReportReceived": "report",
    "VerdictsComputed": "verdicts",
    "ChecksComputed": "verdicts",  # the declared checks' results, beside the verdicts
    "CommentReopened": "reopened",
    "ClaimUnchanged": "warning",
    "RoundFinished": "done",
    "RunFinished": "finished",
    "RunFailed": "error",
}

_cache: dict[str, QIcon] = {}


def icon(name: str) -> QIcon:
    """The icon called ``name`` (one of ``ICON_NAMES``); needs a QApplication."""
    if name in _cache:
        return _cache[name]
    src = _SOURCES[name]
    if isinstance(src, str):
        path = resources.files("resources").joinpath(f"icons/{src}")
        made = QIcon(str(path))
    else:
        made = QApplication.style().standardIcon(src)
    _cache[name] = made
    return made
