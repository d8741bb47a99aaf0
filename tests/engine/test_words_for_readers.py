"""Words a reader sees instead of the program's terms: a bundle named by its document and
when it ran (never its folder or run id), a signature without its key fingerprint,
differences naming comments by number (``engine.vocabulary``, ``engine.bundle.signing``,
``engine.bundle.differences``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hypothesis import given, strategies as st

from engine.bundle.differences import Difference
from engine.bundle.signing import OWN_KEY_NAME, SignatureStatus
from engine.vocabulary import comment_names, run_words, when_words

HEX = st.text(alphabet="0123456789abcdef", min_size=16, max_size=16).map(
    lambda h: " ".join(h[i : i + 4] for i in range(0, 16, 4))
)


@given(
    st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(9998, 1, 1)),
    st.booleans(),
)
def test_a_run_is_named_by_when_it_ran(when, external):
    iso = when.replace(tzinfo=UTC).isoformat().replace("+00:00", "Z")
    manifest = {"created_at": iso, "run_id": "run-901a758c16f4"}
    if external:
        manifest["agent_mode"] = {"ran": "external"}
    said = run_words(manifest)
    assert said == f"the {'check' if external else 'run'} of {when_words(iso)}"
    assert iso not in said and "run-901a" not in said and not re.search(r"\dT\d", said)


@given(st.one_of(st.none(), st.integers(), st.text(max_size=40)))
def test_a_run_without_a_readable_time_says_so(junk):
    """A missing, malformed or hostile time is never quoted as the run's time."""
    try:
        readable = isinstance(junk, str) and when_words(junk) != junk
    except Exception:  # pragma: no cover - when_words never raises
        readable = False
    said = run_words({"created_at": junk})
    if readable:
        assert said.startswith("the run of ")
    else:
        assert said == "a run whose time is not recorded"


def test_the_finish_time_stands_in_for_a_missing_start():
    end = datetime(2026, 12, 1, 10, 23, tzinfo=UTC).isoformat()
    assert run_words({"finished_at": end}) == "the run of 1 Dec 2026, 10:23 UTC"


@given(
    st.sampled_from(["signed", "unsigned", "bad"]),
    HEX,
    st.sampled_from(["", "Reviewers", OWN_KEY_NAME, "the Agent Review Loop project"]),
    st.booleans(),
    st.lists(st.sampled_from(["verdicts.json", "metrics.json", "trace.json"]), max_size=3),
)
def test_a_signature_in_words_never_shows_the_fingerprint(state, fp, who, by_fp, uncovered):
    sig = SignatureStatus(
        state,
        fingerprint=fp,
        reason="the signature does not verify",
        trusted_as=who if state == "signed" else "",
        uncovered=tuple(uncovered) if state == "bad" else (),
        trusted_by_fingerprint=by_fp and bool(who),
    )
    words = sig.words()
    assert fp not in words and fp.replace(" ", "") not in words
    assert "fingerprint" not in words
    # the exact line keeps it, for the tooltip and the command line
    if state != "unsigned":
        assert fp in sig.line()
    if state == "signed" and who and who != OWN_KEY_NAME:
        assert words.startswith(f"signed by {who}, a signer you trust")
    if state == "signed" and not who:
        assert "not chosen to trust" in words
    if state == "bad":
        assert "BAD SIGNATURE" in words or "DOES NOT COVER" in words


def test_differences_name_comments_by_number():
    names = comment_names(["c1", "c2", "c5"])
    d = Difference("final", "c5", "verdict", "edited", "untouched")
    assert d.plain(names).startswith("final version, comment 5: the verdict:")
    assert "comment \u201cz9\u201d" in Difference("round 1", "z9", "claim", 1, 2).plain(names)
    # the exact line (arl bundle verify) keeps the id
    assert "comment c5" in d.line()


def test_a_forged_decision_is_said_by_comment_number_and_time_in_words():
    from engine.bundle.decisions import Decision, DecisionsCheck

    d = Decision.from_json(
        {
            "comment_id": "report51975_3@0#2",
            "round": 1,
            "verdict": "edited",
            "decision": "accept",
            "reason": "",
            "reviewer": "Ann",
            "reviewer_key": "sha256:" + "0" * 64,
            "decided_at": "2026-12-01T10:23:05Z",
        }
    )
    res = DecisionsCheck(present=True)
    res.problems.append("decisions.signature.json: a public key is not base64")
    res.decision_problem(d, "decided on a different verdict (edited; this program derives deleted)")
    names = comment_names(["report51975_3@0#1", "report51975_3@0#2"])
    said = res.problem_words(names)
    assert said[0] == res.problems[0]  # a problem with the files, as it is
    assert said[1] == (
        "the decision on comment 2 (Ann, 1 Dec 2026, 10:23 UTC): decided on a different "
        "verdict (edited; this program derives deleted)"
    )
    # the exact line keeps the file, the raw id and the ISO time (arl bundle verify)
    assert res.problems[1].startswith(
        "decisions.json: comment report51975_3@0#2 (Ann, 2026-12-01T10:23:05Z): "
    )
    assert res.tampered
