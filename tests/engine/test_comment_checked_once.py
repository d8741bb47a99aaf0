"""A bundle's comments are typed once: ``engine.bundle.schema`` checks their shape, and
``engine.models.comment_from_checked`` builds each without checking the types again. For
every comment object the schema accepts it gives what ``Comment.from_json`` gives (or
raises its error), in every script."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from engine.bundle.members import FileReader
from engine.bundle.schema import check_file
from engine.models import Comment, comment_from_checked

_TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", " ", "\u3000", "日本語", "مرحبا", "ภาษาไทย", "😀👩‍💻", "c1", "دنیا"]),
)
_ANY = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(-2, 2), _TEXT)
_ANCHOR = st.fixed_dictionaries(
    {"quote": st.one_of(st.none(), _TEXT)},
    optional={
        "prefix": _TEXT,
        "suffix": _TEXT,
        "dom_path": _TEXT,
        "start_offset": st.one_of(st.none(), st.integers(-3, 50), _ANY),
        "end_offset": st.one_of(st.none(), st.integers(-3, 50), _ANY),
    },
)
_REPLY = st.fixed_dictionaries(
    {"author": _TEXT, "body": _TEXT},
    optional={"created_at": _TEXT, "kind": st.sampled_from(["reply", "reopen", "resolve", "x"])},
)
_COMMENT = st.fixed_dictionaries(
    {"id": st.one_of(_TEXT, _ANY), "body": st.one_of(_TEXT, _ANY), "anchor": _ANCHOR},
    optional={
        "author": _TEXT,
        "created_on_version_id": st.one_of(st.none(), _TEXT),
        "status": st.sampled_from(["open", "resolved", "closed", ""]),
        "actionable": st.one_of(st.booleans(), _ANY),
        "thread": st.lists(_REPLY, max_size=2),
    },
)


def _built(fn, item):
    try:
        return fn(item)
    except ValueError as exc:
        return f"ValueError: {exc}"


@settings(max_examples=500, deadline=None)
@given(_COMMENT)
def test_a_comment_the_schema_accepts_is_built_as_from_json_builds_it(item):
    if check_file("comments.before.json", {"comments": [item]}):
        return  # refused by the schema: the reader never builds it
    assert _built(comment_from_checked, item) == _built(Comment.from_json, item)


@pytest.mark.parametrize(
    "anchor, problem",
    [
        ({"quote": "a", "start_offset": -1}, "anchor start_offset -1 is negative"),
        ({"quote": "a", "end_offset": -4}, "anchor end_offset -4 is negative"),
    ],
)
def test_what_the_schema_leaves_open_is_still_refused(anchor, problem):
    for cid, why in (("   ", "comment has no id"), ("c1", problem)):
        item = {"id": cid, "body": "b", "anchor": anchor}
        assert check_file("comments.before.json", {"comments": [item]}) == []
        with pytest.raises(ValueError, match=why):
            comment_from_checked(item)


def test_the_reader_reports_a_bad_comment_and_keeps_the_others():
    import json

    items = [
        {"id": "c1", "body": "ok", "anchor": {"quote": "q", "start_offset": 0}},
        {"id": " ", "body": "no id", "anchor": {"quote": "q"}},
        {"id": "c3", "body": "neg", "anchor": {"quote": "q", "start_offset": -2}},
    ]
    files = {"comments.before.json": json.dumps({"comments": items}).encode()}
    reader = FileReader(files, "arl-bundle/3", [])
    got = reader.comments("comments.before.json")
    assert [c.id for c in got] == ["c1"]
    assert reader.problems == [
        "comments.before.json: comment has no id",
        "comments.before.json: anchor start_offset -2 is negative",
    ]
