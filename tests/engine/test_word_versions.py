"""The manifest says which versions were Word files (``word_versions``, arl-bundle/3,
optional): a checked Word revision's scorecard said "(html)". Older bundles, which lack
the field, open as before; an older format may not carry it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from engine import vocabulary as vocab
from engine.bundle.schema import ManifestFile

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "remote-work-policy-scripted"


def _manifest(**changes):
    m = json.loads((DEMO / "manifest.json").read_text(encoding="utf-8"))
    m.update(changes)
    return m


def test_the_field_is_optional_and_of_arl_bundle_3_only():
    ManifestFile.model_validate(_manifest())  # /2, no field: as shipped
    ManifestFile.model_validate(_manifest(format="arl-bundle/3"))  # an older /3: none
    ok = ManifestFile.model_validate(_manifest(format="arl-bundle/3", word_versions=["v1", "v2"]))
    assert ok.word_versions == ["v1", "v2"]
    with pytest.raises(ValidationError, match="word_versions is a field of arl-bundle/3"):
        ManifestFile.model_validate(_manifest(word_versions=["v1"]))
    for bad in ([], ["v3"], ["v1", "v2", "v1"], "v1"):
        with pytest.raises(ValidationError):
            ManifestFile.model_validate(_manifest(format="arl-bundle/3", word_versions=bad))


@pytest.mark.parametrize(
    ("manifest", "said"),
    [
        ({"document_kind": "html"}, "an HTML page"),
        ({}, "an HTML page"),
        ({"document_kind": "text"}, "plain text"),
        ({"document_kind": "markdown"}, "a Markdown file"),
        ({"document_kind": "html", "word_versions": ["v1", "v2"]}, "a Word document (.docx)"),
        (
            {"word_versions": ["v1"], "agent_mode": {"ran": "tools"}},
            "a Word document (.docx); the agent's versions are pages",
        ),
        (
            {"word_versions": ["v1"], "agent_mode": {"ran": "external"}},
            "a Word document (.docx); the revised version was not a Word file (an HTML page)",
        ),
        (
            {"word_versions": ["v2"], "agent_mode": {"ran": "external"}},
            "a Word document (.docx); the reviewed version was not a Word file (an HTML page)",
        ),
        ({"word_versions": "v1"}, "an HTML page"),  # not a list: not trusted as a claim
    ],
)
def test_the_document_is_said_in_words(manifest, said):
    assert vocab.document_kind_words(manifest) == said
    assert "(html)" not in vocab.document_kind_words(manifest)


def test_the_scorecard_of_an_older_bundle_keeps_its_words_and_a_new_rendering_says_its_kind():
    """The stored scorecard is the evidence (hashed, never rewritten); the program's own
    rendering of the same bundle now says the kind in words."""
    from engine.bundle.bundle import own_scorecard
    from engine.bundle.read import open_bundle

    stored = (DEMO / "scorecard.html").read_text(encoding="utf-8")
    fresh = own_scorecard(open_bundle(DEMO))
    assert "<th>Kind of document</th><td>an HTML page</td>" in fresh
    assert "Remote work policy: an HTML page" not in stored
