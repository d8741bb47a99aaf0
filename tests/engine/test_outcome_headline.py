"""The one headline of a bundle's outcome (engine.vocabulary.outcome_headline): the most
serious that holds, TAMPERED, then changes requested, then awaiting review, then token
edits (docs/bundle.md, "The first line")."""

from __future__ import annotations

from hypothesis import given, strategies as st

from engine.vocabulary import OUTCOME_WORDS, outcome_headline


@given(
    tampered=st.booleans(),
    changes=st.booleans(),
    awaiting=st.integers(0, 50),
    token=st.integers(0, 50),
)
def test_the_headline_is_the_most_serious_outcome_that_holds(tampered, changes, awaiting, token):
    line = outcome_headline(
        tampered=tampered,
        changes_requested=changes,
        awaiting=awaiting,
        actionable=awaiting + 3,
        token_edits=token,
        edited=token + 1,
    )
    if tampered:
        assert line == "TAMPERED"
    elif changes:
        assert line == OUTCOME_WORDS["changes_requested"]
    elif awaiting:
        assert line == f"Awaiting review ({awaiting} of {awaiting + 3})"
    elif token:
        assert line == f"Token edits ({token} of {token + 1} edited)"
    else:
        assert line == ""


def test_two_of_two_awaiting_with_token_edits_says_awaiting_review():
    line = outcome_headline(awaiting=2, actionable=2, token_edits=2, edited=2)
    assert line == "Awaiting review (2 of 2)"
