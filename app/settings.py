"""Typed settings over ``QSettings`` (INI format), with defaults, a version key and migrations.

The file is ``$ARL_HOME/settings.ini`` when ``ARL_HOME`` is set (tests, portable use), else
``<platform config dir>/agent-review-loop/settings.ini``. No API key is ever stored here:
keys live in the OS keyring (``app.secrets``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

SETTINGS_VERSION = 1
MAX_RECENT = 10


def engine_run_defaults() -> dict[str, Any]:
    """The run defaults, from the engine's one definition (the same as ``arl run``'s):
    ``engine.run.ReviewRequest.rounds`` and ``engine.agent.AgentConfig``'s turns per round,
    token limit (0 here: no limit) and tool-result echo."""
    import dataclasses

    from engine.agent.config import AgentConfig
    from engine.run.start import ReviewRequest

    agent = {f.name: f.default for f in dataclasses.fields(AgentConfig)}
    request = {f.name: f.default for f in dataclasses.fields(ReviewRequest)}
    return {
        "run/rounds": request["rounds"],
        "run/max_tokens": agent["max_tokens_per_run"] or 0,
        "run/turns_per_round": agent["max_turns_per_round"],
        "run/echo_tool_results": agent["echo_tool_results"],
        "run/mode": agent["mode"],
    }


_STATIC_DEFAULTS: dict[str, Any] = {
    "model/preset": "openai",
    "model/base_url": "https://api.openai.com/v1",
    "model/name": "",
    "bundles/recent": [],
    # The Word files a bundle was checked from (Check a revision made elsewhere), so Save
    # the verdicts into a Word copy can start from them: "bundle\x1freviewed\x1frevised".
    "bundles/word_sources": [],
    # Declared checks (docs/checks.md): the checks file last chosen, and the user's own
    # permission for its commands to run (never the file's).
    "checks/file": "",
    "checks/allow_commands": False,
    "ui/last_dir": "",
}
_defaults: dict[str, Any] | None = None


def defaults() -> dict[str, Any]:
    """Every key's default: the static ones and the run defaults (``engine_run_defaults``).
    Built at the first call, not at import: the run defaults import ``engine.run.start``
    (the run machinery, about 1 s), which a program opening a bundle never needs."""
    global _defaults
    if _defaults is None:
        _defaults = {**_STATIC_DEFAULTS, **engine_run_defaults()}
    return _defaults


def default_of(key: str) -> Any:
    """The default of ``key`` (None for a key without one); ``run/`` keys only import the
    engine's run defaults."""
    if key in _STATIC_DEFAULTS or not key.startswith("run/"):
        return _STATIC_DEFAULTS.get(key)
    return defaults().get(key)


def __getattr__(name: str) -> Any:
    """``DEFAULTS`` (``defaults()``), built when first asked for."""
    if name == "DEFAULTS":
        return defaults()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


MAX_NAME = 80  # characters of the user's name kept


def home_dir() -> Path:
    """The folder for settings and logs (``ARL_HOME`` moves it)."""
    env = os.environ.get("ARL_HOME")
    if env:
        return Path(env)
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericConfigLocation)
    return Path(base or Path.home() / ".config") / "agent-review-loop"


def log_path() -> Path:
    return home_dir() / "agent-review-loop.log"


class Settings:
    """The application's settings. Each property reads and writes through QSettings."""

    def __init__(self, path: Path | None = None):
        self.path = path or home_dir() / "settings.ini"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.q = QSettings(str(self.path), QSettings.Format.IniFormat)
        self._migrate()

    # -- plumbing ---------------------------------------------------------------------------

    def _migrate(self) -> None:
        version = int(self.q.value("settings_version", 0) or 0)
        if version < 1:
            # Version 0 had no key names of its own; a key must never be in this file.
            for k in ("api_key", "model/api_key"):
                self.q.remove(k)
        self.q.setValue("settings_version", SETTINGS_VERSION)

    def get(self, key: str) -> Any:
        default = default_of(key)
        value = self.q.value(key, default)
        if isinstance(default, bool):
            return value in (True, "true", "1", 1)
        if isinstance(default, int):
            try:
                return int(value)
            except (TypeError, ValueError):
                return default
        if isinstance(default, list):
            if value is None or value == "":
                return []
            return [value] if isinstance(value, str) else list(value)
        return "" if value is None else str(value)

    def set(self, key: str, value: Any) -> None:
        if "key" in key.split("/")[-1] and "api" in key:
            raise ValueError("API keys are never written to the settings file")
        self.q.setValue(key, value)

    def sync(self) -> None:
        self.q.sync()

    # -- typed accessors ------------------------------------------------------------------

    @property
    def preset(self) -> str:
        return self.get("model/preset")

    @preset.setter
    def preset(self, v: str) -> None:
        self.set("model/preset", v)

    @property
    def base_url(self) -> str:
        return self.get("model/base_url")

    @base_url.setter
    def base_url(self, v: str) -> None:
        self.set("model/base_url", v)

    @property
    def model(self) -> str:
        return self.get("model/name")

    @model.setter
    def model(self, v: str) -> None:
        self.set("model/name", v)

    @property
    def rounds(self) -> int:
        return self.get("run/rounds")

    @rounds.setter
    def rounds(self, v: int) -> None:
        self.set("run/rounds", int(v))

    @property
    def max_tokens(self) -> int:
        return self.get("run/max_tokens")

    @max_tokens.setter
    def max_tokens(self, v: int) -> None:
        self.set("run/max_tokens", int(v))

    @property
    def turns_per_round(self) -> int:
        return self.get("run/turns_per_round")

    @turns_per_round.setter
    def turns_per_round(self, v: int) -> None:
        self.set("run/turns_per_round", int(v))

    @property
    def echo_tool_results(self) -> bool:
        return bool(self.get("run/echo_tool_results"))

    @echo_tool_results.setter
    def echo_tool_results(self, v: bool) -> None:
        self.set("run/echo_tool_results", bool(v))

    @property
    def agent_mode(self) -> str:
        """``tools`` | ``no-tools`` | ``auto`` (``engine.agent.MODES``)."""
        from engine.agent.modes import MODES

        v = self.get("run/mode")
        return v if v in MODES else "tools"

    @agent_mode.setter
    def agent_mode(self, v: str) -> None:
        self.set("run/mode", v)

    @property
    def user_name(self) -> str:
        """The user's name, asked once: it signs their comments and decisions (the key
        ``review/reviewer`` the decision panel reads too). "" until given."""
        return " ".join(str(self.get("review/reviewer") or "").split())

    @user_name.setter
    def user_name(self, v: str) -> None:
        self.set("review/reviewer", " ".join(v.split())[:MAX_NAME])

    @property
    def recent_bundles(self) -> list[str]:
        return [p for p in self.get("bundles/recent") if p]

    def add_recent_bundle(self, path: str, replacing: str = "") -> None:
        """``path`` first in the list, once; ``replacing`` (a bundle ``path`` stands for,
        such as the original of the user's copy) taken off it."""
        items = [p for p in self.recent_bundles if p not in (path, replacing)]
        self.set("bundles/recent", ([path] + items)[:MAX_RECENT])

    def word_sources(self, bundle: str) -> tuple[str, str] | None:
        """(reviewed, revised) ``.docx`` paths the bundle folder ``bundle`` was checked
        from, as :meth:`remember_word_sources` kept them; None when not known."""
        key = str(Path(bundle).resolve())
        for item in self.get("bundles/word_sources"):
            parts = str(item).split("\x1f")
            if len(parts) == 3 and parts[0] == key:
                return parts[1], parts[2]
        return None

    def remember_word_sources(self, bundle: str, reviewed: str, revised: str) -> None:
        """Keep the Word files a bundle was checked from (the latest :data:`MAX_RECENT`)."""
        key = str(Path(bundle).resolve())
        items = [i for i in self.get("bundles/word_sources") if str(i).split("\x1f")[0] != key]
        entry = "\x1f".join([key, str(Path(reviewed).resolve()), str(Path(revised).resolve())])
        self.set("bundles/word_sources", ([entry] + items)[:MAX_RECENT])

    @property
    def last_dir(self) -> str:
        return self.get("ui/last_dir")

    @last_dir.setter
    def last_dir(self, v: str) -> None:
        self.set("ui/last_dir", v)

    def start_folder(self) -> Path:
        """Where a file dialog opens: the last folder used, else the home folder."""
        last = self.last_dir
        return Path(last) if last and Path(last).is_dir() else Path.home()

    def remember_folder_of(self, path: str) -> None:
        """A file was chosen: its folder is where the next dialog opens."""
        if path:
            self.last_dir = str(Path(path).resolve().parent)

    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        g = self.q.value("ui/geometry")
        s = self.q.value("ui/state")
        return (g if isinstance(g, QByteArray) else None, s if isinstance(s, QByteArray) else None)

    def save_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self.q.setValue("ui/geometry", geometry)
        self.q.setValue("ui/state", state)
