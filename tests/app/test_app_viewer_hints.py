"""Resource hints are neutralised on a real HTML5 parse (app.hints), and loopback is
unreachable from the page except the document server's own origin (app.webflags): the
documents a hand-written scanner got wrong, html5lib's tree-construction inputs with a hint
appended, and the same documents served with no neutralising at all open no connection."""

from __future__ import annotations

import re
import time
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.hints import live_hints, neutralise_hints
from engine.text.html_text import body_text
from tests.app.test_app_viewer_hostile import Listener, listener, load  # noqa: F401

DATA = Path(__file__).resolve().parents[1] / "data" / "html5lib-tests" / "tree-construction"


def scanner_escapes(port: int) -> list[str]:
    """The five documents that left a live hint past the old scanner, and more of the kind
    (a parser disagreement about where markup is)."""
    u = f"http://127.0.0.1:{port}"
    link = f"<link rel=preconnect href='{u}/%d'>"
    return [
        f'<p title="<!--">one{link % 1}<p title="-->">two',
        f'<p title="<script>">one{link % 2}<p title="</script>">two',
        f"<!-->{link % 3}<p>three",
        f"<svg><title><p>{link % 4}four",
        f"<svg><plaintext></plaintext></svg>{link % 5}<p>five",
        # of the same kind
        f"<!--->{link % 6}<p>six",
        f"<math><mi><p>{link % 7}seven",
        f"<svg><foreignObject><div>{link % 8}eight</div></foreignObject></svg>",
        f"<p a='<textarea>'>{link % 9}nine<p b='</textarea>'>",
        f'<p a="<style>">{link % 10}ten<p b="</style>">',
        f"<div x=`<!--`>{link % 11}eleven<div y=`-->`>",
        f"<table><tr><td>{link % 12}twelve</td></tr></table>",
        f"<noframes></noframes>{link % 13}thirteen",
        f"<template><p>in template</p></template>{link % 14}fourteen",
        f"<p>{link.replace('rel=', 'REL = ') % 15}fifteen",
        f"<p>{link.replace('rel=preconnect', 'rel=&#x70;reconnect') % 16}sixteen",
        f"<p>\ufeff{link % 17}seventeen",
        f"<p>一二三 عربى {link % 18} ไทย 🙂</p>",
    ]


def html5lib_inputs(limit: int = 400) -> list[str]:
    """``#data`` sections of html5lib's tree-construction tests (tokenizer and tree-builder
    edge cases): comments, raw text, foreign content, misnested markup."""
    out: list[str] = []
    for f in sorted(DATA.glob("*.dat")):
        text = f.read_text(encoding="utf-8", errors="replace")
        for m in re.finditer(r"#data\n(.*?)\n#errors", text, re.S):
            out.append(m.group(1))
    step = max(1, len(out) // limit)
    return out[::step][:limit]


def with_hints(data: str, port: int) -> list[str]:
    hint = f"<link rel=preconnect href='http://127.0.0.1:{port}/h'>"
    return [data + hint, hint + data, data.replace(">", ">" + hint, 1)]


def test_the_scanner_escapes_are_neutralised_on_the_parse():
    for doc in scanner_escapes(9):
        assert live_hints(doc), doc  # each is a live hint for a real parser
        out = neutralise_hints(doc)
        assert out != doc and not live_hints(out), doc
        assert body_text(out) == body_text(doc)


def test_html5lib_inputs_with_a_hint_are_neutralised_or_left_to_the_proxy():
    left = 0
    cases = html5lib_inputs()
    assert len(cases) > 300
    for data in cases:
        for doc in with_hints(data, 9):
            out = neutralise_hints(doc)
            if live_hints(out):
                assert out == doc  # never a half-done rewrite; the proxy switches guard it
                left += 1
            else:
                assert body_text(out) == body_text(doc), doc
    assert left < len(cases) // 20, left  # the parse handles nearly all of them


def test_bytes_come_back_as_bytes_and_inert_links_stay():
    keep = b"<link rel=stylesheet href=x><link rel=icon href=y><p>rel=preconnect</p>"
    assert neutralise_hints(keep) == keep
    out = neutralise_hints(b"<link rel=preconnect href=x><p>t</p>")
    assert isinstance(out, bytes) and b'arl="preconnect"' in out


def _serve_raw(qtbot, shown, page: bytes) -> None:
    """Serve ``page`` exactly as given (no neutralising): only the switches guard it."""
    url = shown.server.add(b"<p>placeholder</p>")
    docs = shown.server._server.docs
    docs[url.path()] = replace(
        docs[url.path()], body=page, ctype="text/html; charset=utf-8", cut=len(page)
    )
    shown._page.allowed_url = url
    with qtbot.waitSignal(shown._page.loadFinished, timeout=20000) as blocker:
        shown._page.load(url)
    assert blocker.args[0] is True  # the document server's own origin is reachable


def _wait(qtbot, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        qtbot.wait(100)


def test_no_connection_from_the_scanner_escapes(qtbot, view, listener):  # noqa: F811
    for doc in scanner_escapes(listener.port):
        load(qtbot, view, doc.encode("utf-8"))
    _wait(qtbot, 2.0)
    assert listener.connections == 0


def test_loopback_is_unreachable_even_with_no_neutralising(qtbot, view, listener):  # noqa: F811
    docs = scanner_escapes(listener.port)
    docs.append(f"<link rel=preconnect href='http://127.0.0.1:{listener.port}/'><p>x</p>")
    docs.append(f"<link rel=dns-prefetch href='//127.0.0.1:{listener.port}'><p>x</p>")
    docs.append(f"<link rel=preload as=font href='http://127.0.0.1:{listener.port}/f'>x")
    for doc in docs:
        _serve_raw(qtbot, view, doc.encode("utf-8"))
    _wait(qtbot, 2.5)
    assert listener.connections == 0


def test_no_connection_from_html5lib_inputs(qtbot, view, listener):  # noqa: F811
    for data in html5lib_inputs(30):
        for doc in with_hints(data, listener.port)[:1]:
            load(qtbot, view, doc.encode("utf-8"))
    _wait(qtbot, 2.0)
    assert listener.connections == 0


def test_inherited_switches_name_this_processs_ports():
    """A child process (the program started from a test run, or by itself) inherits the
    parent's QTWEBENGINE_CHROMIUM_FLAGS: the parent's proxy switches name the parent's
    document port, so they are replaced, never kept; a proxy of the user's own is kept."""
    from app import webflags

    parent = '--disable-gpu --proxy-server=http://127.0.0.1:5555 --proxy-bypass-list="<-loopback>;127.0.0.1:6666"'
    env = {webflags.ENV: parent}
    flags = webflags.apply(env)
    # (the ports as whole numbers: this process's own, drawn at random, may hold "5555")
    ports = re.findall(r"127\.0\.0\.1:(\d+)", flags)
    assert "5555" not in ports and "6666" not in ports and flags.startswith("--disable-gpu")
    assert f"127.0.0.1:{webflags.document_port()}" in flags
    assert webflags.apply(env) == flags  # once
    own = {webflags.ENV: "--proxy-server=socks5://proxy.example:1080"}
    kept = webflags.apply(own)
    assert "socks5://proxy.example:1080" in kept and "--proxy-bypass-list" not in kept
