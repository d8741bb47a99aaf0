"""The one credentials rule (engine/credentials.py), and the keyring store outside engine/."""

from __future__ import annotations

import pytest

from arl_keys import api_key_for
from arl_keys.store import SERVICE, account_for
from engine.credentials import choose_api_key, key_host


def test_order_environment_then_keyring_for_the_host_then_session_then_none():
    url = "https://api.example.com/v1"
    stored = {"api.example.com": "sk-stored"}
    session = {"api.example.com": "sk-session"}
    env = {"OPENAI_API_KEY": "sk-env"}

    def pick(environ, st, se):
        c = choose_api_key(url, environ=environ, stored=st.get, session=se.get)
        return c.key, c.source

    assert pick(env, stored, session) == ("sk-env", "env")  # explicit beats stored
    assert pick({}, stored, session) == ("sk-stored", "keyring")
    assert pick({}, {}, session) == ("sk-session", "session")
    assert pick({}, {}, {}) == (None, "none")
    assert pick({"OPENAI_API_KEY": "  "}, stored, {}) == ("sk-stored", "keyring")  # blank = unset


def test_a_stored_key_goes_only_to_its_host():
    stored = {"api.openai.com": "sk-openai"}.get
    for url in (
        "http://127.0.0.1:8089/v1",
        "https://api.openai.com.evil.example/v1",
        "https://api.openai.com:8443/v1",
        "http://localhost:11434/v1",
    ):
        assert choose_api_key(url, environ={}, stored=stored).key is None, url
    for url in ("https://api.openai.com/v1", "https://API.OpenAI.com:443/v1/"):
        assert choose_api_key(url, environ={}, stored=stored).key == "sk-openai", url


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://api.openai.com/v1", "api.openai.com"),
        ("https://user:pw@API.openai.com:443/v1", "api.openai.com"),
        ("http://127.0.0.1:8089/v1", "127.0.0.1:8089"),
        ("http://localhost:80/v1", "localhost"),
        ("http://[::1]:8000/v1", "[::1]:8000"),
        ("http://[::1", ""),
        ("not a url", ""),
        ("", ""),
    ],
)
def test_key_host(url, host):
    assert key_host(url) == host


def test_a_failing_lookup_means_nothing_stored():
    def boom(host):
        raise RuntimeError("locked")

    c = choose_api_key("https://h.example/v1", environ={}, stored=boom, session=boom)
    assert (c.key, c.source) == (None, "none")


def test_the_choice_never_shows_the_key():
    c = choose_api_key("https://h.example/v1", environ={"OPENAI_API_KEY": "sk-secret-99"})
    assert "sk-secret-99" not in repr(c) and "sk-secret-99" not in c.describe()
    assert c.describe() == "OPENAI_API_KEY"


def test_arl_keys_reads_the_keyring_per_host(memory_keyring, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    memory_keyring.set_password(SERVICE, account_for("127.0.0.1:9"), "sk-local")
    assert api_key_for("http://127.0.0.1:9/v1").key == "sk-local"
    assert api_key_for("http://127.0.0.1:10/v1").key is None
    memory_keyring.set_password(SERVICE, "api-key", "sk-old-unbound")
    c = api_key_for("http://127.0.0.1:10/v1")
    assert c.key is None and "earlier version" in c.note
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert api_key_for("http://127.0.0.1:9/v1").source == "env"
