"""``arl run``, ``arl author``, ``arl bundle``, ``arl doctor``, ``arl comments``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arl_keys.cli import main as arl_with_keyring
from arl_keys.store import SERVICE as KEYRING_SERVICE, account_for
from engine.bundle.read import open_bundle, verify_bundle
from engine.cli.main import main as arl
from engine.credentials import key_host
from engine.score.scoring import Version
from engine.vocabulary import VERIFICATION_MESSAGE
from tests.helpers.scripted_server import (
    AUTHORED_HTML,
    SAMPLE_HTML,
    ClaimWithoutEditing,
    FixEverything,
    ScriptedServer,
    sample_comments,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def inputs(tmp_path):
    doc = tmp_path / "memo.html"
    doc.write_text(SAMPLE_HTML, encoding="utf-8")
    comments = tmp_path / "comments.json"
    comments.write_text(
        json.dumps(sample_comments(Version.from_source(SAMPLE_HTML).text)), encoding="utf-8"
    )
    return doc, comments


def _run_args(srv, doc, comments, tmp_path, *extra):
    return [
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
        *extra,
    ]


def test_run_json_with_key_from_the_keyring(inputs, tmp_path, capsys, memory_keyring, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    key = "sk-keyring-0123456789abcdef"
    doc, comments = inputs
    with ScriptedServer(FixEverything(), api_key=key) as srv:
        memory_keyring.set_password(KEYRING_SERVICE, account_for(key_host(srv.base_url)), key)
        code = arl_with_keyring(_run_args(srv, doc, comments, tmp_path, "--json"))
    out, err = capsys.readouterr()
    assert code == 0, out + err
    # stdout is the one JSON object, nothing else; the progress went to stderr
    last = json.loads(out)
    assert set(last) == {"bundle", "status", "metrics"} and last["status"] == "completed"
    assert last["metrics"]["attribution_rate"]["value"] == 1.0
    assert any(line.startswith("Round 1 of 3") for line in err.splitlines())
    assert "API key: keyring (saved for 127.0.0.1:" in err and key not in out + err
    assert verify_bundle(last["bundle"]).ok
    for p in Path(last["bundle"]).rglob("*"):
        if p.is_file():
            assert key.encode() not in p.read_bytes()


def test_a_key_saved_for_another_host_is_not_sent(
    inputs, tmp_path, capsys, memory_keyring, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    memory_keyring.set_password(KEYRING_SERVICE, account_for("api.openai.com"), "sk-openai-key")
    memory_keyring.set_password(KEYRING_SERVICE, "api-key", "sk-unbound-old-key")
    doc, comments = inputs
    with ScriptedServer(FixEverything()) as srv:
        code = arl_with_keyring(_run_args(srv, doc, comments, tmp_path, "--rounds", "1"))
        auth_seen = set(srv.auth_headers)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "API key: none" in out and "earlier version" in out
    assert auth_seen == {"Bearer no-key"}, auth_seen  # the client's placeholder, no key


def test_run_prints_the_verification_line_for_claims_made_only_in_the_report(
    inputs, tmp_path, capsys
):
    from tests.helpers.scripted_server import Silent

    doc, comments = inputs
    with ScriptedServer(Silent()) as srv:
        code = arl(_run_args(srv, doc, comments, tmp_path, "--rounds", "1"))
    out = capsys.readouterr().out
    assert code == 0
    assert out.count(VERIFICATION_MESSAGE) == 3
    assert out.count("claimed addressed in the report") == 3


def test_run_prints_the_verification_line(inputs, tmp_path, capsys):
    doc, comments = inputs
    with ScriptedServer(ClaimWithoutEditing()) as srv:
        code = arl(_run_args(srv, doc, comments, tmp_path, "--rounds", "1"))
    out = capsys.readouterr().out
    assert code == 0
    assert out.count(VERIFICATION_MESSAGE) == 3


@pytest.mark.parametrize(
    "case", ["missing-doc", "not-json", "empty-list", "wrong-shape", "deep-json", "bad-url"]
)
def test_run_unusable_input_exits_2_in_one_line(inputs, tmp_path, capsys, case):
    doc, comments = inputs
    if case == "missing-doc":
        doc = tmp_path / "nope.html"
    elif case == "not-json":
        comments.write_text("{not json")
    elif case == "empty-list":
        comments.write_text("[]")
    elif case == "deep-json":
        comments.write_text("[" * 100_000 + "]" * 100_000)
    elif case == "wrong-shape":
        comments.write_text('{"comments": 5}')
    url = "notaurl" if case == "bad-url" else "http://127.0.0.1:9/v1"
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
            "m",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert (
        "--base-url" if case == "bad-url" else doc.name if case == "missing-doc" else comments.name
    ) in err


def test_run_refuses_comments_that_do_not_fit_the_document(inputs, tmp_path, capsys):
    """A run whose comments all miss the document would "converge" at once: refused."""
    doc, comments = inputs
    other = tmp_path / "other.html"
    other.write_text("<p>Nothing here matches any quote.</p>", encoding="utf-8")
    code = arl(
        [
            "run",
            "--yes",
            "--doc",
            str(other),
            "--comments",
            str(comments),
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "none of its 3 comments fits other.html" in err
    assert err.count("skipped") == 3 and "Traceback" not in err


def test_bundle_export_refuses_a_tampered_bundle(inputs, tmp_path, capsys):
    doc, comments = inputs
    with ScriptedServer(FixEverything()) as srv:
        assert arl(_run_args(srv, doc, comments, tmp_path, "--json")) == 0
    bundle = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["bundle"]
    (Path(bundle) / "metrics.json").write_text("{}")
    out_zip = tmp_path / "b.zip"
    assert arl(["bundle", "export", bundle, str(out_zip)]) == 3
    cap = capsys.readouterr()
    assert "TAMPERED metrics.json" in cap.out and "not exported" in cap.err
    assert not out_zip.exists()
    assert arl(["bundle", "export", str(tmp_path), str(out_zip)]) == 2
    assert "no manifest.json" in capsys.readouterr().err


def test_run_failure_exits_1_with_a_failed_bundle(inputs, tmp_path, capsys):
    doc, comments = inputs
    with ScriptedServer(FixEverything()) as srv:
        args = _run_args(srv, doc, comments, tmp_path, "--json")
        args[args.index("--model") + 1] = "missing-model"
        code = arl(args)
    out = capsys.readouterr().out
    assert code == 1
    last = json.loads(out.strip().splitlines()[-1])
    assert last["status"] == "failed"
    b = open_bundle(last["bundle"])
    assert b.status == "failed" and "missing-model" in b.reason


@pytest.mark.parametrize(
    "sig",
    [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2],
    ids=["ctrl-c", "term", "hangup", "quit", "usr1", "usr2"],
)
def test_interrupt_exits_130_with_a_cancelled_bundle(inputs, tmp_path, sig):
    """Ctrl-C, a kill or a closed terminal: the run ends cancelled, with its bundle."""
    doc, comments = inputs
    with ScriptedServer(FixEverything(), latency=0.3) as srv:
        env = dict(os.environ, ARL_HOME=str(tmp_path / "home"), PYTHONUNBUFFERED="1")
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "engine.cli.main",
                *_run_args(srv, doc, comments, tmp_path, "--json"),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines = []
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                line = proc.stderr.readline()  # progress; stdout is the JSON object only
                if not line:
                    break
                lines.append(line)
                if line.startswith("Agent called"):
                    proc.send_signal(sig)
                    break
            rest, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 130, err
    last = json.loads(rest)
    assert last["status"] == "cancelled"
    assert verify_bundle(last["bundle"]).ok
    assert open_bundle(last["bundle"]).status == "cancelled"
    assert "Traceback" not in err
    from engine.workspace import Workspace

    ws = Workspace(tmp_path / "home" / "workspace.sqlite3")
    try:  # the run's row is not left "running"
        assert all(r.status != "running" for r in ws.runs())
    finally:
        ws.close()


def test_author_writes_a_document_from_a_shipped_brief(tmp_path, capsys):
    assert arl(["author", "--list-briefs"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) >= 3 and any(line.startswith("policy-memo") for line in listed)
    out = tmp_path / "v1.html"
    with ScriptedServer(FixEverything()) as srv:
        code = arl(
            [
                "author",
                "--brief",
                "policy-memo",
                "--base-url",
                srv.base_url,
                "--model",
                srv.model,
                "--out",
                str(out),
            ]
        )
        sent = srv.requests[-1]
    assert code == 0
    assert out.read_text() == AUTHORED_HTML
    assert "hybrid" in sent["messages"][1]["content"].lower()
    assert "280 tokens" in capsys.readouterr().out


def test_author_errors(tmp_path, capsys):
    assert (
        arl(
            [
                "author",
                "--brief",
                "no-such-brief",
                "--base-url",
                "http://x/v1",
                "--model",
                "m",
                "--out",
                str(tmp_path / "o.html"),
            ]
        )
        == 2
    )
    assert "no-such-brief" in capsys.readouterr().err
    with ScriptedServer(FixEverything()) as srv:
        assert (
            arl(
                [
                    "author",
                    "--brief",
                    "release-notes",
                    "--base-url",
                    srv.base_url,
                    "--model",
                    "nope",
                    "--out",
                    str(tmp_path / "o.html"),
                ]
            )
            == 1
        )
    assert "does not know the model" in capsys.readouterr().err


def test_doctor_against_the_scripted_server(capsys):
    with ScriptedServer(FixEverything()) as srv:
        code = arl(["doctor", "--no-qt", "--base-url", srv.base_url, "--model", srv.model])
        out = capsys.readouterr().out
        lines = {line.split(":")[0].split(None, 1)[1]: line.split()[0] for line in out.splitlines()}
        assert lines["endpoint reachable"] == "PASS"
        assert lines["model present"] == "PASS"
        for name in ("tool calls", "tool_choice required", "json_object", "json_schema"):
            assert lines[name] == "PASS", out
        assert lines["reasoning output"] == "PASS" and lines["usage reported"] == "PASS"
        assert lines["context length"] == "UNVERIFIED"
        assert lines["workspace writable"] == "PASS"
        assert lines["Python"] == "PASS"
        assert code in (0, 1)  # the keyring line depends on the machine
        arl(["doctor", "--no-qt", "--base-url", srv.base_url, "--model", "other"])
        out = capsys.readouterr().out
    bad = next(line for line in out.splitlines() if "model present" in line)
    assert bad.startswith("FAIL") and "fix: use one of: scripted-model" in bad


def test_doctor_without_endpoint_and_unreachable(capsys):
    arl(["doctor", "--no-qt"])
    out = capsys.readouterr().out
    assert "N/A        endpoint reachable: no --base-url given" in out
    code = arl(["doctor", "--no-qt", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"])
    out = capsys.readouterr().out
    assert code == 1
    line = next(x for x in out.splitlines() if "endpoint reachable" in x)
    assert line.startswith("FAIL") and "fix:" in line
    for x in out.splitlines():
        assert x.split()[0] in ("PASS", "FAIL", "UNVERIFIED", "N/A")


def test_doctor_qt_probe_reports_a_status(capsys):
    arl(["doctor"])
    out = capsys.readouterr().out
    qt = next(
        x
        for x in out.splitlines()
        if "Qt platform plugin" in x or x.split(None, 1)[1].startswith("system libraries")
    )
    assert qt.split()[0] in ("PASS", "FAIL", "UNVERIFIED")
    if qt.startswith("FAIL"):
        assert "fix:" in qt
    if "system libraries" in qt:  # a fresh machine: the libraries, with the install command
        assert qt.startswith("FAIL") and "install" in qt.partition("fix:")[2]
        return
    from engine.environment import no_display

    if no_display():
        # no display: never a PASS that describes a program that cannot open a window
        assert not qt.startswith("PASS") and "no display" in qt


def test_comments_export_and_import_round_trip(tmp_path, capsys):
    text = "Emoji 😀 first. Employees may work remotely up to two days per week."
    doc = tmp_path / "d.txt"
    doc.write_text(text, encoding="utf-8")
    from tests.helpers.scripted_server import make_comment

    native = [make_comment(text, "up to two days per week", "c1")]
    src = tmp_path / "c.json"
    src.write_text(json.dumps(native))
    w3c = tmp_path / "w3c.json"
    assert (
        arl(["comments", "export", "--doc", str(doc), "--comments", str(src), "--out", str(w3c)])
        == 0
    )
    coll = json.loads(w3c.read_text())
    item = coll["first"]["items"][0]
    pos = next(s for s in item["target"]["selector"] if s["type"] == "TextPositionSelector")
    assert pos["start"] == text.index("up to")  # code points
    assert native[0]["anchor"]["start_offset"] == pos["start"] + 1  # UTF-16: emoji is 2
    back = tmp_path / "back.json"
    assert (
        arl(["comments", "import", "--doc", str(doc), "--w3c", str(w3c), "--out", str(back)]) == 0
    )
    anchor = json.loads(back.read_text())["comments"][0]["anchor"]
    assert anchor["start_offset"] == native[0]["anchor"]["start_offset"]
    assert anchor["end_offset"] == native[0]["anchor"]["end_offset"]
    assert anchor["quote"] == "up to two days per week"


def test_default_title():
    from engine.cli.loop import default_title

    assert default_title("a.html", "html", "<title> Memo &amp; more </title>") == "Memo & more"
    assert default_title("a.html", "html", "<p>no title</p>") == "a.html"
    assert default_title("p.txt", "text", "\n\nCase Report: X\n\nAbstract") == "Case Report: X"
    assert default_title("p.md", "text", "# Heading\n") == "Heading"
    assert default_title("p.txt", "text", "x" * 200) == "p.txt"


def test_comments_import_with_nothing_importable_writes_nothing(tmp_path, capsys):
    doc = tmp_path / "d.txt"
    doc.write_text("alpha beta")
    ann = tmp_path / "a.json"
    ann.write_text(json.dumps([{"type": "Annotation", "id": "x", "target": {}}]))
    out = tmp_path / "out.json"
    assert (
        arl(["comments", "import", "--annotations", str(ann), "--doc", str(doc), "--out", str(out)])
        == 2
    )
    err = capsys.readouterr().err
    assert "annotation x skipped" in err and "nothing written" in err
    assert not out.exists()


def test_comments_export_against_the_wrong_document_writes_nothing(inputs, tmp_path, capsys):
    doc, comments = inputs
    other = tmp_path / "other.txt"
    other.write_text("Nothing of the memo is here.")
    out = tmp_path / "w3c.json"
    assert (
        arl(
            [
                "comments",
                "export",
                "--comments",
                str(comments),
                "--doc",
                str(other),
                "--out",
                str(out),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "does not fit other.txt" in err and "Nothing written" in err
    assert not out.exists()


def test_out_never_overwrites_the_commands_own_inputs(tmp_path, capsys):
    doc = tmp_path / "memo.txt"
    doc.write_text("Staff work two days a week.", encoding="utf-8")
    comments = tmp_path / "c.json"
    comments.write_text(
        json.dumps([{"id": "c1", "body": "three", "anchor": {"quote": "two days"}}]),
        encoding="utf-8",
    )
    before = comments.read_bytes(), doc.read_bytes()
    assert (
        arl(
            [
                "comments",
                "export",
                "--doc",
                str(doc),
                "--comments",
                str(comments),
                "--out",
                str(comments),
            ]
        )
        == 2
    )
    assert "own input" in capsys.readouterr().err
    w3c = tmp_path / "w3c.json"
    assert (
        arl(
            [
                "comments",
                "export",
                "--doc",
                str(doc),
                "--comments",
                str(comments),
                "--out",
                str(w3c),
            ]
        )
        == 0
    )
    assert (
        arl(["comments", "import", "--doc", str(doc), "--annotations", str(w3c), "--out", str(doc)])
        == 2
    )
    assert (comments.read_bytes(), doc.read_bytes()) == before


def test_run_out_that_is_a_file_is_refused_before_any_model_call(tmp_path, capsys):
    doc = tmp_path / "memo.txt"
    doc.write_text("Staff work two days a week.", encoding="utf-8")
    comments = tmp_path / "c.json"
    comments.write_text(
        json.dumps([{"id": "c1", "body": "three", "anchor": {"quote": "two days"}}]),
        encoding="utf-8",
    )
    out = tmp_path / "not-a-folder.json"
    out.write_text("{}", encoding="utf-8")
    # Nothing listens on port 9: a model call would fail differently (and later).
    code = arl(
        [
            "run",
            "--yes",
            "--doc",
            str(doc),
            "--comments",
            str(comments),
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--out",
            str(out),
        ]
    )
    assert code == 2 and "not a folder" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "{}"
