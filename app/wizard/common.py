"""Shared helpers of the setup wizard's pages."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any


def start_task(coro: Awaitable[Any]) -> asyncio.Task | None:
    """Start ``coro`` on the running loop; None (and the coroutine closed) without one."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            loop = None
    if loop is None or loop.is_closed():
        coro.close()  # type: ignore[attr-defined]
        return None
    return asyncio.ensure_future(coro, loop=loop)


def last_folder(wizard: Any) -> str:
    """The folder a file picker opens in: the last one used (settings), else home."""
    from pathlib import Path

    settings = getattr(wizard, "settings", None)
    last = getattr(settings, "last_dir", "") if settings is not None else ""
    return last if last and Path(last).is_dir() else str(Path.home())


def remember_folder(wizard: Any, path: str) -> None:
    """Remember ``path``'s folder for the next file picker."""
    from pathlib import Path

    settings = getattr(wizard, "settings", None)
    if settings is not None and path:
        settings.last_dir = str(Path(path).resolve().parent)
