"""Opt-in: one whole review loop against a real model endpoint.

Runs only when ``ARL_TEST_BASE_URL`` and ``ARL_TEST_MODEL`` are set (``ARL_TEST_API_KEY``
optional; ``ARL_TEST_ECHO_TOOL_RESULTS=1`` for llama-cpp-python's chatml-function-calling).
``../shared/tools/local-model.sh start`` gives one on this machine (a 135M model: expect it to
fail the task, and the harness to say so correctly). The assertions are about the harness,
never about the model's quality.
"""

from __future__ import annotations

import os

import pytest

from engine.agent.config import AgentConfig
from engine.bundle.read import open_bundle, verify_bundle
from engine.models import Comment
from engine.run.start import prepare_document, run_review
from engine.score.scoring import Version
from engine.workspace import Workspace
from tests.helpers.scripted_server import SAMPLE_HTML, sample_comments

BASE_URL = os.environ.get("ARL_TEST_BASE_URL")
MODEL = os.environ.get("ARL_TEST_MODEL")

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(not (BASE_URL and MODEL), reason="set ARL_TEST_BASE_URL and ARL_TEST_MODEL"),
]


async def test_a_whole_loop_against_a_real_model(tmp_path):
    ws = Workspace(tmp_path / "w.db")
    text = Version.from_source(SAMPLE_HTML).text
    doc = prepare_document(
        ws,
        "Remote work policy",
        SAMPLE_HTML,
        "html",
        [Comment.from_json(c) for c in sample_comments(text)],
    )
    cfg = AgentConfig(
        base_url=BASE_URL,
        model=MODEL,
        api_key=os.environ.get("ARL_TEST_API_KEY"),
        request_timeout=300,
        max_turns_per_round=6,
        max_output_tokens=1024,
        echo_tool_results=os.environ.get("ARL_TEST_ECHO_TOOL_RESULTS") == "1",
    )
    outcome = await run_review(ws, doc, cfg, rounds=2, out_dir=tmp_path / "bundles")
    assert outcome.status in ("completed", "failed")
    assert verify_bundle(outcome.bundle).ok
    b = open_bundle(outcome.bundle)
    assert b.model == MODEL and not b.scripted
    for name, m in b.metrics.items():
        assert (m.value is None) == bool(m.reason), name  # a number or N/A with a reason
    verdicts = {v["comment_id"]: v["verdict"] for v in b.verdicts["final"]}
    for c in ws.comments(doc):
        # integrity control: nothing stays resolved with unchanged text
        if c.status == "resolved":
            assert verdicts[c.id] != "untouched"
    if outcome.tokens is not None:
        assert outcome.tokens > 0
