"""Runs sign their bundle by default (key in the keyring, created on first use; a key file
in the user's data folder when no keyring works, said plainly); --no-sign leaves it
unsigned."""

from __future__ import annotations

import json

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import NoKeyringError

from arl_keys import signing as key_store
from arl_keys.cli import main as arl_with_keyring
from engine.bundle.read import verify_bundle
from engine.cli.main import main as arl
from tests.engine.test_cli_loop import _run_args, inputs  # noqa: F401 (fixture)
from tests.helpers.scripted_server import FixEverything, ScriptedServer


@pytest.fixture(autouse=True)
def _trusted(tmp_path, monkeypatch):
    monkeypatch.setenv("ARL_TRUSTED_KEYS", str(tmp_path / "trusted.json"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def _last(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def test_runs_sign_with_the_keyring_key_created_on_first_use(
    inputs,  # noqa: F811
    tmp_path,
    capsys,
    memory_keyring,
):
    doc, comments = inputs
    with ScriptedServer(FixEverything()) as srv:
        assert arl_with_keyring(_run_args(srv, doc, comments, tmp_path, "--json")) == 0
        first = "".join(reversed(capsys.readouterr()))  # progress (stderr), then the JSON
        assert arl_with_keyring(_run_args(srv, doc, comments, tmp_path / "2", "--json")) == 0
        second = "".join(reversed(capsys.readouterr()))
    stored = memory_keyring.get_password(key_store.SERVICE, key_store.ACCOUNT)
    assert stored  # created on first use, kept in the keyring
    r1, r2 = verify_bundle(_last(first)["bundle"]), verify_bundle(_last(second)["bundle"])
    assert r1.ok and r1.signature.state == "signed"
    assert r1.signature.fingerprint == r2.signature.fingerprint  # the same key both times
    assert f"with key {r1.signature.fingerprint} (keyring)" in first


def test_no_sign_and_no_keyring(inputs, tmp_path, capsys, monkeypatch):  # noqa: F811
    doc, comments = inputs

    class Broken(KeyringBackend):
        priority = 1

        def get_password(self, service, username):
            raise NoKeyringError("no backend")

        def set_password(self, service, username, password):
            raise NoKeyringError("no backend")

        def delete_password(self, service, username):
            raise NoKeyringError("no backend")

    original = keyring.get_keyring()
    keyring.set_keyring(Broken())
    monkeypatch.setattr(key_store, "_session", None)
    try:
        with ScriptedServer(FixEverything()) as srv:
            assert arl_with_keyring(_run_args(srv, doc, comments, tmp_path, "--json")) == 0
            out = "".join(reversed(capsys.readouterr()))  # progress (stderr), then the JSON
            assert arl(_run_args(srv, doc, comments, tmp_path / "n", "--json", "--no-sign")) == 0
            unsigned = "".join(reversed(capsys.readouterr()))
    finally:
        keyring.set_keyring(original)
    # No keyring: the key is kept in the user's data folder, readable by them only.
    kept = key_store.datafile_path()
    assert (
        f"(datafile): No working password store (keyring): the signing key is kept in {kept}" in out
    )
    assert (kept.stat().st_mode & 0o777) == 0o600
    assert verify_bundle(_last(out)["bundle"]).signature.state == "signed"
    res = verify_bundle(_last(unsigned)["bundle"])
    assert res.ok and res.signature.state == "unsigned" and "Signing" not in unsigned


def test_a_key_file_signs_release_bundles(tmp_path, monkeypatch):
    from pathlib import Path

    from engine.bundle import signing

    path = Path(tmp_path / "release.key")
    fp = key_store.write_key_file(path)
    assert (path.stat().st_mode & 0o777) == 0o600
    monkeypatch.setenv("ARL_SIGNING_KEY_FILE", str(path))
    key = key_store.signing_key()
    assert key.where == "file" and key.fingerprint == fp
    assert signing.key_fingerprint(key.material) == fp
    path.write_text("not a key")
    with pytest.raises(ValueError, match="not a signing key file"):
        key_store.signing_key()
