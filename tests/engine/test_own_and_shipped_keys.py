"""Whose key signed it: this computer's own key reads "signed by you on this computer" and
is trusted by default, the same key every run (keyring, else a 0600 file in the data
folder); the project's release key, which signs the shipped example and demo, is trusted
under the project's name; either can be removed and stays removed."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import NoKeyringError

from arl_keys import signing as key_store
from engine.bundle import signing
from engine.bundle.read import open_bundle

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = [
    ROOT / "resources/demo/remote-work-policy-scripted",
    ROOT / "resources/example/f1000rd-8-103-smollm2-135m",
]


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch):
    monkeypatch.setenv("ARL_TRUSTED_KEYS", str(tmp_path / "trusted.json"))
    monkeypatch.delenv("ARL_SIGNING_KEY_FILE", raising=False)
    return tmp_path / "trusted.json"


class _NoKeyring(KeyringBackend):
    priority = 1

    def get_password(self, service, username):
        raise NoKeyringError("no backend")

    def set_password(self, service, username, password):
        raise NoKeyringError("no backend")

    def delete_password(self, service, username):
        raise NoKeyringError("no backend")


@pytest.fixture
def no_keyring(monkeypatch):
    original = keyring.get_keyring()
    keyring.set_keyring(_NoKeyring())
    monkeypatch.setattr(key_store, "_session", None)
    yield
    keyring.set_keyring(original)


@pytest.mark.parametrize("bundle", SHIPPED, ids=lambda p: p.name)
def test_the_shipped_bundles_are_signed_by_the_project(bundle):
    b = open_bundle(bundle)
    assert b.signature["public_key"] == signing.PROJECT_PUBLIC_KEY
    status = signing.check_bundle(b)
    assert status.trusted and status.trusted_as == signing.PROJECT_KEY_NAME
    assert status.fingerprint == "45ad 6ccd ea15 bf69"
    assert "unknown key" not in status.line()
    assert status.line() == f"signed by 45ad 6ccd ea15 bf69 (trusted: {signing.PROJECT_KEY_NAME})"


def test_the_project_key_can_be_removed_and_stays_removed(_store):
    b = open_bundle(SHIPPED[0])
    signing.set_trusted("45ad 6ccd ea15 bf69", "")
    assert not signing.check_bundle(b).trusted
    assert "an unknown key: not trusted" in signing.check_bundle(b).line()
    # Kept as an empty entry: nothing brings it back by itself.
    raw = json.loads(_store.read_text())
    assert raw == {next(iter(signing.shipped_trust())): ""}
    assert signing.load_trusted() == {}
    signing.trust_key(base64.b64decode(signing.PROJECT_PUBLIC_KEY), "the project")
    assert signing.check_bundle(b).trusted_as == "the project"


def test_the_keyring_key_is_trusted_as_yours_and_stable(memory_keyring):
    k1 = key_store.signing_key()
    k2 = key_store.signing_key()
    assert k1.where == "keyring" and k1.material == k2.material
    pub = signing.public_key(k1.material)
    assert signing.load_trusted()[signing.key_id(pub)] == signing.OWN_KEY_NAME
    manifest = b'{"x": 1}'
    status = signing.verify_signature(manifest, signing.sign_manifest(manifest, k1.material))
    assert status.trusted
    assert status.line() == f"signed by you on this computer (key {k1.fingerprint})"


def test_without_a_keyring_the_key_is_a_private_file_in_the_data_folder(no_keyring, arl_home):
    k1 = key_store.signing_key()
    path = key_store.datafile_path()
    assert path.parent == arl_home and path.is_file()
    assert (path.stat().st_mode & 0o777) == 0o600
    assert k1.where == "datafile" and str(path) in k1.note and "only you can read" in k1.note
    k2 = key_store.signing_key()  # another run, another process: the same key from the file
    assert k2.material == k1.material
    assert signing.key_id(signing.public_key(k1.material)) in signing.load_trusted()


def test_a_file_that_is_not_a_key_is_never_overwritten(no_keyring):
    path = key_store.datafile_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("my notes")
    key = key_store.signing_key()
    assert key.where == "session" and path.read_text() == "my notes"


def test_removing_your_own_key_is_kept(memory_keyring):
    key = key_store.signing_key()
    signing.set_trusted(key.fingerprint, "")
    assert signing.key_id(signing.public_key(key.material)) not in signing.load_trusted()
    assert signing.trust_own_key(signing.public_key(key.material)) is True  # no tombstone
    # A name the user gave it is kept: the own key is not renamed back.
    signing.trust_key(signing.public_key(key.material), "Ana's laptop")
    assert signing.trust_own_key(signing.public_key(key.material)) is False
    assert key_store.signing_key() and "Ana's laptop" in signing.load_trusted().values()


def test_a_release_key_file_is_not_taken_for_yours(tmp_path, monkeypatch):
    path = tmp_path / "release.key"
    key_store.write_key_file(path)
    monkeypatch.setenv("ARL_SIGNING_KEY_FILE", str(path))
    key = key_store.signing_key()
    assert signing.key_id(signing.public_key(key.material)) not in signing.load_trusted()
