"""Writes the scripted demonstration bundle shipped in ``resources/demo/``.

No model writes this revision: a scripted agent (``tests/helpers/scripted_server.py``) plays an
agent that fixes one comment, claims a fix it did not make, deletes a commented sentence,
rewrites a sentence nobody commented on, and meets a comment made on an older draft. The
real engine runs the real loop over HTTP and scores it, so every verdict and metric in the
bundle is the engine's own; the manifest and every view say the run is scripted.

Run: ``ARL_SIGNING_KEY_FILE=KEY uv run python tools/make_demo_bundle.py`` (replaces
``resources/demo/``; signed with the shipped bundles' key named in its README).
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

from engine.agent.config import AgentConfig
from engine.models import Comment
from engine.run.start import prepare_document, run_review
from engine.score.scoring import Version
from engine.workspace import Workspace
from tests.helpers.scripted_server import ScriptedAgent, ScriptedServer, make_comment

OUT = ROOT / "resources" / "demo" / "remote-work-policy-scripted"

DOC = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>Remote work policy</title></head>
<body>
<h1>Remote work policy</h1>
<p>Employees may work remotely up to two days per week, with their manager's agreement.</p>
<p>Requests must be approved by the department head in writing.</p>
<p>Equipment is provided by the company and remains company property. Staff must return it
within five working days of leaving.</p>
<p>Expenses for home internet are reimbursed up to €30 per month.</p>
<p>This policy takes effect on the first of next month and is reviewed every year.</p>
</body></html>"""

EDITS = {
    # c1: fixed as asked.
    "up to two days per week": "up to three days per week",
    # c3: the commented sentence is removed.
    " Staff must return it\nwithin five working days of leaving.": "",
    # not commented on: collateral change.
    "reviewed every year": "reviewed every two years",
}


class DemoAgent(ScriptedAgent):
    """Fixes c1, deletes c3's sentence, leaves c2 as it was but claims it fixed, replies
    that c4's quote is gone, and also rewrites a sentence no comment points at."""

    def edit(self, content: str, comments: list[dict[str, Any]]) -> str:
        for old, new in EDITS.items():
            content = content.replace(old, new)
        return content

    def dispositions(self, comments, content, new):
        calls = []
        for c in comments:
            if c["id"] == "c4":
                calls.append(
                    (
                        "reply_comment",
                        {"comment_id": "c4", "body": "This wording is not in the current version."},
                    )
                )
            else:
                calls.append(("resolve_comment", {"comment_id": c["id"], "note": "done"}))
        return calls

    def claim_for(self, cid: str) -> str:
        return "stale_anchor" if cid == "c4" else "addressed"


def comments(text: str) -> list[dict]:
    out = [
        make_comment(
            text,
            "up to two days per week",
            "c1",
            "The board agreed three days in March. Please update.",
            author="Ana (HR)",
        ),
        make_comment(
            text,
            "by the department head in writing",
            "c2",
            "Say which form to use: the HR portal, not email.",
            author="Ben (Legal)",
        ),
        make_comment(
            text,
            "Staff must return it\nwithin five working days of leaving.",
            "c3",
            "Returns are covered by the leavers' checklist; drop this sentence.",
            author="Ana (HR)",
        ),
        make_comment(
            text,
            "€30 per month",
            "c5",
            "Is this before or after tax?",
            author="Chris (Finance)",
            actionable=False,
        ),
    ]
    out.append(
        {
            "id": "c4",
            "body": "Annual leave belongs in the leave policy.",
            "author": "Ben (Legal)",
            "created_on_version_id": "draft-1",
            "anchor": {
                "quote": "annual leave rules",
                "prefix": "",
                "suffix": "",
                "dom_path": "body",
                "start_offset": 0,
                "end_offset": 18,
            },
        }
    )
    return out


def _signing_key() -> bytes | None:
    """The shipped bundles' key from ``ARL_SIGNING_KEY_FILE`` (its fingerprint is named in
    resources/demo/README.md); unsigned, with a warning, without it."""
    import os

    path = os.environ.get("ARL_SIGNING_KEY_FILE")
    if not path:
        print("warning: ARL_SIGNING_KEY_FILE not set: the demo bundle is unsigned")
        return None
    from arl_keys.signing import load_key_file

    return load_key_file(Path(path))


async def main() -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp) / "ws.sqlite3")
        text = Version.from_source(DOC, "html").text
        doc = prepare_document(
            ws, "Remote work policy", DOC, "html", [Comment.from_json(c) for c in comments(text)]
        )
        with ScriptedServer(DemoAgent()) as srv:
            cfg = AgentConfig(
                base_url=srv.base_url, model=srv.model, api_key=None, request_timeout=10
            )
            outcome = await run_review(
                ws,
                doc,
                cfg,
                rounds=2,
                out_dir=Path(tmp) / "out",
                scripted=True,
                signing_key=_signing_key(),
            )
        if OUT.exists():
            shutil.rmtree(OUT)
        OUT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(outcome.bundle, OUT)
        print(outcome.status, outcome.reason)
        return OUT


if __name__ == "__main__":
    print(asyncio.run(main()))
