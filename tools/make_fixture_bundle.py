"""Writes tests/data/bundle-min/: a tiny hand-made evidence bundle in the layout of
docs/bundle.md, for the GUI tests. Its verdicts and metrics are written by hand (the GUI renders
what a bundle says; it never computes). Its manifest says it is a scripted fixture.

Run: ``uv run python tools/make_fixture_bundle.py``.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
V1 = (
    "<!doctype html><html><head><meta charset=utf-8><title>Remote work policy</title>"
    "</head><body><h1>Remote work policy</h1>"
    "<p>Staff \U0001f3e0 may work remotely up to two days a week.</p>"
    "<p>Requests go to the line manager by email.</p>"
    "<p>Equipment is provided by the IT team on request.</p>"
    "<p>This policy is reviewed every year.</p></body></html>"
)
V2 = (
    "<!doctype html><html><head><meta charset=utf-8><title>Remote work policy</title>"
    "</head><body><h1>Remote work policy</h1>"
    "<p>Staff \U0001f3e0 may work remotely up to three days a week.</p>"
    "<p>Requests go to the line manager by email.</p>"
    "<p>This policy is reviewed every two years.</p></body></html>"
)
T1 = (
    "Remote work policyStaff \U0001f3e0 may work remotely up to two days a week."
    "Requests go to the line manager by email."
    "Equipment is provided by the IT team on request."
    "This policy is reviewed every year."
)
T2 = (
    "Remote work policyStaff \U0001f3e0 may work remotely up to three days a week."
    "Requests go to the line manager by email."
    "This policy is reviewed every two years."
)
STALE = "ATTRIBUTION: STALE ANCHOR - quote not found in current version; comment left unresolved"
VERIFY = "VERIFICATION: MODEL CLAIMED ADDRESSED - ANCHORED TEXT UNCHANGED"


def u16(text: str, cp: int) -> int:
    return len(text[:cp].encode("utf-16-le")) // 2


def span(text: str, quote: str) -> dict:
    i = text.index(quote)
    return {"start": u16(text, i), "end": u16(text, i + len(quote)), "text": quote}


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


def build(out: Path, status: str = "completed", reason: str = "") -> Path:
    if out.exists():
        shutil.rmtree(out)
    comments = [
        {
            "id": "c1",
            "body": "Two days is out of date: the board agreed three.",
            "author": "Ana (HR)",
            "anchor": anchor("up to two days a week"),
            "status": "open",
            "actionable": True,
            "created_on_version_id": "v1",
            "thread": [],
        },
        {
            "id": "c2",
            "body": "Say which form to use instead of email.",
            "author": "Ben (Legal)",
            "anchor": anchor("by email"),
            "status": "open",
            "actionable": True,
            "created_on_version_id": "v1",
            "thread": [],
        },
        {
            "id": "c3",
            "body": "Equipment is covered by the separate IT policy; remove this.",
            "author": "Ana (HR)",
            "anchor": anchor("Equipment is provided by the IT team on request."),
            "status": "open",
            "actionable": True,
            "created_on_version_id": "v1",
            "thread": [],
        },
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
    after = json.loads(json.dumps(comments))
    after[0]["status"] = "resolved"
    after[0]["thread"] = [
        {
            "author": "agent",
            "body": "Changed to three days.",
            "kind": "resolve",
            "created_at": "2026-11-30T10:00:05Z",
        }
    ]
    after[1]["status"] = "open"
    after[1]["thread"] = [
        {
            "author": "agent",
            "body": "Done.",
            "kind": "resolve",
            "created_at": "2026-11-30T10:00:06Z",
        },
        {
            "author": "integrity control",
            "body": VERIFY + ": the anchored text is unchanged.",
            "kind": "reopen",
            "created_at": "2026-11-30T10:00:09Z",
        },
    ]
    after[2]["status"] = "resolved"
    after[3]["thread"] = [
        {
            "author": "integrity control",
            "body": STALE,
            "kind": "reply",
            "created_at": "2026-11-30T10:00:09Z",
        }
    ]
    i2 = T2.index("two years")
    verdicts = [
        {
            "comment_id": "c1",
            "verdict": "edited",
            "v1": span(T1, "up to two days a week"),
            "v2": span(T2, "up to three days a week"),
            "method": "fuzzy",
            "markup_changed": False,
            "claim": "addressed",
            "claim_agrees": True,
            "message": None,
            "confidence": 0.86,
            "offsets_repaired": False,
            "approximate": True,
            "note": "rewritten in place",
        },
        {
            "comment_id": "c2",
            "verdict": "untouched",
            "v1": span(T1, "by email"),
            "v2": span(T2, "by email"),
            "method": "exact",
            "markup_changed": False,
            "claim": "addressed",
            "claim_agrees": False,
            "message": VERIFY,
        },
        {
            "comment_id": "c3",
            "verdict": "deleted",
            "v1": span(T1, "Equipment is provided by the IT team on request."),
            "v2": None,
            "method": "none",
            "markup_changed": False,
            "claim": "addressed",
            "claim_agrees": True,
            "message": None,
        },
        {
            "comment_id": "c4",
            "verdict": "stale_anchor",
            "v1": None,
            "v2": None,
            "method": "none",
            "markup_changed": False,
            "claim": None,
            "claim_agrees": None,
            "message": STALE,
        },
    ]
    metrics = {
        "attribution_rate": {"value": 1 / 3, "numerator": 1, "denominator": 3},
        "collateral_churn": {"value": 10 / 69, "numerator": 10, "denominator": 69},
        "claim_accuracy": {"value": 2 / 3, "numerator": 2, "denominator": 3},
        "cost_per_attributed_fix": {"value": 1234, "numerator": 1234, "denominator": 1},
        "rounds_to_converge": {
            "value": None,
            "reason": "did not converge within the round limit (1 round)",
        },
    }
    report = {
        "comments": [
            {
                "comment_id": "c1",
                "claim": "addressed",
                "change_summary": "two -> three",
                "rationale": "",
            },
            {"comment_id": "c2", "claim": "addressed", "change_summary": "done", "rationale": ""},
            {
                "comment_id": "c3",
                "claim": "addressed",
                "change_summary": "removed",
                "rationale": "",
            },
        ],
        "notes": "",
    }
    collateral = [
        {"start": u16(T2, T2.index("every two years") + 6), "end": u16(T2, i2 + len("two years"))}
    ]
    from engine.bundle import BundleContent, write_bundle

    content = BundleContent(
        run_id="run-fixture",
        status=status,
        reason=reason or "the round limit of 1 was reached with 1 comment(s) unresolved",
        app_version="0.1.0",
        created_at="2026-11-30T10:00:00Z",
        finished_at="2026-11-30T10:00:10Z",
        model="scripted test fixture",
        base_url="http://127.0.0.1:0/v1",
        document_title="Remote work policy",
        document_kind="html",
        given_version_id="v1",
        v1=V1,
        rounds=[("v2", V2, "c1: two -> three days; c3: removed the equipment sentence", 1)],
        comments_before=comments,
        comments_after=after,
        claims={"rounds": [{"round": 1, "report": report, "raw": ""}], "final": report},
        trace={"calls": [], "note": "hand-made test fixture"},
        verdicts={
            "rounds": [{"round": 1, "version_id": "v2", "verdicts": verdicts, "metrics": metrics}],
            "final": verdicts,
            "unusable": [],
            "collateral": collateral,
        },
        metrics=metrics,
        tokens=1234,
        rounds_run=1,
        scripted=True,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    return write_bundle(out, content)


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "data" / "bundle-min"))
