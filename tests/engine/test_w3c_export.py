"""What `arl comments export` writes passes the W3C Web Annotation test suite's MUSTs.

The schemas are the suite's own (tests/data/w3c-annotation-musts, from
w3c/web-annotation-tests): every assertion `annotations/annotationMusts.test` lists, with
`format` checked (a `uri` by RFC 3986), as the suite's harness checks them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")
referencing = pytest.importorskip("referencing")
from referencing.jsonschema import DRAFT4  # noqa: E402

from engine.cli.main import main as arl  # noqa: E402
from engine.comments_io import comments_to_w3c, document_iri, parse_comments  # noqa: E402
from tests.helpers.scripted_server import make_comment  # noqa: E402

SUITE = Path(__file__).parents[1] / "data" / "w3c-annotation-musts"


def _registry() -> referencing.Registry:
    """Every schema of the suite under its draft-04 ``id`` (the name its ``$ref``s use)."""
    resources = []
    for path in sorted(SUITE.rglob("*.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((contents["id"], DRAFT4.create_resource(contents)))
    return referencing.Registry().with_resources(resources)


def _must_failures(annotation: dict) -> list[str]:
    """The error message of every MUST assertion ``annotation`` does not meet."""
    registry = _registry()
    test = json.loads((SUITE / "annotations" / "annotationMusts.test").read_text())
    failures = []
    checker = jsonschema.Draft4Validator.FORMAT_CHECKER
    assert "uri" in checker.checkers, "format 'uri' must be checked (rfc3986-validator)"
    for name in test["assertions"]:
        schema = json.loads((SUITE / name).read_text(encoding="utf-8"))
        validator = jsonschema.Draft4Validator(schema, registry=registry, format_checker=checker)
        valid = validator.is_valid(annotation)
        if valid != (schema.get("expectedResult", "valid") == "valid"):
            failures.append(f"{name}: {schema.get('errorMessage', '')}")
    return failures


TEXT = "Emoji 😀 first. Employees may work remotely up to two days per week."


def _exported(tmp_path: Path, *extra: str, doc_name: str = "memo draft é.txt") -> dict:
    doc = tmp_path / doc_name
    doc.write_text(TEXT, encoding="utf-8")
    src = tmp_path / "c.json"
    src.write_text(json.dumps([make_comment(TEXT, "up to two days per week", "c1")]))
    out = tmp_path / "w3c.json"
    args = ["comments", "export", "--doc", str(doc), "--comments", str(src), "--out", str(out)]
    assert arl([*args, *extra]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_the_suite_rejects_a_target_without_a_source() -> None:
    # the shape `arl comments export` wrote before: selectors, no source, a bare id
    old = {
        "@context": "http://www.w3.org/ns/anno.jsonld",
        "id": "c1",
        "type": "Annotation",
        "body": {"type": "TextualBody", "value": "x", "format": "text/plain"},
        "target": {"selector": [{"type": "TextQuoteSelector", "exact": "two days"}]},
    }
    failures = _must_failures(old)
    assert any("3.1-annotationIdValidated" in f for f in failures)
    assert any("3.2-targetObjectsRecognized" in f for f in failures)


def test_export_without_source_meets_every_must(tmp_path: Path) -> None:
    coll = _exported(tmp_path)
    (item,) = coll["first"]["items"]
    assert _must_failures(item) == []
    doc = tmp_path / "memo draft é.txt"
    assert item["target"]["source"] == doc.resolve().as_uri()
    assert item["target"]["source"].startswith("file:///") and "%20" in item["target"]["source"]
    assert item["id"].startswith("urn:uuid:") and item["arl:comment_id"] == "c1"


def test_export_with_a_source_keeps_it_and_meets_every_must(tmp_path: Path) -> None:
    coll = _exported(tmp_path, "--source", "https://example.org/memo")
    (item,) = coll["first"]["items"]
    assert item["target"]["source"] == "https://example.org/memo"
    assert _must_failures(item) == []


def test_a_document_without_a_path_is_named_by_its_bytes() -> None:
    comment = parse_comments([make_comment(TEXT, "two days", "c1")])[0]
    coll = comments_to_w3c(comment, TEXT)
    (item,) = coll["first"]["items"]
    import hashlib

    digest = hashlib.sha256(TEXT.encode("utf-8")).hexdigest()
    assert item["target"]["source"] == f"urn:sha256:{digest}" == document_iri(None, TEXT.encode())
    assert _must_failures(item) == []


def test_an_id_that_is_already_an_iri_is_kept_and_the_round_trip_keeps_every_id() -> None:
    comments = parse_comments(
        [
            make_comment(TEXT, "two days", "https://example.org/anno/7"),
            make_comment(TEXT, "Employees", "c 2"),
        ]
    )[0]
    coll = comments_to_w3c(comments, TEXT, "https://example.org/memo")
    ids = [it["id"] for it in coll["first"]["items"]]
    assert ids[0] == "https://example.org/anno/7" and ids[1].startswith("urn:uuid:")
    for it in coll["first"]["items"]:
        assert _must_failures(it) == []
    back, unusable = parse_comments(coll, text=TEXT)
    assert unusable == [] and [c.id for c in back] == ["https://example.org/anno/7", "c 2"]
    # the same document and id name the annotation alike on every export
    assert comments_to_w3c(comments, TEXT, "https://example.org/memo") == coll
