"""The recorded example run shipped in resources/example: a real bundle from a real model."""

from __future__ import annotations

import json
from pathlib import Path

from engine.bundle import open_bundle, verify_bundle

EXAMPLE = Path(__file__).resolve().parent.parent / "resources" / "example"
BUNDLES = sorted(p.parent for p in EXAMPLE.glob("*/manifest.json"))


def test_the_example_verifies_and_names_a_real_model():
    assert len(BUNDLES) == 1, BUNDLES
    b = open_bundle(BUNDLES[0])
    assert verify_bundle(BUNDLES[0]).ok and b.ok
    assert b.model and b.model != "scripted-model" and not b.scripted
    assert b.status in ("completed", "failed", "cancelled")
    assert b.manifest["base_url"].startswith("http://127.0.0.1:")
    size = sum(p.stat().st_size for p in BUNDLES[0].rglob("*") if p.is_file())
    assert size < 1_000_000


def test_the_example_rescores_identically():
    b = open_bundle(BUNDLES[0])
    again = b.rescore().to_json()
    assert again["verdicts"] == b.verdicts["final"]
    stored = json.loads((BUNDLES[0] / "metrics.json").read_text(encoding="utf-8"))
    assert again["metrics"] == stored


def test_the_example_ships_its_inputs_and_licence():
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    assert "CC-BY-SA 4.0" in readme and "F1000RD" in readme
    v1 = (EXAMPLE / "input" / "paper-v1.txt").read_text(encoding="utf-8")
    b = open_bundle(BUNDLES[0])
    assert b.version("v1").source == v1
    comments = json.loads((EXAMPLE / "input" / "comments.json").read_text(encoding="utf-8"))
    assert [c["id"] for c in comments["comments"]] == [c.id for c in b.comments_before]
