"""API key handling (keyring, OPENAI_API_KEY, session-only) and the settings file."""

from __future__ import annotations

import keyring
import pytest
from keyring.errors import NoKeyringError

from app import secrets as app_secrets


@pytest.fixture(autouse=True)
def _forget_session_key():
    app_secrets.keep_for_session(None)
    yield
    app_secrets.keep_for_session(None)


URL = "https://api.example.com/v1"


def test_key_round_trip_through_the_keyring(memory_keyring, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert app_secrets.get_key(URL) == (None, "none")
    app_secrets.save_key("sk-test-123", URL)
    assert memory_keyring.passwords[("agent-review-loop", "api-key@api.example.com")] == (
        "sk-test-123"
    )
    assert app_secrets.get_key(URL) == ("sk-test-123", "keyring")
    assert app_secrets.get_key("http://127.0.0.1:8089/v1") == (None, "none")  # another host
    app_secrets.delete_key(URL)
    assert app_secrets.get_key(URL) == (None, "none")


def test_environment_variable_overrides(memory_keyring, monkeypatch):
    app_secrets.save_key("from-keyring", URL)
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert app_secrets.get_key(URL) == ("from-env", "env")


class BrokenKeyring(keyring.backend.KeyringBackend):
    priority = 1

    def get_password(self, service, username):
        raise NoKeyringError("no backend")

    def set_password(self, service, username, password):
        raise NoKeyringError("no backend")

    def delete_password(self, service, username):
        raise NoKeyringError("no backend")


def test_missing_keyring_is_a_plain_message_and_session_key_works(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    keyring.set_keyring(BrokenKeyring())  # the autouse fixture restores the original
    assert not app_secrets.keyring_works()
    assert app_secrets.get_key(URL) == (None, "none")  # reads are guarded too
    with pytest.raises(app_secrets.KeyringUnavailable) as info:
        app_secrets.save_key("sk-x", URL)
    assert "session only" in str(info.value)
    app_secrets.keep_for_session("sk-x", URL)
    assert app_secrets.get_key(URL) == ("sk-x", "session")
    assert app_secrets.get_key("https://other.example/v1") == (None, "none")


def test_settings_live_under_arl_home_and_never_hold_a_key(arl_home):
    from app.settings import Settings

    s = Settings()
    assert s.path.parent == arl_home
    s.rounds = 5
    s.base_url = "http://127.0.0.1:8089/v1"
    s.add_recent_bundle("/a")
    s.add_recent_bundle("/b")
    s.add_recent_bundle("/a")
    s.sync()
    s2 = Settings()
    assert s2.rounds == 5 and s2.base_url == "http://127.0.0.1:8089/v1"
    assert s2.recent_bundles == ["/a", "/b"]
    with pytest.raises(ValueError):
        s2.set("model/api_key", "sk-nope")
    assert "sk-" not in s.path.read_text(encoding="utf-8")
    assert "settings_version=1" in s.path.read_text(encoding="utf-8")


def test_backend_name_without_a_keyring_is_plain_words_and_the_detail_is_logged(
    monkeypatch, caplog
):
    """No keyring: plain words (the About box and the wizard show them), never a Python
    exception's text; the exception goes to the log."""
    import logging
    from types import SimpleNamespace

    from keyring.backends import fail

    from arl_keys import store

    caplog.set_level(logging.INFO, logger="arl_keys.store")
    keyring.set_keyring(fail.Keyring())  # the autouse fixture restores the original
    assert app_secrets.backend_name() == store.NO_KEYRING_WORDS
    said = "org.freedesktop.DBus.Error.ServiceUnknown: The name is not activatable"

    def broken():
        raise RuntimeError(said)

    monkeypatch.setattr(store, "keyring_module", lambda: SimpleNamespace(get_keyring=broken))
    words = app_secrets.backend_name()
    assert words == store.NO_KEYRING_WORDS and "only you can read" in words
    assert "Error" not in words and "(" not in words and "unavailable" not in words
    assert f"RuntimeError: {said}" in caplog.text
    keyring.set_keyring(BrokenKeyring())  # a backend that loads keeps its name
    monkeypatch.undo()
    assert app_secrets.backend_name() == BrokenKeyring().name
