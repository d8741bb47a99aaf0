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
