"""The wizard's "Try with a scripted agent (no model)": the project's scripted server
(``tests/helpers/scripted_server.py``, the same OpenAI-compatible server the tests and the
shipped demo use) started inside the program on 127.0.0.1, so a new user with no model
and no key can make a whole run: a script plays the agent (it rewrites each commented
passage, resolves the comments, reports), the real program scores it, and the bundle says
it is scripted.

The server is part of a source checkout (``uv run agent-review-loop`` in a clone), not of a
frozen build: ``available()`` says whether it can be started here, and the preset is offered
only then. One server per program, started on first use (``base_url()``; started again if
it stopped) and stopped at exit. Its address lasts as long as the program: the wizard
never saves it as the user's address (app.settings), so a restarted program starts a new
server instead of calling a dead one. Nothing leaves the computer.
"""

from __future__ import annotations

import atexit
import importlib
from typing import Any

MODEL = "scripted-model"
_server: Any = None
_registered = False  # _stop is registered to run at exit (once)


def _module() -> Any | None:
    try:
        return importlib.import_module("tests.helpers.scripted_server")
    except ImportError:
        return None


def available() -> bool:
    """True when the scripted server is part of this installation (a source checkout)."""
    return _module() is not None


def base_url() -> str:
    """The running scripted server's base URL (started on first use). Raises RuntimeError
    when it is not part of this installation."""
    global _server, _registered
    mod = _module()
    if mod is None:
        raise RuntimeError("the scripted agent is part of a source checkout only")
    thread = getattr(_server, "_thread", None)
    if _server is not None and (thread is None or not thread.is_alive()):
        _stop()  # it stopped: a new one, at a new address
    if _server is None:
        if not _registered:
            atexit.register(_stop)
            _registered = True
        _server = mod.ScriptedServer(mod.FixEverything()).start()
    return str(_server.base_url)


def _stop() -> None:
    global _server
    if _server is not None:
        try:
            _server.stop()
        finally:
            _server = None
