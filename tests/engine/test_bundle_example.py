"""The recorded example run shipped in resources/example: a real bundle from a real model."""

from __future__ import annotations

import json
from pathlib import Path

from engine.bundle.read import open_bundle, verify_bundle

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "example"
BUNDLES = sorted(p.parent for p in EXAMPLE.glob("*/manifest.json"))


def trustworthy(path: Path) -> bool:
    """Hashes, schemas and signature hold, and re-derivation finds nothing forged (an
    engine change since the bundle was recorded is allowed: it is reported as such)."""
    res = verify_bundle(path)
    return (
        not res.bad
        and not res.problems
        and not res.signature.bad
        and res.rederivation is not None
        and not res.rederivation.forged
        and not res.rederivation.problems
    )


def test_the_example_verifies_and_names_a_real_model():
    assert len(BUNDLES) == 1, BUNDLES
    b = open_bundle(BUNDLES[0])
    assert trustworthy(BUNDLES[0]) and b.ok
    assert b.model and b.model != "scripted-model" and not b.scripted
    assert b.status in ("completed", "failed", "cancelled")
    assert b.manifest["base_url"].startswith("http://127.0.0.1:")
    size = sum(p.stat().st_size for p in BUNDLES[0].rglob("*") if p.is_file())
    assert size < 1_000_000


def test_the_example_ships_its_inputs_and_licence():
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    assert "CC-BY-SA 4.0" in readme and "F1000RD" in readme
    v1 = (EXAMPLE / "input" / "paper-v1.txt").read_text(encoding="utf-8")
    b = open_bundle(BUNDLES[0])
    assert b.version("v1").source == v1
    comments = json.loads((EXAMPLE / "input" / "comments.json").read_text(encoding="utf-8"))
    assert [c["id"] for c in comments["comments"]] == [c.id for c in b.comments_before]


DEMO = sorted(p.parent for p in (EXAMPLE.parent / "demo").glob("*/manifest.json"))


def test_the_scripted_demonstration_says_so_and_shows_every_verdict():
    assert len(DEMO) == 1, DEMO
    b = open_bundle(DEMO[0])
    assert trustworthy(DEMO[0]) and b.ok and b.scripted
    assert "scripted demonstration" in b.scorecard_html.lower()
    final = {v["comment_id"]: v for v in b.verdicts["final"]}
    assert final["c1"]["verdict"] == "edited" and final["c1"]["claim_agrees"] is True
    assert final["c2"]["verdict"] == "untouched" and final["c2"]["claim_agrees"] is False
    assert final["c3"]["verdict"] == "deleted"
    assert final["c4"]["verdict"] == "stale_anchor"
    assert b.verdicts["collateral"], "the demo rewrites a sentence no comment points at"
    after = {c.id: c for c in b.comments_after}
    assert after["c2"].status == "open"  # reopened: claimed addressed, text unchanged
    assert any(r.kind == "reopen" for r in after["c2"].thread)


def _readme_fingerprint(readme: Path) -> str:
    import re

    m = re.search(r"fingerprint \*\*`([0-9a-f]{4}(?: [0-9a-f]{4}){3})`\*\*", readme.read_text())
    assert m, f"{readme} names no fingerprint"
    return m.group(1)


def test_shipped_bundles_are_signed_with_the_key_their_readme_names():
    for folder, bundle in ((EXAMPLE, BUNDLES[0]), (EXAMPLE.parent / "demo", DEMO[0])):
        res = verify_bundle(bundle)
        assert res.signature.state == "signed", bundle
        assert res.signature.fingerprint == _readme_fingerprint(folder / "README.md")
        assert open_bundle(bundle).format == "arl-bundle/2"
