"""What the program ships and runs on: the example and demo bundles in ``resources/`` and the
versions shown by Help > About and ``--smoke-test``. Imported by ``app.main`` and
``app.window`` (which do not import each other for it)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def example_bundle_path(folder: str = "example") -> Path | None:
    """The recorded example run shipped in ``resources/example`` (None if absent).

    ``folder="demo"``: the scripted demonstration in ``resources/demo`` instead."""
    try:
        p = Path(str(resources.files("resources").joinpath(folder)))
    except (ModuleNotFoundError, TypeError):
        return None
    if (p / "manifest.json").is_file():
        return p
    if p.is_dir():
        for z in sorted(p.glob("*.zip")):
            return z
        for sub in sorted(p.iterdir()):
            if (sub / "manifest.json").is_file():
                return sub
    return None


def _fixture_bundle_path() -> Path | None:
    p = Path(__file__).resolve().parent.parent / "tests" / "data" / "bundle-min"
    return p if (p / "manifest.json").is_file() else None


def versions_text() -> str:
    import platform

    import PySide6
    from PySide6 import QtCore

    try:
        from PySide6.QtWebEngineCore import qWebEngineChromiumVersion, qWebEngineVersion

        web = f"QtWebEngine {qWebEngineVersion()} (Chromium {qWebEngineChromiumVersion()})"
    except ImportError:  # pragma: no cover
        web = "QtWebEngine unknown"
    from app import secrets as app_secrets
    from engine import __version__ as engine_version

    return "\n".join(
        [
            f"agent-review-loop {engine_version}",
            f"Python {platform.python_version()}",
            f"PySide6 {PySide6.__version__}, Qt {QtCore.qVersion()}",
            web,
            f"keyring backend: {app_secrets.backend_name()}",
        ]
    )
