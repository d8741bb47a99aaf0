"""Secrets never printed or stored (engine/redact.py), against a server that echoes headers."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from engine.cli.main import main as arl
from engine.redact import MASK, RedactingFilter, forget_all, redact, redact_json, remember
from engine.score.scoring import Version
from engine.workspace import Workspace
from tests.helpers.scripted_server import (
    SAMPLE_HTML,
    FixEverything,
    ScriptedServer,
    sample_comments,
    transformed_echoes,
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


@pytest.mark.parametrize("form", sorted(transformed_echoes(KEY)))
def test_a_registered_key_is_masked_when_echoed_transformed(form):
    """The forms an echoing server was seen to use: hex, other letter cases, HTML
    character references, reversed, rot13, base32, bytes-repr escapes."""
    shown = transformed_echoes(KEY)[form]
    remember(KEY)
    out = redact(f'{{"message": "Incorrect API key provided: {form}={shown}; type=x"}}')
    assert out == f'{{"message": "Incorrect API key provided: {form}={MASK}; type=x"}}'


@pytest.mark.parametrize(
    "shown",
    [
        "&#x073;&#X6B;&#045;" + KEY[3:],  # hex and decimal references with leading zeros
        "".join(f"&#{ord(c)}" for c in KEY),  # no semicolons
        "".join(f"&amp;amp;#x{ord(c):x};" for c in KEY),  # escaped twice
        KEY[:10] + "".join(f"\\u{ord(c):04x}" for c in KEY[10:20]) + KEY[20:],  # JSON escapes
        KEY.upper()[:12] + "\n" + KEY.lower()[12:],  # re-cased and split
        " ".join(KEY.encode().hex().upper()),  # hex, spaced out
        "\x00".join(KEY).replace("\\x00", "\x00"),  # UTF-16 read as bytes
        "%" + KEY[::-1].encode().hex("%", 1).upper(),  # reversed, then URL-encoded
    ],
)
def test_a_registered_key_is_masked_in_mixed_forms(shown):
    remember(KEY)
    assert redact(f"<p>bad key {shown}</p>") == f"<p>bad key {MASK}</p>"


def test_named_character_references_stand_for_their_character():
    key = "tok_live.0123456789/abc"
    remember(key)
    shown = key.replace("_", "&lowbar;").replace(".", "&period;").replace("/", "&sol;")
    assert redact(f"echo {shown} end") == f"echo {MASK} end"
    assert redact(f"echo {shown.replace('&', '&amp;')} end") == f"echo {MASK} end"


def test_transformed_forms_leave_ordinary_text_alone():
    """Hex digests, HTML with references, JSON escapes and prose stay as they are when
    they do not hold a registered key's form."""
    import hashlib

    remember(KEY)
    text = (
        "sha256 " + hashlib.sha256(b"x").hexdigest().upper() + " <p>a &amp; b &#8212; "
        "&lowbar;</p> \\u0041 \\x41 sk and SK- and " + KEY[:7] + "..." + KEY[-4:]
    )
    assert redact(text) == text


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

    from engine.bundle.read import open_bundle
    from engine.bundle.write import content_of, write_bundle

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
    transformed = transformed_echoes(key)
    return [
        *cores,
        *(transformed[f][:16] for f in ("hex", "HEX", "upper", "lower", "swapcase")),
        *(transformed[f][:16] for f in ("reversed", "rot13", "base32", "bytes-repr")),
        *(transformed[f][:24] for f in ("html-decimal", "html-hex", "html-double-escaped")),
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
                "--yes",
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


def test_clean_url_removes_credentials_and_says_what():
    from engine.redact import clean_url, url_note

    shown, removed = clean_url("https://bob:pw-12345678@api.example.com:8443/v1?api_key=abc&x=1#f")
    assert shown == "https://api.example.com:8443/v1"
    assert removed == [
        "user name and password",
        "query parameter api_key",
        "query parameter x",
        "fragment",
    ]
    remember(KEY)
    assert clean_url(f"http://127.0.0.1:9/{KEY}/v1") == (
        f"http://127.0.0.1:9/{MASK}/v1",
        ["an API key in the path"],
    )
    # an unregistered key of a known shape, and one percent-encoded
    assert clean_url("http://h/sk-proj-AbCdEfGhIjKlMnOp1234/v1")[0] == f"http://h/{MASK}/v1"
    assert clean_url("http://h/%73k-proj-AbCdEfGhIjKlMnOp1234/v1")[0] == f"http://h/{MASK}/v1"
    assert clean_url("http://[::1]:8080/v1") == ("http://[::1]:8080/v1", [])
    assert url_note("http://127.0.0.1:8089/v1") == ""
    assert "user name and password" in url_note("http://u:secret-pass@h/v1")
    assert redact("the proxy said secret-pass") == f"the proxy said {MASK}"  # registered


def test_a_key_in_the_base_url_is_stored_and_shown_nowhere(tmp_path, capsys, monkeypatch):
    """A key placed in the base URL (user info, the path) reaches the server but never the
    manifest, scorecard, trace, workspace, endpoints.json or the terminal; the run log
    says what was removed. (A ``?key=`` query is tested on ``clean_url``: the OpenAI
    client cannot send requests to a base URL with a query.)"""
    path_key = "sk-proj-PathKey0123456789abcdefXYZ"
    password = "pw-0123456789-user-secret"
    doc = tmp_path / "memo.html"
    doc.write_text(SAMPLE_HTML, encoding="utf-8")
    comments = tmp_path / "comments.json"
    comments.write_text(
        json.dumps(sample_comments(Version.from_source(SAMPLE_HTML).text)), encoding="utf-8"
    )
    monkeypatch.setenv("ARL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ScriptedServer(FixEverything()) as srv:
        port = srv.base_url.split(":")[2].split("/")[0]
        url = f"http://bob:{password}@127.0.0.1:{port}/{path_key}/v1"
        code = arl(
            [
                "run",
                "--yes",
                "--doc",
                str(doc),
                "--comments",
                str(comments),
                "--base-url",
                url,
                "--model",
                srv.model,
                "--out",
                str(tmp_path / "bundles"),
                "--workspace",
                str(tmp_path / "ws" / "workspace.sqlite3"),
            ]
        )
        assert srv.requests  # the requests did use the URL as given
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "removed from the base URL before it was stored or shown" in out + err
    assert "an API key in the path" in out + err
    files = (
        _all_bytes_under(tmp_path / "ws")
        + _all_bytes_under(tmp_path / "bundles")
        + _all_bytes_under(tmp_path / "home")
    )
    names = {p.name for p, _ in files}
    assert {"manifest.json", "scorecard.html", "trace.json", "endpoints.json"} <= names
    for secret in (path_key, password, path_key[3:15]):
        assert secret not in out + err, secret
        for p, data in files:
            assert secret.encode() not in data, (p, secret)
    (manifest,) = [data for p, data in files if p.name == "manifest.json"]
    assert f"127.0.0.1:{port}/{MASK}/v1".encode() in manifest


@pytest.mark.parametrize("cut", [slice(0, 16), slice(16, None), slice(-12, None), slice(5, 19)])
def test_a_run_of_twelve_or_more_characters_of_a_key_is_masked(cut):
    remember(KEY)
    part = KEY[cut]
    assert redact(f"half={part};") == f"half={MASK};"


def test_the_usual_display_of_a_key_stays():
    remember(KEY)
    shown = f"masked={KEY[:7]}...{KEY[-4:]} and {KEY[:11]}"
    assert redact(shown) == shown
