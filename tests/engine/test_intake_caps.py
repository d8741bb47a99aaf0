"""What the model under test writes is capped at intake, so every run leaves a bundle.

A 60 MB ``reply_comment`` body or a 30 MB report used to end the run
"the evidence bundle could not be written" with no bundle, in 85 s and 1.8 GB. Every tool
argument and the report are now capped where they come in (``engine.agent.intake``),
refused to the model with the limit named; nothing over a cap reaches the workspace or the
bundle, and the run's bundle verifies.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.agent.config import AgentConfig
from engine.agent.intake import (
    MAX_ARG_CHARS,
    MAX_ARGS_CHARS,
    MAX_REPORT_CHARS,
    admit_report,
    kept_arguments,
)
from engine.agent.report import parse_report
from engine.agent.tools import WorkspaceTools
from engine.bundle.read import open_bundle, verify_bundle
from engine.models import ClaimItem, ClaimReport, Comment
from engine.run.start import prepare_document, run_review
from engine.score.scoring import Version
from engine.workspace import Workspace
from tests.helpers.scripted_server import (
    SAMPLE_HTML,
    FixEverything,
    ScriptedServer,
    sample_comments,
)

ROOT = Path(__file__).resolve().parents[2]


class HugeReply(FixEverything):
    """Replies to its first comment with a body of ``size`` characters."""

    def __init__(self, size: int = 60_000_000, key: str = "body") -> None:
        super().__init__()
        self.size, self.key = size, key

    def dispositions(self, comments, content, new):
        first = comments[0]["id"]
        calls = [("reply_comment", {"comment_id": first, self.key: "x" * self.size})]
        if self.key != "body":
            calls[0][1]["body"] = "short"
        return calls + [
            ("resolve_comment", {"comment_id": c["id"], "note": "done"}) for c in comments[1:]
        ]


class HugeReport(FixEverything):
    """Answers the report with one change_summary of ``size`` characters."""

    def __init__(self, size: int = 30_000_000) -> None:
        super().__init__()
        self.size = size

    def report(self, ids, body):
        rep = {
            "comments": [
                {
                    "comment_id": i,
                    "claim": "addressed",
                    "change_summary": "y" * self.size,
                    "rationale": "asked",
                }
                for i in ids
            ],
            "notes": "",
        }
        return self.completion(json.dumps(rep))


def run_with(agent, tmp: Path):
    ws = Workspace(tmp / "ws.db")
    text = Version.from_source(SAMPLE_HTML).text
    doc = prepare_document(
        ws, "Memo", SAMPLE_HTML, "html", [Comment.from_json(c) for c in sample_comments(text)]
    )
    with ScriptedServer(agent) as srv:
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model, backoff_initial=0.01)
        outcome = asyncio.run(run_review(ws, doc, cfg, rounds=1, out_dir=tmp / "bundles"))
    comments = ws.comments(doc)
    ws.close()
    return outcome, comments, srv


def scenario(which: str, tmp: str) -> None:
    """One run of the issue's example in this process (the memory test runs it alone).

    Prints this process's peak resident memory in MiB. On Linux that is ``VmHWM`` from
    ``/proc/self/status``: ``ru_maxrss`` keeps the high-water mark of the process before
    ``exec`` (the forked pytest, hundreds of MB late in a full run), so it measured the
    test runner, not the run.
    """
    import resource

    agent = HugeReply() if which == "reply" else HugeReport()
    outcome, _, _ = run_with(agent, Path(tmp))
    assert outcome.bundle is not None and verify_bundle(outcome.bundle).ok
    status = Path("/proc/self/status")
    if status.exists():
        hwm = next(ln for ln in status.read_text().splitlines() if ln.startswith("VmHWM:"))
        print(int(hwm.split()[1]) // 1024)
    else:
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)


@pytest.mark.parametrize("which", ["reply", "report"])
def test_the_issues_examples_leave_a_bundle_that_verifies_in_bounded_memory(which, tmp_path):
    code = (
        "import sys; from tests.engine.test_intake_caps import scenario; "
        f"scenario({which!r}, {str(tmp_path)!r})"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    peak_mb = int(done.stdout.split()[-1])
    # The scripted server runs in the same process; before the caps it took 1.8 GB.
    assert peak_mb < 700, f"peak memory {peak_mb} MB"


def test_a_60_mb_reply_is_refused_to_the_model_with_the_limit_named(tmp_path):
    outcome, comments, srv = run_with(HugeReply(), tmp_path)
    assert outcome.status == "completed" and outcome.bundle is not None
    assert verify_bundle(outcome.bundle).ok
    results = [
        m["content"]
        for body in srv.requests
        for m in body["messages"]
        if m.get("role") == "tool" and "over the limit" in (m.get("content") or "")
    ]
    assert results and f"{MAX_ARG_CHARS:,}" in results[0] and "body" in results[0]
    assert all(len(r.body) <= MAX_ARG_CHARS for c in comments for r in c.thread)
    # the refused call is sent back to the model, and kept in the trace, only in part
    assert max(len(json.dumps(b)) for b in srv.requests) < 1_000_000
    trace = (outcome.bundle / "trace.json").read_text()
    assert len(trace) < 2_000_000 and "refused at intake: 60,000,0" in trace


def test_a_30_mb_report_is_unusable_with_the_limit_named(tmp_path):
    outcome, _, _ = run_with(HugeReport(), tmp_path)
    assert outcome.bundle is not None and verify_bundle(outcome.bundle).ok
    b = open_bundle(outcome.bundle)
    final = b.claims["final"]
    assert final["usable"] is False and f"{MAX_REPORT_CHARS:,}" in final["problem"]
    assert (outcome.bundle / "claims.json").stat().st_size < 100_000
    m = b.metrics["claim_accuracy"]
    assert m.value is None and "over the limit" in m.reason


@pytest.mark.parametrize(
    ("name", "args", "where"),
    [
        ("reply_comment", {"comment_id": "c1", "body": "b" * (MAX_ARG_CHARS + 1)}, "body"),
        ("resolve_comment", {"comment_id": "c1", "note": "n" * (MAX_ARG_CHARS + 1)}, "note"),
        ("resolve_comment", {"comment_id": "c" * (MAX_ARG_CHARS + 1)}, "comment_id"),
        ("list_comments", {"k" * (MAX_ARG_CHARS + 1): 1}, "(a key)"),
        ("list_comments", {"extra": {"deep": ["e" * (MAX_ARG_CHARS + 1)]}}, "extra.deep[0]"),
        # CJK, Arabic and emoji count as one character each, as the limit says
        ("reply_comment", {"comment_id": "c1", "body": "文" * (MAX_ARG_CHARS + 1)}, "body"),
        ("reply_comment", {"comment_id": "c1", "body": "🙂" * (MAX_ARG_CHARS + 1)}, "body"),
        (
            "push_version",
            {"base_version_id": "v", "content": "<p>x</p>", "summary": "s" * (MAX_ARG_CHARS + 1)},
            "summary",
        ),
    ],
)
def test_every_argument_is_capped(tools, name, args, where):
    before = [(c.id, len(c.thread), c.status) for c in tools.ws.comments(tools.document_id)]
    out = tools.dispatch(name, json.dumps(args, ensure_ascii=False))
    assert not out.ok and out.oversized
    assert where in out.result and f"{MAX_ARG_CHARS:,}" in out.result
    after = [(c.id, len(c.thread), c.status) for c in tools.ws.comments(tools.document_id)]
    assert after == before and len(tools.ws.versions(tools.document_id)) == 1
    assert len(json.dumps(out.arguments)) < 10_000  # events carry the length, not the text


def test_many_strings_together_are_capped(tools):
    args = {
        f"k{i}": "z" * (MAX_ARG_CHARS // 2) for i in range(2 * MAX_ARGS_CHARS // MAX_ARG_CHARS + 1)
    }
    out = tools.dispatch("list_comments", json.dumps(args))
    assert not out.ok and f"{MAX_ARGS_CHARS:,}" in out.result


def test_within_the_caps_nothing_changes(tools):
    body = "r" * MAX_ARG_CHARS
    out = tools.dispatch("reply_comment", json.dumps({"comment_id": "c1", "body": body}))
    assert out.ok and not out.oversized


def test_a_huge_tool_name_is_not_repeated_whole(tools):
    out = tools.dispatch("n" * 5_000_000, "{}")
    assert not out.ok and len(out.result) < 1_000 and len(out.name) < 200


def test_report_caps():
    assert "over the limit" in parse_report("{" + " " * MAX_REPORT_CHARS + "}", ["c1"]).problem
    big = ClaimReport([ClaimItem("c1", "addressed", "s" * (MAX_REPORT_CHARS + 1), "")])
    rep, raw = admit_report(big, "short")
    assert not rep.usable and f"{MAX_REPORT_CHARS:,}" in rep.problem
    rep, raw = admit_report(ClaimReport([]), "r" * (MAX_REPORT_CHARS + 5))
    assert not rep.usable and len(raw) < 3_000 and "not kept" in raw
    ok = ClaimReport([ClaimItem("c1", "addressed", "fine", "")])
    assert admit_report(ok, "{}") == (ok, "{}")


def test_kept_arguments_names_length_and_digest():
    kept = kept_arguments("a" * 10_000)
    assert "10,000 characters" in kept and "SHA-256" in kept and len(kept) < 2_200
    assert kept_arguments("short") == "short"


@pytest.fixture
def tools(tmp_path):
    ws = Workspace(tmp_path / "w.db")
    text = Version.from_source(SAMPLE_HTML).text
    doc, _ = ws.create_document("Memo", SAMPLE_HTML)
    ws.add_comments(doc, [Comment.from_json(c) for c in sample_comments(text)])
    ids = [c.id for c in ws.comments(doc)]
    yield WorkspaceTools(ws, doc, ids)
    ws.close()
