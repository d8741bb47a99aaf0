"""The Run tab: a looping model is said with the choice to stop; before a document leaves
the computer for a server, the user is told where it goes and asked, once per server."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtWidgets import QMessageBox

from app.send_notice import agreed_hosts, ask_before_sending
from app.settings import Settings
from app.window import MainWindow
from engine import events as ev


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


def test_a_looping_model_offers_to_stop(qtbot, window, monkeypatch):
    rv = window.run_view
    monkeypatch.setattr(type(rv), "running", property(lambda self: True))
    stopped = []
    monkeypatch.setattr(rv, "cancel", lambda: stopped.append(1))
    text = "The model has made the same call (list_comments, with the same arguments) 4 times"
    rv._on_event(ev.AgentNotice("r1", round=1, topic="repeating:list_comments:{}", text=text))
    assert (not rv.alert.isHidden()) and rv.alert.text.text() == text
    rv.alert.stop_btn.click()
    assert stopped == [1] and rv.alert.isHidden()
    rv._on_event(ev.AgentNotice("r1", round=1, topic="repeating:pull_document:{}", text=text))
    rv.alert.go_on_btn.click()
    assert rv.alert.isHidden() and stopped == [1]
    # Other notices do not ask anything.
    rv._on_event(ev.AgentNotice("r1", round=1, topic="tool_choice", text="auto"))
    assert rv.alert.isHidden()


def test_a_server_elsewhere_is_named_and_asked_once(qtbot, window):
    settings = Settings()
    went = []
    assert (
        ask_before_sending(window, settings, "https://api.example.com/v1", lambda: went.append(1))
        is False
    )
    box = window._send_box
    assert isinstance(box, QMessageBox)
    assert "will be sent to api.example.com" in box.text()
    send = next(b for b in box.buttons() if b.text() == "Send and start the run")
    send.click()
    qtbot.waitUntil(lambda: went == [1], timeout=5000)
    assert agreed_hosts(Settings()) == ["api.example.com"]
    # Asked once: the next run to the same server goes at once.
    assert ask_before_sending(
        window, settings, "https://api.example.com/v1", lambda: went.append(2)
    )
    assert went == [1, 2]


def test_cancel_sends_nothing_and_a_local_server_is_not_asked(qtbot, window):
    settings = Settings()
    went = []
    ask_before_sending(window, settings, "https://other.example.org/v1", lambda: went.append(1))
    window._send_box.reject()
    qtbot.wait(50)
    assert went == [] and agreed_hosts(settings) == []
    assert ask_before_sending(window, settings, "http://127.0.0.1:8089/v1", lambda: went.append(2))
    assert went == [2]


def test_a_slow_model_is_said_to_be_waited_on_with_the_time_so_far(qtbot, window, monkeypatch):
    """The log does not sit at "Agent mode: tools" for a minute: after a few quiet seconds
    of work its last line says the run waits on the model, ticking; the next step takes it
    away, and a run that ended leaves none."""
    import time

    from app import runview
    from engine.run.records import RunHandle

    rv = window.run_view
    rv.handle = RunHandle()
    rv.handle.phase = "working"
    rv.timer.start()
    rv._on_event(ev.AgentNotice("r1", round=1, topic="mode", text="Agent mode: tools"))
    rv._tick()
    assert rv.log.count() == 1  # not yet: the model has just been asked
    now = time.monotonic()
    monkeypatch.setattr(runview.time, "monotonic", lambda: now + 15.2)
    rv._tick()
    assert rv.log.count() == 2
    last = rv.log.item(1).text()
    assert last.startswith("Waiting for the model to send its answer: 0:15 so far")
    monkeypatch.setattr(runview.time, "monotonic", lambda: now + 75.0)
    rv._tick()
    assert rv.log.count() == 2 and "1:15 so far" in rv.log.item(1).text()
    rv._on_event(ev.ModelCalled("r1", round=1, purpose="work", tokens=9, run_tokens=9, seconds=75))
    assert rv.log.count() == 2 and rv.log.item(1).text().startswith("Model call (work) took")
    rv.handle.phase = "reporting"
    monkeypatch.setattr(runview.time, "monotonic", lambda: now + 80.0)
    rv._tick()
    assert rv.log.item(2).text().startswith("Waiting for the model to send its report: 0:05")
    rv.timer.stop()
    rv._tick()
    assert rv.log.count() == 2  # ended: the waiting line goes
