"""Writes tests/data/bundle-min/: a tiny evidence bundle for the GUI tests, written by the
engine itself: the real review loop runs over HTTP against a scripted agent
(``tests/helpers/scripted_server.py``) that edits c1, claims c2 without editing it (the
integrity control reopens it), deletes c3's sentence, changes a sentence nobody commented on,
and meets c4, a comment made on an older draft (stale anchor). Every verdict and metric is
the engine's own, so the bundle re-derives exactly; its manifest says it is scripted.

``build(out, status=..., reason=...)`` writes another status through the engine's writer
(``engine.bundle.content_of``) for tests of failed or cancelled runs.

Run: ``uv run python tools/make_fixture_bundle.py [OUT]``.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
V1 = (
    "<!doctype html><html><head><meta charset=utf-8><title>Remote work policy</title>"
    "</head><body><h1>Remote work policy</h1>"
    "<p>Staff \U0001f3e0 may work remotely up to two days a week.</p>"
    "<p>Requests go to the line manager by email.</p>"
    "<p>This policy is reviewed every year.</p>"
    "<h2>Appendix: older equipment notes</h2>"
    "<p>Kept from the 2019 draft for reference only. Equipment is provided by the IT team "
    "on request. Laptops are replaced on a four-year cycle by facilities.</p></body></html>"
)
V2 = (
    "<!doctype html><html><head><meta charset=utf-8><title>Remote work policy</title>"
    "</head><body><h1>Remote work policy (2026 edition)</h1>"
    "<p>Staff \U0001f3e0 may work remotely up to three days a week.</p>"
    "<p>Requests go to the line manager by email.</p>"
    "<p>This policy is reviewed every year.</p></body></html>"
)


def _text(raw: str) -> str:
    from engine.score.scoring import Version

    return Version.from_source(raw, "html").text


T1 = _text(V1)
T2 = _text(V2)


def u16(text: str, cp: int) -> int:
    return len(text[:cp].encode("utf-16-le")) // 2


def anchor(quote: str, text: str = T1) -> dict:
    i = text.index(quote)
    return {
        "quote": quote,
        "prefix": text[max(0, i - 32) : i],
        "suffix": text[i + len(quote) : i + len(quote) + 32],
        "dom_path": "body",
        "start_offset": u16(text, i),
        "end_offset": u16(text, i + len(quote)),
    }


def comments() -> list[dict]:
    def c(cid: str, body: str, author: str, quote: str) -> dict:
        return {
            "id": cid,
            "body": body,
            "author": author,
            "anchor": anchor(quote),
            "status": "open",
            "actionable": True,
            "created_on_version_id": "v1",
            "thread": [],
        }

    return [
        c(
            "c1",
            "Two days is out of date: the board agreed three.",
            "Ana (HR)",
            "up to two days a week",
        ),
        c("c2", "Say which form to use instead of email.", "Ben (Legal)", "by email"),
        c(
            "c3",
            "Equipment is covered by the separate IT policy; remove this.",
            "Ana (HR)",
            "Equipment is provided by the IT team on request.",
        ),
        {
            "id": "c4",
            "body": "Annual leave belongs in another document.",
            "author": "Chen",
            "anchor": {
                "quote": "annual leave rules",
                "prefix": "",
                "suffix": "",
                "dom_path": "body",
                "start_offset": 5,
                "end_offset": 23,
            },
            "status": "open",
            "actionable": True,
            "created_on_version_id": "v0",
            "thread": [],
        },
    ]


def _agent_class() -> Any:
    from tests.helpers.scripted_server import ScriptedAgent

    class FixtureAgent(ScriptedAgent):
        """Pushes V2 (c1 edited, c3's sentence gone, a collateral change); resolves c1-c3,
        replies to c4; claims c1-c3 addressed and c4 stale."""

        def edit(self, content: str, comments: list[dict[str, Any]]) -> str:
            return V2

        def dispositions(self, comments, content, new):
            calls = []
            for c in comments:
                if c["id"] == "c4":
                    calls.append(
                        ("reply_comment", {"comment_id": "c4", "body": "Not in this version."})
                    )
                else:
                    calls.append(("resolve_comment", {"comment_id": c["id"], "note": "done"}))
            return calls

        def claim_for(self, cid: str) -> str:
            return "stale_anchor" if cid == "c4" else "addressed"

    return FixtureAgent()


async def _run(tmp: Path) -> Path:
    from engine.agent.config import AgentConfig
    from engine.models import Comment
    from engine.run.start import prepare_document, run_review
    from engine.workspace import Workspace
    from tests.helpers.scripted_server import ScriptedServer

    ws = Workspace(tmp / "ws.sqlite3")
    try:
        doc = prepare_document(
            ws, "Remote work policy", V1, "html", [Comment.from_json(c) for c in comments()]
        )
        with ScriptedServer(_agent_class()) as srv:
            cfg = AgentConfig(
                base_url=srv.base_url, model=srv.model, api_key=None, request_timeout=10
            )
            outcome = await run_review(ws, doc, cfg, rounds=1, out_dir=tmp / "out", scripted=True)
    finally:
        ws.close()
    assert outcome.bundle is not None, outcome.reason
    return outcome.bundle


def build(out: Path, status: str = "completed", reason: str = "") -> Path:
    """Run the scripted review and write its bundle to ``out`` (replaced); with ``status``
    other than completed, the same bundle written again by the engine with that status."""
    from engine.bundle.read import open_bundle
    from engine.bundle.write import content_of, write_bundle

    if out.exists():
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        made = asyncio.run(_run(Path(tmp)))
        if status == "completed" and not reason:
            shutil.copytree(made, out)
            return out
        b = open_bundle(made)
        return write_bundle(out, content_of(b, status=status, reason=reason or b.reason))


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "data" / "bundle-min"))
