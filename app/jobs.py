"""Blocking work off the UI thread, results handed back on it (Anki's pattern).

``run_in_thread(fn, on_done, on_error)`` runs ``fn()`` on a worker thread and calls
``on_done(result)`` or ``on_error(exc)`` on the thread that owns the Qt event loop. Worker
code returns values and never touches a widget. Works with or without a qasync loop.
``on_ui_thread(callback)`` hands worker code a function whose calls reach ``callback`` on the
UI thread (a partial result: a bundle's documents before its records).

``collect_garbage_on_ui_thread(parent)`` turns Python's automatic garbage collector off and
runs it from a timer on the UI thread instead (Anki does the same): a collection started by
an allocation in a worker thread (reading a bundle's JSON, the loopback document server)
could otherwise destroy a widget's wrapper there, and Qt objects must be destroyed on
their own thread -- it crashed the test suite with a segmentation fault.
"""

from __future__ import annotations

import concurrent.futures
import gc
import logging
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Qt, QTimer, Signal

_pool = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="arl-job")


class _Relay(QObject):
    finished = Signal(object, object, object)  # callback, value, is_error


_relay: _Relay | None = None


def _get_relay() -> _Relay:
    global _relay
    if _relay is None:
        _relay = _Relay()
        _relay.finished.connect(_deliver, Qt.ConnectionType.QueuedConnection)
    return _relay


def _deliver(callback: Callable[[Any], None], value: Any, _is_error: Any) -> None:
    """Call ``callback(value)`` on the UI thread, unless it is a method of a widget that was
    closed and deleted while the work ran (the result has nowhere to go)."""
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, QObject) and not shiboken6.isValid(owner):
        return
    try:
        callback(value)
    except RuntimeError as exc:
        if "already deleted" not in str(exc):  # a child widget of a closed view went away
            raise


def run_in_thread(
    fn: Callable[[], Any],
    on_done: Callable[[Any], None],
    on_error: Callable[[BaseException], None] | None = None,
) -> concurrent.futures.Future:
    relay = _get_relay()

    def work() -> None:
        try:
            value = fn()
        except BaseException as exc:
            # The traceback to the log: what the user reads is error_words(exc). An error
            # that is itself the sentence shown (``said_in_words``: a bundle that cannot be
            # opened) is one line there, so the log keeps tracebacks for real failures.
            log = logging.getLogger(__name__)
            if getattr(exc, "said_in_words", False):
                log.info("a worker job failed: %s", exc)
            else:
                log.info("a worker job failed", exc_info=exc)
            if on_error is not None:
                relay.finished.emit(on_error, exc, True)
            return
        relay.finished.emit(on_done, value, False)

    return _pool.submit(work)


def on_ui_thread(callback: Callable[[Any], None]) -> Callable[[Any], None]:
    """A function that worker code may call with a value: ``callback(value)`` then runs on
    the UI thread (made on the UI thread, before the work starts)."""
    relay = _get_relay()
    return lambda value: relay.finished.emit(callback, value, False)


def executor() -> concurrent.futures.ThreadPoolExecutor:
    """The shared pool, for ``loop.run_in_executor`` in coroutines."""
    return _pool


def collect_garbage_on_ui_thread(parent: QObject, interval_ms: int = 1000) -> QTimer:
    """Disable automatic garbage collection and collect from a timer owned by ``parent``
    (on the UI thread), by the same thresholds the automatic collector uses
    (``gc.get_threshold()``). Returns the running timer."""
    gc.disable()
    timer = QTimer(parent)
    timer.setInterval(interval_ms)
    timer.timeout.connect(collect_due)
    timer.start()
    return timer


def collect_due() -> int:
    """Collect the generation the automatic collector would have by now (-1: none due);
    call it on the UI thread."""
    c0, c1, c2 = gc.get_count()
    t0, t1, t2 = gc.get_threshold()
    if c0 <= t0:
        return -1
    gen = 2 if c1 > t1 and c2 > t2 else 1 if c1 > t1 else 0
    gc.collect(gen)
    return gen
