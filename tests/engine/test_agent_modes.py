"""The no-tools and auto modes against the scripted server: the program does the tool
work, scores as usual, and the bundle, trace and run log say which mode ran."""

from __future__ import annotations

import json

import pytest

from engine.agent import capabilities
from engine.agent.config import AgentConfig
from engine.agent.notools import parse_answer
from engine.bundle.read import verify_bundle
from engine.doctor import check_endpoint
from engine.events import AgentNotice, ToolCalled
from engine.models import Comment
from engine.run.start import prepare_document, run_review
from engine.score.scoring import Version
from engine.workspace import Workspace
from tests.engine.test_agent_quirks import DATA, NarrateFirst, PlainEnglish, _comments
from tests.helpers.scripted_server import (
    SAMPLE_HTML,
    ClaimWithoutEditing,
    FixEverything,
    Quirks,
    ScriptedServer,
    Silent,
    sample_comments,
)


async def _run(tmp_path, agent, mode, quirks=None, rounds=2):
    ws = Workspace(tmp_path / "ws.sqlite3")
    doc = prepare_document(ws, "Filing memo", (DATA / "doc.html").read_text(), "html", _comments())
    events = []
    with ScriptedServer(agent, quirks=quirks) as srv:
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model, backoff_initial=0.01, mode=mode)
        outcome = await run_review(
            ws, doc, cfg, rounds=rounds, out_dir=tmp_path / "b", on_event=events.append
        )
    b = outcome.bundle
    trace = json.loads((b / "trace.json").read_text())["entries"]
    manifest = json.loads((b / "manifest.json").read_text())
    verdicts = {
        v["comment_id"]: v["verdict"]
        for v in json.loads((b / "verdicts.json").read_text())["final"]
    }
    after = {c["id"]: c for c in json.loads((b / "comments.after.json").read_text())["comments"]}
    ws.close()
    return outcome, srv, trace, manifest, verdicts, events, after


async def test_no_tools_mode_pushes_resolves_and_scores_as_usual(tmp_path):
    outcome, srv, trace, manifest, verdicts, events, after = await _run(
        tmp_path, PlainEnglish(), "no-tools"
    )
    assert outcome.status == "completed", outcome.reason
    assert verdicts == {"c1": "edited", "c2": "edited"}
    m = outcome.metrics
    assert (m["attribution_rate"]["numerator"], m["attribution_rate"]["denominator"]) == (2, 2)
    assert m["claim_accuracy"]["value"] == 1.0  # the dispositions are the claims
    assert m["rounds_to_converge"]["value"] == 1
    assert m["collateral_churn"]["value"] == 0  # the document came back whole, no more
    assert verify_bundle(outcome.bundle).ok
    # one plain request, no tools offered, no report call
    assert len(srv.requests) == 1 and "tools" not in srv.requests[0]
    assert "<<<DOCUMENT>>>" in srv.requests[0]["messages"][1]["content"]
    # the program did the tool work, visible as such
    done = [(e["name"], e["by"]) for e in trace if e["kind"] == "tool_call"]
    assert done == [
        ("push_version", "program"),
        ("resolve_comment", "program"),
        ("resolve_comment", "program"),
    ]
    assert all(c["status"] == "resolved" for c in after.values())
    mode = manifest["settings"]["agent_mode"]
    assert mode == {
        "requested": "no-tools",
        "ran": "no-tools",
        "reason": "no-tools mode was asked for: the program did the tool work",
    }
    notices = [e for e in events if isinstance(e, AgentNotice)]
    assert notices[0].topic == "mode" and "no-tools" in notices[0].text
    assert next(e.name for e in events if isinstance(e, ToolCalled)) == "push_version"


async def test_no_tools_claims_without_edits_are_reopened(tmp_path):
    outcome, srv, trace, manifest, verdicts, events, after = await _run(
        tmp_path, ClaimWithoutEditing(), "no-tools", rounds=1
    )
    assert outcome.status == "completed"
    assert verdicts == {"c1": "untouched", "c2": "untouched"}
    assert all(c["status"] == "open" for c in after.values())  # the integrity control
    assert outcome.metrics["claim_accuracy"]["value"] == 0.0
    note = next(e for e in trace if e.get("text") == "no-tools answer read")
    assert "identical to the given one" in note["problems"][0]


async def test_auto_switches_when_the_server_refuses_tools(tmp_path):
    outcome, srv, trace, manifest, verdicts, events, after = await _run(
        tmp_path, PlainEnglish(), "auto", quirks=Quirks(refuse_tools=True)
    )
    assert outcome.status == "completed", outcome.reason
    assert verdicts == {"c1": "edited", "c2": "edited"}
    mode = manifest["settings"]["agent_mode"]
    assert mode["requested"] == "auto" and mode["ran"] == "no-tools"
    assert "does not support tools" in mode["reason"]
    assert srv.statuses[0] == 400 and len(srv.requests) == 2  # refused once, not retried
    switch = [e for e in events if isinstance(e, AgentNotice) and e.topic == "mode-switch"]
    assert len(switch) == 1 and "Switching to the no-tools mode" in switch[0].text
    observed = next(e for e in trace if e.get("text") == "agent mode and capabilities observed")
    assert observed["capabilities"]["tool calls"]["status"] == "FAIL"


async def test_auto_switches_when_the_model_calls_no_tool_in_two_turns(tmp_path):
    class TalksButCanEdit(Silent, PlainEnglish):
        pass

    outcome, srv, trace, manifest, verdicts, events, after = await _run(
        tmp_path, TalksButCanEdit(), "auto"
    )
    assert outcome.status == "completed", outcome.reason
    assert verdicts == {"c1": "edited", "c2": "edited"}
    mode = manifest["settings"]["agent_mode"]
    assert mode["ran"] == "no-tools" and "called no tool in its first 2 turns" in mode["reason"]
    work = [r for r in srv.requests if r.get("tools")]
    assert len(work) == 2  # two turns (one nudge), then no-tools


async def test_auto_stays_with_tools_when_the_model_calls_them(tmp_path):
    outcome, srv, trace, manifest, verdicts, events, after = await _run(
        tmp_path, NarrateFirst(1), "auto"
    )
    assert outcome.status == "completed"
    assert manifest["settings"]["agent_mode"]["ran"] == "tools"
    assert verdicts == {"c1": "edited", "c2": "edited"}


async def test_required_refusal_is_said_once_in_the_run_log(tmp_path):
    outcome, srv, trace, manifest, verdicts, events, after = await _run(
        tmp_path, NarrateFirst(2), "tools", quirks=Quirks(required_status=500)
    )
    assert outcome.status == "completed"
    said = [e for e in events if isinstance(e, AgentNotice) and e.topic == "tool_choice"]
    assert len(said) == 1 and "Unexpected empty grammar stack" in said[0].describe()


async def test_a_run_writes_the_known_and_observed_findings_into_its_trace(tmp_path):
    with ScriptedServer(FixEverything(), quirks=Quirks(refuse_json_object=True)) as srv:
        await check_endpoint(srv.base_url, srv.model, None, timeout=5)
        ws = Workspace(tmp_path / "w.sqlite3")
        text = Version.from_source(SAMPLE_HTML).text
        doc = prepare_document(
            ws, "m", SAMPLE_HTML, "html", [Comment.from_json(c) for c in sample_comments(text)]
        )
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model, backoff_initial=0.01)
        outcome = await run_review(ws, doc, cfg, out_dir=tmp_path / "b")
    assert outcome.status == "completed"
    trace = json.loads((outcome.bundle / "trace.json").read_text())["entries"]
    known = next(e for e in trace if e.get("text") == "agent mode and known capabilities")
    assert known["capabilities_known"]["json_object"]["status"] == "FAIL"
    assert known["capabilities_known"]["json_object"]["source"] == "doctor"
    assert known["report_format_known"] is None  # the doctor probes, the report remembers
    observed = next(e for e in trace if e.get("text") == "agent mode and capabilities observed")
    caps = observed["capabilities"]
    assert caps["json_object"]["status"] == "FAIL" and caps["json_schema"]["status"] == "PASS"
    assert caps["tool calls"]["status"] == "PASS" and caps["usage reported"]["status"] == "PASS"
    assert capabilities.report_format(srv.url, srv.model) == "json_schema"


async def test_a_no_tools_answer_that_cannot_be_used_is_said_in_the_next_request(tmp_path):
    class Rambles(PlainEnglish):
        def no_tools(self, body):
            return self.completion("The committee will utilize the portal. Policy says so.")

    outcome, srv, trace, manifest, verdicts, events, after = await _run(
        tmp_path, Rambles(), "no-tools", rounds=2
    )
    assert outcome.status == "completed"
    assert verdicts == {"c1": "untouched", "c2": "untouched"}
    claim = outcome.metrics["claim_accuracy"]
    assert claim["value"] is None and "no disposition line" in claim["reason"]
    first, second = (r["messages"][1]["content"] for r in srv.requests)
    assert "could not be used" not in first
    assert second.startswith(
        "Your previous answer could not be used: the answer has no complete document"
    )


@pytest.mark.parametrize(
    "answer,doc,claims,problem",
    [
        (
            "<<<DISPOSITIONS>>>\n- c1: addressed | done\nc2 - Not Addressed - no\n"
            "<<<END DISPOSITIONS>>>\n<<<DOCUMENT>>>\n```html\n<p>x</p>\n```\n<<<END DOCUMENT>>>",
            "<p>x</p>",
            [("c1", "addressed", "done"), ("c2", "not_addressed", "no")],
            None,
        ),
        (
            "c1: addressed | ok\n<<<DOCUMENT>>>\n<p>cut off",
            None,
            [("c1", "addressed", "ok")],
            "has no end line (it may have been cut off)",
        ),
        (
            "Sure! <html><body><p>y</p></body></html>\nc9: addressed",
            "<html><body><p>y</p></body></html>",
            [],
            "unknown comment id 'c9'",
        ),
    ],
)
def test_the_no_tools_answer_is_read_tolerantly(answer, doc, claims, problem):
    p = parse_answer(answer, ["c1", "c2"], "html")
    assert p.document == doc
    assert [(d.comment_id, d.claim, d.reason) for d in p.dispositions] == claims
    if problem:
        assert any(problem in x for x in p.problems), p.problems


def test_a_no_tools_answer_without_a_document_says_where_it_should_have_been():
    p = parse_answer("c1: addressed | ok", ["c1"], "markdown")
    assert p.document is None
    assert any(
        "does not hold the revised document" in x and "<<<DOCUMENT>>>" in x for x in p.problems
    )
    assert not any("markers" in x for x in p.problems)
