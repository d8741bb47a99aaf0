"""Secrets never printed or stored (engine/redact.py), against a server that echoes headers."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from engine.cli import main as arl
from engine.redact import MASK, RedactingFilter, forget_all, redact, redact_json, remember
from engine.scoring import Version
from engine.workspace import Workspace
from tests.helpers.scripted_server import (
    SAMPLE_HTML,
    FixEverything,
    ScriptedServer,
    sample_comments,
)

KEY = "sk-echo-TEST-0123456789abcdefXYZ"


@pytest.fixture(autouse=True)
def _clean_registry():
    forget_all()
    yield
    forget_all()


@pytest.mark.parametrize(
    "text",
    [
        f"Authorization: Bearer {KEY}",
        f'{{"authorization": "Bearer {KEY}"}}',
        f"bearer {KEY}",
        "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc123",
        "key sk-proj-AbCdEfGhIjKlMnOp1234",
        "Authorization: Basic dXNlcjpwYXNzd29yZDE=",
        "https://h.example/v1?api_key=abc123secret",
        '{"api_key": "abc123secret"}',
    ],
)
def test_credential_like_values_are_masked_without_registration(text):
    out = redact(text)
    assert MASK in out
    for secret in (KEY, "eyJhbGci", "AbCdEfGh", "dXNlcjpw", "abc123secret"):
        assert secret not in out


@pytest.mark.parametrize(
    "text",
    [
        "bearer instruments and bearer bonds",
        "scikit-learn (sk-learn) is a library",
        "Authorization: required for every user",
        "The bearer of this letter",
    ],
)
def test_ordinary_prose_is_left_alone(text):
    assert redact(text) == text


@pytest.mark.parametrize(
    "form",
    [
        "base64",
        "base64 after 'user:'",
        "base64 at offset 1",
        "base64 url-safe at offset 2",
        "URL-encoded every byte",
        "URL-encoded in lower case, partly",
        "split across lines",
        "split with CRLF and indent",
        "spaced out",
        "split by a JSON-escaped newline",
    ],
)
def test_a_registered_key_is_masked_when_echoed_encoded_or_split(form):
    import base64

    raw = KEY.encode()
    shown = {
        "base64": base64.b64encode(raw).decode(),
        "base64 after 'user:'": "Basic " + base64.b64encode(b"user:" + raw).decode(),
        "base64 at offset 1": base64.b64encode(b"{" + raw + b"}").decode(),
        "base64 url-safe at offset 2": base64.urlsafe_b64encode(b"\xfb\xff" + raw).decode(),
        "URL-encoded every byte": "".join(f"%{b:02X}" for b in raw),
        "URL-encoded in lower case, partly": KEY[:5]
        + "".join(f"%{b:02x}" for b in KEY[5:12].encode())
        + KEY[12:],
        "split across lines": KEY[:10] + "\n" + KEY[10:20] + "\n" + KEY[20:],
        "split with CRLF and indent": KEY[:16] + "\r\n    " + KEY[16:],
        "spaced out": " ".join(KEY),
        "split by a JSON-escaped newline": KEY[:10] + "\\n" + KEY[10:],
    }[form]
    remember(KEY)
    out = redact(f"error 401: key {shown} rejected")
    assert (
        out == f"error 401: key {MASK} rejected" or out == f"error 401: key Basic {MASK} rejected"
    )
    assert redact_json({"m": [shown]}) == {"m": [out[len("error 401: key ") : -len(" rejected")]]}


def test_only_a_long_secret_is_looked_for_in_encoded_forms():
    """A short registered value masks only as it is: spaced out or inside base64 it would
    hit ordinary text."""
    import base64

    remember("abcd")
    assert redact("a b c d and YWJjZA== stay") == "a b c d and YWJjZA== stay"
    remember("Zm9vYmFyYmF6cXV4")  # itself looks like base64: only its own forms are masked
    assert redact("foo bar baz qux, Zm9v") == "foo bar baz qux, Zm9v"
    text = "data:image/png;base64," + base64.b64encode(bytes(range(256)) * 40).decode()
    assert redact(text) == text  # a long base64 value without the key stays whole


def test_the_bundle_writer_masks_encoded_forms_of_its_secrets(tmp_path):
    """The bundle's last line of defence: a trace that was not redacted (a caller's bug)
    still reaches disk without the key's encoded forms."""
    import base64

    from engine.bundle import content_of, open_bundle, write_bundle

    b = open_bundle(Path(__file__).resolve().parents[1] / "data" / "bundle-min")
    trace = {
        "entries": [{"kind": "note", "text": "echo " + base64.b64encode(KEY.encode()).decode()}]
    }
    out = write_bundle(tmp_path / "b", content_of(b, trace=trace, secrets=[KEY]))
    data = (out / "trace.json").read_bytes()
    assert b"[redacted]" in data
    for form in _encoded_forms_of(KEY):
        assert form.encode() not in data, form


def test_a_registered_key_is_masked_anywhere_and_in_json():
    remember("plainkey-without-prefix-42")
    assert redact("x plainkey-without-prefix-42 y") == f"x {MASK} y"
    obj = {"a": ["plainkey-without-prefix-42", 3, None], "plainkey-without-prefix-42": True}
    assert redact_json(obj) == {"a": [MASK, 3, None], MASK: True}
    assert redact(redact(f"Bearer {KEY}")) == redact(f"Bearer {KEY}")  # idempotent


def test_the_log_filter_redacts_messages_and_tracebacks(tmp_path):
    remember(KEY)
    path = tmp_path / "app.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.addFilter(RedactingFilter())
    log = logging.getLogger("test-redact")
    log.addHandler(handler)
    try:
        log.error("server said %s", f"Authorization: Bearer {KEY}")
        try:
            raise RuntimeError(f"401 {KEY}")
        except RuntimeError:
            log.exception("failed")
    finally:
        log.removeHandler(handler)
        handler.close()
    text = path.read_text(encoding="utf-8")
    assert KEY not in text and "RuntimeError" in text and MASK in text


def _encoded_forms_of(key: str) -> list[str]:
    """Tell-tale pieces of the key's echoed forms: base64 cores at the three byte offsets
    (trimmed of the characters a neighbour changes), URL-encoded, split, spaced."""
    import base64

    raw = key.encode()
    cores = []
    for pad in (b"", b"x", b"xy"):
        enc = base64.b64encode(pad + raw).decode()
        cores.append(enc[4 : len(enc) - 4])
    return [
        *cores,
        "".join(f"%{b:02X}" for b in raw),
        key[: len(key) // 2],  # the first half of a key split across lines
        " ".join(key[:12]),
    ]


def _all_bytes_under(folder: Path) -> list[tuple[Path, bytes]]:
    return [(p, p.read_bytes()) for p in folder.rglob("*") if p.is_file()]


@pytest.mark.parametrize("how", ["wrong-key", "server-errors", "encoded-echo"])
def test_an_echoing_server_never_puts_the_key_anywhere(tmp_path, capsys, monkeypatch, how):
    """The key reaches the server, the server echoes it in its error bodies; stdout,
    stderr, the workspace (database and WAL), the bundle and the JSON line stay clean."""
    doc = tmp_path / "memo.html"
    doc.write_text(SAMPLE_HTML, encoding="utf-8")
    comments = tmp_path / "comments.json"
    comments.write_text(
        json.dumps(sample_comments(Version.from_source(SAMPLE_HTML).text)), encoding="utf-8"
    )
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    kw = (
        {"api_key": "sk-the-right-one-000000000000"}
        if how == "wrong-key"
        else {"fail_first": [500, 500, 500, 500]}
    )
    ws_path = tmp_path / "ws" / "workspace.sqlite3"
    echo: bool | str = "encoded" if how == "encoded-echo" else True
    with ScriptedServer(FixEverything(), echo_headers=echo, **kw) as srv:
        code = arl(
            [
                "run",
                "--doc",
                str(doc),
                "--comments",
                str(comments),
                "--base-url",
                srv.base_url,
                "--model",
                srv.model,
                "--out",
                str(tmp_path / "bundles"),
                "--workspace",
                str(ws_path),
                "--retries",
                "1",
                "--json",
            ]
        )
        echoed = srv.auth_headers
    assert f"Bearer {KEY}" in echoed  # the server did receive (and echo) the key
    out, err = capsys.readouterr()
    assert code == 1, out + err
    if how != "wrong-key":
        assert "request headers" in err  # the echo is printed (progress: stderr), the key is not
    assert KEY not in out and KEY not in err
    last = json.loads(out)  # stdout: the JSON object only
    assert last["status"] == "failed" and last["bundle"]
    with Workspace(ws_path) as ws:
        run = ws.runs()[0]
        assert run.status == "failed" and (how == "wrong-key" or MASK in run.reason)
        assert all(f not in run.reason for f in _encoded_forms_of(KEY)), run.reason
        assert KEY not in json.dumps(ws.events(run.id))
    files = _all_bytes_under(tmp_path / "ws") + _all_bytes_under(tmp_path / "bundles")
    (trace,) = [data for p, data in files if p.name == "trace.json"]
    assert b"request headers" in trace and MASK.encode() in trace  # stored, redacted
    for p, data in files:
        assert KEY.encode() not in data, p
        for form in _encoded_forms_of(KEY):
            assert form.encode() not in data, (p, form)
            assert form not in out and form not in err, form
