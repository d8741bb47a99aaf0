"""Writing a reviewer's decision into a bundle: ``adjudicate`` (``arl bundle adjudicate``,
the Verdicts view's Accept and Override) and the atomic write it ends with.

The shapes and the signature are ``engine.bundle.decisions``'s. A folder bundle's decision
files are replaced by three atomic renames, a zip bundle is rewritten whole and renamed
over the original (``write_decisions``): nothing is half-written on a kill. A bundle shipped
with the program or in a folder the user cannot write is never written: its decisions go
to the user's copy of it (``engine.bundle.own_copy``), which ``Recorded.home`` names.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.atomic import replacing, write_atomic
from engine.bundle.archive import BundleError, sha256
from engine.bundle.check_decisions import check_rule_problem, derived_check_status
from engine.bundle.decisions import (
    DECISIONS_FILE,
    DECISIONS_SIGNATURE_FILE,
    MAX_DECISIONS,
    MAX_NAME,
    Decision,
    DecisionError,
    DecisionsCheck,
    decision_payload,
    derived_verdicts,
    last_round,
    parse_files,
    rule_problem,
)
from engine.bundle.own_copy import DecisionsHome, decisions_bundle


@dataclass(frozen=True)
class Recorded:
    """A decision written (``decision``) and where (``home``: the bundle itself, or the
    user's copy of it with the reason in ``home.words()``)."""

    decision: Decision
    home: DecisionsHome


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_decision_files(
    manifest_bytes: bytes,
    existing: list[dict[str, Any]],
    signatures: list[dict[str, Any]],
    decision: Decision,
    private_key: bytes,
) -> tuple[bytes, bytes, bytes]:
    """(decisions.json, decisions.signature.json, the signature file while writing: with
    ``previous`` kept) after appending ``decision``, signed by ``private_key``."""
    from engine.bundle import signing

    pub = signing.public_key(private_key)
    pub_b64 = base64.b64encode(pub).decode("ascii")
    ident = signing.key_id(pub)
    if decision.reviewer_key != ident:
        raise DecisionError("the decision names another key than the one signing it")
    if len(existing) >= MAX_DECISIONS:
        raise DecisionError(f"the bundle already holds {MAX_DECISIONS} decisions")
    items = [*existing, decision.to_json()]
    mine = [i for i in items if i["reviewer_key"] == ident]
    mine_before = [i for i in existing if i["reviewer_key"] == ident]
    manifest_sha = sha256(manifest_bytes)

    def sign(group: list[dict[str, Any]]) -> str:
        return signing.sign_manifest(decision_payload(manifest_sha, pub_b64, group), private_key)[
            "signature"
        ]

    others = [s for s in signatures if s.get("public_key") != pub_b64]
    entry = {
        "algorithm": signing.ALGORITHM,
        "reviewer": decision.reviewer,
        "public_key": pub_b64,
        "fingerprint": signing.fingerprint(pub),
        "signature": sign(mine),
        "previous": None,
    }
    pending = dict(entry, previous=sign(mine_before) if mine_before else None)

    def dump(obj: Any) -> bytes:
        return (json.dumps(obj, indent=1, ensure_ascii=False) + "\n").encode("utf-8")

    return (
        dump({"decisions": items}),
        dump({"manifest_sha256": manifest_sha, "signatures": [*others, entry]}),
        dump({"manifest_sha256": manifest_sha, "signatures": [*others, pending]}),
    )


def adjudicate(
    path: str | os.PathLike[str],
    comment_id: str,
    decision: str,
    reason: str,
    reviewer: str,
    private_key: bytes,
    *,
    decided_at: str | None = None,
    trust_own_key: bool = True,
    rederivation: Any = None,
) -> Recorded:
    """Record ``reviewer``'s ``decision`` on comment ``comment_id`` of the bundle at
    ``path`` (a folder or a ``.zip``), signed with ``private_key`` (the user's own key;
    with ``trust_own_key`` it is recorded as trusted under the reviewer's name when this
    machine does not trust it yet). The verdict decided on is the one this program derives
    now. Refuses (``DecisionError``, one line) a bundle that fails verification, an
    unknown comment, and a decision that breaks ``rule_problem``; ``BundleError`` when the
    bundle cannot be read or written. Nothing is half-written on a kill
    (``write_decisions``). ``rederivation``: ``engine.bundle.rederive.rederive`` of this bundle
    when already computed (the desktop program's; decisions change no verdict, so it stays
    valid); computed here otherwise. A bundle that must not be written (``own_copy``:
    shipped with the program, or read-only) takes the decision in the user's copy of it,
    made on its first decision. Returns the decision written and where (``Recorded``)."""
    from engine.bundle import signing
    from engine.bundle.read import judge_bundle, open_bundle

    reviewer = " ".join(reviewer.split())
    reason = reason.strip()
    if not reviewer or len(reviewer) > MAX_NAME:
        raise DecisionError(f"give the reviewer's name (at most {MAX_NAME} characters)")
    b = open_bundle(path)
    result = judge_bundle(b, rederivation)
    if result.tampered:
        raise DecisionError(
            f"{path}: fails verification (arl bundle verify lists why): a decision on it "
            "would vouch for figures that are not its own"
        )
    derived = derived_verdicts(result.rederivation, last_round(b), last_round(b)) or {}
    if comment_id not in derived:
        known = ", ".join(sorted(derived)[:20])
        raise DecisionError(f"{path}: no verdict for a comment {comment_id!r} (comments: {known})")
    verdict = derived[comment_id]
    rule = rule_problem(verdict, decision, reason)
    if rule:
        raise DecisionError(f"comment {comment_id} ({verdict}): {rule}")
    pub = signing.public_key(private_key)
    d = Decision(
        comment_id,
        last_round(b),
        verdict,
        decision,
        reason,
        reviewer,
        signing.key_id(pub),
        decided_at or now_utc(),
    )
    return _record(Path(path), b.manifest_bytes, d, private_key, trust_own_key)


def adjudicate_check(
    path: str | os.PathLike[str],
    check: str,
    decision: str,
    reason: str,
    reviewer: str,
    private_key: bytes,
    *,
    decided_at: str | None = None,
    trust_own_key: bool = True,
    rederivation: Any = None,
) -> Recorded:
    """Record ``reviewer``'s ``decision`` on the declared check ``check`` (its name:
    ``placeholders``, ``command:style`` ...) of the bundle at ``path``: accepting the final
    version's FAIL, with a one-line reason (``check_rule_problem``). The result decided on
    is the one this program re-derives now. Refuses (``DecisionError``, one line) a bundle
    that fails verification, an unknown check, a check that is not FAIL, a decision other
    than ``accept`` and a missing reason; ``BundleError`` when the bundle cannot be read or
    written. Written like ``adjudicate``'s decisions (the user's copy of a shipped or
    read-only bundle). Returns the decision written and where (``Recorded``)."""
    from engine.bundle import signing
    from engine.bundle.read import judge_bundle, open_bundle

    reviewer = " ".join(reviewer.split())
    reason = reason.strip()
    if not reviewer or len(reviewer) > MAX_NAME:
        raise DecisionError(f"give the reviewer's name (at most {MAX_NAME} characters)")
    b = open_bundle(path)
    result = judge_bundle(b, rederivation)
    if result.tampered:
        raise DecisionError(
            f"{path}: fails verification (arl bundle verify lists why): a decision on it "
            "would vouch for figures that are not its own"
        )
    status = derived_check_status(result.rederivation, check)
    if status is None:
        final = (getattr(result.rederivation, "checks", None) or {}).get("final checks")
        known = ", ".join(r.name for r in getattr(final, "revised", None) or []) or "none"
        raise DecisionError(f"{path}: no declared check {check!r} (checks: {known})")
    rule = check_rule_problem(status, decision, reason)
    if rule:
        raise DecisionError(f"check {check}: {rule}")
    d = Decision(
        "",
        last_round(b),
        status,
        decision,
        reason,
        reviewer,
        signing.key_id(signing.public_key(private_key)),
        decided_at or now_utc(),
        check,
    )
    return _record(Path(path), b.manifest_bytes, d, private_key, trust_own_key)


def _record(
    asked: Path, manifest_bytes: bytes, d: Decision, private_key: bytes, trust_own_key: bool
) -> Recorded:
    """Append ``d`` under the writer's lock, signed, in the bundle ``asked`` or the user's
    copy of it (``decisions_bundle``); trust the own key when asked."""
    from engine.bundle import signing
    from engine.bundle.read import open_bundle

    pub = signing.public_key(private_key)
    home = decisions_bundle(asked)
    path = home.bundle
    with writer_lock(path):
        # Read again under the lock: another reviewer may have decided meanwhile.
        now = open_bundle(path)
        if now.manifest_bytes != manifest_bytes:
            raise DecisionError(f"{path}: the bundle changed while deciding; nothing written")
        existing, sigs = _existing(now)
        files = new_decision_files(manifest_bytes, existing, sigs, d, private_key)
        write_decisions(path, files)
    if trust_own_key:
        trusted = signing.load_trusted()
        if signing.key_id(pub) not in trusted and signing.fingerprint(pub) not in trusted:
            try:
                signing.trust_key(pub, d.reviewer)
            except OSError:
                pass  # the decision is written; verify will name the key as unknown
    return Recorded(d, home)


@contextmanager
def writer_lock(path: Path) -> Iterator[None]:
    """One writer of a bundle's decisions at a time (an exclusive OS lock on
    ``.<name>.decisions.lock`` beside the bundle, released on exit and when the process
    ends). Raises OSError when the lock file cannot be made."""
    lock = path.parent / f".{path.name}.decisions.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform == "win32":  # pragma: no cover - Windows
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _existing(b: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    res = DecisionsCheck()
    items, sig_file = parse_files(b, res)
    if res.problems:
        raise DecisionError(f"{b.path}: {res.problems[0]}")
    return list(items), list(sig_file.get("signatures") or [])


def write_decisions(path: Path, files: tuple[bytes, bytes, bytes]) -> None:
    """Write the decision files into the bundle at ``path``. A zip is rewritten whole to a
    temporary file and renamed over the original (one atomic step). A folder takes three
    atomic renames: the signature file with the reviewer's previous signature kept, then
    ``decisions.json``, then the signature file without it; a kill between any two leaves
    a bundle whose decisions verify (the old ones or the new). Raises BundleError."""
    decisions, signature, pending = files
    try:
        if path.is_dir():
            _replace(path / DECISIONS_SIGNATURE_FILE, pending)
            _replace(path / DECISIONS_FILE, decisions)
            _replace(path / DECISIONS_SIGNATURE_FILE, signature)
        else:
            _rezip(path, {DECISIONS_FILE: decisions, DECISIONS_SIGNATURE_FILE: signature})
    except OSError as exc:
        raise BundleError(f"{path}: cannot write the decisions ({exc.strerror or exc})") from None


def _replace(dest: Path, data: bytes) -> None:
    """Write ``dest`` through a temporary file beside the bundle folder (never inside it:
    a file left there by a kill would be a member the manifest does not list)."""
    tmp = dest.parent.parent / f".{dest.parent.name}.{dest.name}.tmp"
    write_atomic(dest, data, tmp=tmp, durable=True)


def _rezip(path: Path, replaced: dict[str, bytes]) -> None:
    """Rewrite the bundle zip with ``replaced`` members, atomically."""
    from engine.bundle.archive import read_files
    from engine.bundle.bundle import write_zip
    from engine.bundle.read import manifest_check

    files = {**read_files(path, manifest_check(path)), **replaced}
    with replacing(path, durable=True) as fh:
        write_zip(fh, files)
