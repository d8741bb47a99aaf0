"""The OS keyring entries of this program: service ``agent-review-loop``.

- API keys, one per endpoint host: account ``api-key@<host>`` where ``<host>`` is
  ``engine.credentials.key_host(base_url)`` (e.g. ``api-key@api.openai.com``,
  ``api-key@127.0.0.1:8089``).
- ``api-key``: the single entry of earlier versions, saved for no particular host. It is
  never sent anywhere (``has_unbound_key`` lets callers say so); ``delete_key`` removes it.

Every call is guarded: on a headless Linux box even ``get_password`` raises
``NoKeyringError``. Reads return None on any failure; ``set_key`` raises
``KeyringUnavailable`` (its ``str()`` is the plain sentence for people).

keyring is imported on the first call that reads or writes a key (``keyring_module``):
loading it and its backends takes about 100 ms, which commands that use no key (``arl
score``, ``arl text``) do not pay (docs/engine.md, "Speed").
"""

from __future__ import annotations

from types import ModuleType

SERVICE = "agent-review-loop"
UNBOUND_ACCOUNT = "api-key"

NO_KEYRING_MESSAGE = (
    "This computer has no working password store (keyring), so the API key cannot be "
    "saved. You can keep it for this session only: it stays in memory and is forgotten "
    "when the program closes."
)

#: ``backend_name()`` when no keyring works, in words (arl_keys.signing keeps the signing
#: key in the data folder then, ``DATAFILE_NOTE``; an API key is kept for the session).
NO_KEYRING_WORDS = (
    "no keyring on this computer; your signing key is kept in a file only you can read, "
    "and an API key for this session only"
)


def keyring_module() -> ModuleType:
    """The ``keyring`` module, imported on first use (see the module docstring)."""
    import keyring

    return keyring


def failures() -> tuple[type[Exception], ...]:
    """What a keyring call raises when no keyring works: ``NoKeyringError``, any other
    ``KeyringError`` (a locked wallet, D-Bus refusing) and ``RuntimeError``."""
    from keyring.errors import KeyringError, NoKeyringError

    return (NoKeyringError, KeyringError, RuntimeError)


class KeyringUnavailable(RuntimeError):
    """No keyring backend works. ``str()`` is the plain message for people."""

    def __init__(self, detail: str = ""):
        self.detail = detail
        super().__init__(NO_KEYRING_MESSAGE)


class KeyringConfigError(OSError):
    """The keyring's own configuration file cannot be used (unreadable, not an INI file,
    or naming a backend that does not load). An ``OSError`` naming the file, so every
    command prints one line and exits 2 (``engine.cli.main``), never a traceback."""


def keyring_ready() -> None:
    """Load the keyring backend once; raises KeyringConfigError when its configuration
    file (``keyringrc.cfg`` in keyring's config folder) is what fails. Any other failure
    is "no working keyring", which every caller already handles."""
    import configparser

    try:
        keyring_module().get_keyring()
    except (OSError, configparser.Error, ImportError) as exc:
        try:
            from keyring.core import _config_path

            where = str(_config_path())
        except Exception:
            where = "the keyring configuration"
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        first = why.splitlines()[0] if why else type(exc).__name__
        raise KeyringConfigError(
            22, f"cannot be used as the keyring configuration ({first})", where
        ) from None


def account_for(host: str) -> str:
    """The keyring account of the key for ``host`` (a ``key_host`` value)."""
    return f"{UNBOUND_ACCOUNT}@{host}"


def get_key(host: str) -> str | None:
    """The key saved for ``host``, or None (also when no keyring works)."""
    if not host:
        return None
    keyring_ready()
    try:
        return keyring_module().get_password(SERVICE, account_for(host)) or None
    except failures():
        return None


def set_key(host: str, key: str) -> None:
    """Save ``key`` for ``host``. Raises KeyringUnavailable when no keyring works,
    ValueError when ``host`` is empty (a key is always saved for a host)."""
    if not host:
        raise ValueError("a key is saved for an endpoint host; the URL names none")
    keyring_ready()
    try:
        keyring_module().set_password(SERVICE, account_for(host), key)
    except failures() as exc:
        raise KeyringUnavailable(str(exc)) from exc


def delete_key(host: str | None) -> None:
    """Forget the key for ``host`` (None: the unbound entry of earlier versions)."""
    from keyring.errors import PasswordDeleteError

    account = UNBOUND_ACCOUNT if host is None else account_for(host)
    keyring_ready()
    try:
        keyring_module().delete_password(SERVICE, account)
    except (PasswordDeleteError, *failures()):
        pass


def has_unbound_key() -> bool:
    """True when an earlier version's single ``api-key`` entry exists."""
    keyring_ready()
    try:
        return bool(keyring_module().get_password(SERVICE, UNBOUND_ACCOUNT))
    except failures():
        return False


def backend_name() -> str:
    """The keyring backend's name as people read it, e.g. ``SecretService Keyring``; when
    none works (none installed or loadable, keyring's ``fail`` or ``null`` backend)
    ``NO_KEYRING_WORDS``. What went wrong (the exception, the backend) goes to this
    module's log, never into the words."""
    import logging  # loaded here: a command that reads no key does not pay for it

    log = logging.getLogger(__name__)
    try:
        kr = keyring_module().get_keyring()
    except Exception as exc:
        log.info("no keyring: %s: %s", type(exc).__name__, exc)
        return NO_KEYRING_WORDS
    name = str(getattr(kr, "name", None) or type(kr).__name__)
    if type(kr).__module__.startswith(("keyring.backends.fail", "keyring.backends.null")):
        log.info("no keyring: the backend is %s (%s)", name, type(kr).__module__)
        return NO_KEYRING_WORDS
    return name


def keyring_works() -> bool:
    """A keyring backend answers reads and is not the ``fail`` backend."""
    keyring = keyring_module()
    try:
        keyring.get_password(SERVICE, UNBOUND_ACCOUNT)
        return not type(keyring.get_keyring()).__module__.startswith("keyring.backends.fail")
    except failures():
        return False
