"""Before a document leaves the machine: the first run to each model server says where
the document and its comments will be sent, and asks.

The endpoint is named by its host (``engine.credentials.key_host``: ``api.example.com``,
``10.0.0.5:8000``). A server on this computer (loopback: ``localhost``, ``127.x.x.x``,
``::1``) receives nothing that leaves it, so it is not asked about. A host the user has
agreed to is kept in the settings (``privacy/sent_to``) and not asked about again; every
run's log still names where its document goes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

SETTING = "privacy/sent_to"


def host_of(base_url: str) -> str:
    from engine.credentials import key_host

    return key_host(base_url)


def is_loopback(host: str) -> bool:
    """True for a host on this computer (``engine.credentials.is_loopback_host``)."""
    from engine.credentials import is_loopback_host

    return is_loopback_host(host)


def where_words(base_url: str) -> str:
    """One sentence for the run's log (``engine.credentials.sent_to_words``)."""
    from engine.credentials import sent_to_words

    return sent_to_words(base_url)


def agreed_hosts(settings: Any) -> list[str]:
    value = settings.q.value(SETTING, []) if settings is not None else []
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value or []]


def ask_before_sending(
    parent: QWidget | None, settings: Any, base_url: str, go: Callable[[], None]
) -> bool:
    """Call ``go()`` at once when nothing leaves the computer or the host was agreed to;
    otherwise ask first (a window-modal box, ``open()``) and call ``go()`` on yes. Returns
    True when it went at once."""
    host = host_of(base_url)
    if not host or is_loopback(host) or host in agreed_hosts(settings):
        go()
        return True
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("The document leaves this computer")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(
        f"The document and its comments will be sent to {host}, the model's server, "
        "for the whole run (every round)."
    )
    box.setInformativeText(
        "Send them only if you may share this document with that server. You are asked "
        "once for each server."
    )
    send = box.addButton("Send and start the run", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(send)

    def done(_r: int) -> None:
        if box.clickedButton() is send:
            if settings is not None:
                settings.q.setValue(SETTING, agreed_hosts(settings) + [host])
                settings.q.sync()
            go()

    box.finished.connect(done)
    if parent is not None:
        parent._send_box = box  # kept alive while open; tests find it here
    box.open()
    return False
