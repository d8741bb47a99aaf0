"""An unsigned bundle's manifest is cross-checked against its own hashed trace: the model,
the endpoint and whether it was a scripted demonstration (docs/bundle.md, "Re-derived,
never trusted")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.bundle.read import verify_bundle
from engine.cli.main import main as arl
from tests.engine.test_bundle import make_bundle


@pytest.fixture(scope="module")
def scripted(tmp_path_factory) -> Path:
    return make_bundle(tmp_path_factory.mktemp("scripted"), scripted=True)


def _relabel(src: Path, dest: Path, **changes) -> Path:
    shutil.copytree(src, dest)
    m = json.loads((dest / "manifest.json").read_text())
    for k, v in changes.items():
        if v is None:
            m.pop(k, None)
        else:
            m[k] = v
    (dest / "manifest.json").write_text(json.dumps(m, indent=1))
    return dest


def test_the_untouched_bundle_verifies(scripted):
    assert verify_bundle(scripted).ok


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"scripted": False, "scripted_note": None}, "scripted"),
        ({"model": "gpt-4o"}, "model"),
        ({"base_url": "https://api.openai.com/v1"}, "base_url"),
        ({"model": "Claude 3.5 — 模型"}, "model"),
    ],
)
def test_a_relabelled_manifest_is_tampered(scripted, tmp_path, changes, field, capsys):
    b = _relabel(scripted, tmp_path / "b", **changes)
    res = verify_bundle(b)
    assert res.tampered
    assert any(d.field == field for d in res.rederivation.differences)
    assert arl(["bundle", "verify", str(b)]) == 3
    assert "(trace" in capsys.readouterr().out
