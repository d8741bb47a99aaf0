"""Redaction folds invisible characters before matching (a key echoed with U+200B between
its characters is still the key), and the workspace stores what the model pushed with the
run's key masked, as the bundle, stdout and trace do (docs/workspace.md)."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from engine.agent.config import AgentConfig
from engine.bundle.read import open_bundle
from engine.models import Comment
from engine.redact import MASK, forget_all, redact, redact_json, redact_known, remember
from engine.run.start import prepare_document, run_review
from engine.score.scoring import Version
from engine.workspace import Workspace
from tests.helpers.scripted_server import (
    SAMPLE_HTML,
    FixEverything,
    ScriptedServer,
    sample_comments,
)

KEY = "sk-proj-Zq7LmN4pR2sT9vW1xY3a"
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e", "\U000e0041"]


@pytest.fixture(autouse=True)
def _clean():
    forget_all()
    yield
    forget_all()


@pytest.mark.parametrize("ch", INVISIBLE)
def test_a_key_spread_with_invisible_characters_is_masked(ch):
    remember(KEY)
    spread = ch.join(KEY)
    out = redact(f"the server said: {spread} (echo)")
    assert KEY not in out.replace(ch, "") and MASK in out
    assert out.startswith("the server said: ") and out.endswith(" (echo)")
    # inside JSON values too, and only some gaps filled
    partial = KEY[:5] + ch + KEY[5:12] + ch * 3 + KEY[12:]
    assert redact_json({"error": {"message": partial}})["error"]["message"] == MASK
    assert redact_known(f"<p>{spread}</p>") == f"<p>{MASK}</p>"


def test_credential_shapes_are_matched_through_invisible_characters():
    token = "abcd1234efgh5678"
    assert MASK in redact("Authorization: Bearer " + "\u200b".join(token))
    assert MASK in redact("\u2060".join("sk-ABCDEFGHIJKLMNOP"))


@pytest.mark.parametrize(
    "text",
    [
        "👨\u200d👩\u200d👧 family",  # emoji ZWJ sequences
        "می\u200cخواهم",  # Persian ZWNJ
        "क्\u200dष",  # Devanagari ZWJ
        "a\u00adhyphen\u00adated word",
        "\ufeffa BOM-led line\nand another",
    ],
)
def test_text_without_secrets_keeps_its_invisible_characters(text):
    remember(KEY)
    assert redact(text) == text
    assert redact_known(text) == text


def test_redact_known_leaves_credential_examples_in_a_document():
    remember(KEY)
    doc = "<p>Send <code>Authorization: Bearer abcd1234efgh</code> and sk-EXAMPLEEXAMPLE12</p>"
    assert redact_known(doc) == doc
    assert redact_known(doc + KEY) == doc + MASK


class LeaksKey(FixEverything):
    """Pushes the key (spread with U+200B, and plain) in its summary and its document."""

    def edit(self, content, comments):
        return (
            super()
            .edit(content, comments)
            .replace("</body>", f"<p>{KEY}</p><p>{chr(0x200B).join(KEY)}</p></body>")
        )

    def work(self, body):
        out = super().work(body)
        for call in out["choices"][0]["message"].get("tool_calls") or []:
            if call["function"]["name"] == "push_version":
                import json

                args = json.loads(call["function"]["arguments"])
                args["summary"] += f"\nmy key is {KEY} and {chr(0x2060).join(KEY)}"
                call["function"]["arguments"] = json.dumps(args)
        return out


def test_the_workspace_stores_no_key_the_model_pushed(tmp_path):
    ws = Workspace(tmp_path / "ws.db")
    text = Version.from_source(SAMPLE_HTML).text
    doc = prepare_document(
        ws, "Memo", SAMPLE_HTML, "html", [Comment.from_json(c) for c in sample_comments(text)]
    )
    with ScriptedServer(LeaksKey(), api_key=KEY) as srv:
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model, api_key=KEY, backoff_initial=0.01)
        outcome = asyncio.run(run_review(ws, doc, cfg, rounds=1, out_dir=tmp_path / "b"))
    rows = ws.versions(doc)
    ws.close()
    assert len(rows) == 2 and MASK in rows[1].raw and MASK in rows[1].summary
    db = sqlite3.connect(tmp_path / "ws.db")
    dump = "\n".join(db.iterdump())
    db.close()
    assert KEY not in dump and KEY not in dump.replace("\u200b", "").replace("\u2060", "")
    b = open_bundle(outcome.bundle)
    assert b.ok and KEY not in b.version("v2").source.replace("\u200b", "")
