"""Weak Ed25519 keys and signatures are refused in verify and in trust, and a signer is
trusted only on a bundle that verifies whole (docs/bundle.md, "Signatures").

With the identity point as public key (``01 00..00``) and the signature R = identity,
S = 0, the ``cryptography`` package (OpenSSL) verifies the signature over every message,
so such a "universal key", once trusted, would vouch for any forged bundle.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from engine.bundle import signing
from engine.bundle.bundle import trust_signer
from engine.bundle.read import open_bundle, verify_bundle
from engine.bundle.write import content_of, write_bundle
from engine.cli.main import main as arl
from tests.engine.test_bundle import make_bundle

IDENTITY = bytes([1]) + bytes(31)
#: The eight points of small order (libsodium's blocklist, canonical encodings).
SMALL_ORDER = [
    bytes.fromhex(h)
    for h in (
        "0100000000000000000000000000000000000000000000000000000000000000",  # identity
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # order 2
        "0000000000000000000000000000000000000000000000000000000000000000",  # order 4
        "0000000000000000000000000000000000000000000000000000000000000080",  # order 4
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",  # order 8
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  # order 8
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",  # order 8
    )
]
#: Non-canonical encodings (y >= p) of small-order points: y + p for y = 1 and y = 0.
NON_CANONICAL = [
    bytes.fromhex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
    bytes.fromhex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
    bytes.fromhex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"),
]
L = 2**252 + 27742317777372353535851937790883648493


@pytest.fixture(autouse=True)
def _trusted_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ARL_TRUSTED_KEYS", str(tmp_path / "trusted.json"))


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> Path:
    return make_bundle(tmp_path_factory.mktemp("weak"))


def _with_signature(src: Path, dest: Path, public: bytes, sig: bytes) -> Path:
    import shutil

    shutil.copytree(src, dest)
    (dest / "signature.json").write_text(
        json.dumps(
            {
                "algorithm": "Ed25519",
                "public_key": base64.b64encode(public).decode(),
                "fingerprint": signing.fingerprint(public),
                "signature": base64.b64encode(sig).decode(),
                "signed_file": "manifest.json",
            }
        )
    )
    return dest


def test_the_universal_key_is_refused_in_verify_and_trust(plain, tmp_path, capsys):
    forged = _with_signature(plain, tmp_path / "f", IDENTITY, IDENTITY + bytes(32))
    res = verify_bundle(forged)
    assert res.tampered and res.signature.bad and "small order" in res.signature.reason
    assert arl(["bundle", "verify", str(forged)]) == 3
    assert "small order" in capsys.readouterr().out
    assert arl(["bundle", "trust", str(forged), "Anyone"]) == 2
    assert "small order" in capsys.readouterr().err
    assert signing.load_trusted() == signing.shipped_trust()
    # Already trusted (a store written before this check) changes nothing.
    signing._write_trusted({signing.key_id(IDENTITY): "Anyone"})
    assert verify_bundle(forged).signature.state == "bad"


@pytest.mark.parametrize("point", SMALL_ORDER + NON_CANONICAL)
def test_every_small_order_or_non_canonical_key_and_r_is_refused(point):
    assert signing.weak_point(point) is not None
    good_r = signing.public_key(signing.new_private_key())
    assert "public key" in (signing.weak_signature(point, good_r + bytes(32)) or "")
    real = signing.public_key(signing.new_private_key())
    assert "R" in (signing.weak_signature(real, point + bytes(32)) or "")
    status = signing.verify_signature(
        b"{}",
        {
            "algorithm": "Ed25519",
            "public_key": base64.b64encode(point).decode(),
            "fingerprint": signing.fingerprint(point),
            "signature": base64.b64encode(point + bytes(32)).decode(),
        },
        {},
    )
    assert status.state == "bad"


def test_a_non_canonical_s_is_refused():
    key = signing.new_private_key()
    sig = signing.sign_manifest(b"{}", key)
    raw = base64.b64decode(sig["signature"])
    s = int.from_bytes(raw[32:], "little") + L
    assert s < 2**256
    forged = dict(sig, signature=base64.b64encode(raw[:32] + s.to_bytes(32, "little")).decode())
    status = signing.verify_signature(b"{}", forged, {})
    assert status.state == "bad" and "S is not canonical" in status.reason
    assert signing.verify_signature(b"{}", sig, {}).state == "signed"


def test_real_keys_are_never_refused():
    import random

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    rng = random.Random(25)  # fixed seed: the same 60 keys every run
    for _ in range(60):
        key = ed25519.Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))
        pub = key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        msg = rng.randbytes(rng.randrange(0, 200))
        assert signing.weak_signature(pub, key.sign(msg)) is None


def test_trust_needs_a_bundle_that_verifies_whole(plain, tmp_path, capsys):
    key = signing.new_private_key()
    b = open_bundle(plain)
    forged_verdicts = json.loads(json.dumps(b.verdicts))
    item = forged_verdicts["final"][0]
    item["verdict"] = "untouched" if item["verdict"] == "edited" else "edited"
    forged = write_bundle(
        tmp_path / "forged", content_of(b, verdicts=forged_verdicts, signing_key=key)
    )
    res = verify_bundle(forged)
    assert res.signature.state == "signed" and res.tampered  # a good signature on forged figures
    assert arl(["bundle", "trust", str(forged), "Mallory"]) == 2
    err = capsys.readouterr().err
    assert "verifies whole" in err and signing.load_trusted() == signing.shipped_trust()
    with pytest.raises(ValueError, match="verifies whole"):
        trust_signer(open_bundle(forged), "Mallory")
    # The same key on an honest bundle is trusted.
    honest = write_bundle(tmp_path / "honest", content_of(b, signing_key=key))
    assert arl(["bundle", "trust", str(honest), "Team laptop"]) == 0
    assert verify_bundle(honest).signature.trusted
