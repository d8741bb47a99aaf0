"""Hypothesis exports import as comments (engine.comments_hypothesis).

The rows follow the Hypothesis API's Annotation schema (hypothesis/h,
docs/_extra/api-reference/schemas/annotation.yaml); their TextPositionSelector offsets are
UTF-16 units, as the Hypothesis client computes them in JavaScript.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.cli.main import main as arl
from engine.comments_hypothesis import is_hypothesis
from engine.comments_io import parse_comments
from engine.text import utf16

TEXT = "Résumé 😀 first. Employees may work remotely up to two days per week. 中文内容在这里。"


def _row(aid: str, quote: str, text: str = "Please revise.", **extra: object) -> dict:
    i = TEXT.index(quote)
    start, end = utf16.to_utf16(TEXT, i), utf16.to_utf16(TEXT, i + len(quote))
    row = {
        "id": aid,
        "created": "2026-03-01T10:00:00.000000+00:00",
        "updated": "2026-03-01T10:00:00.000000+00:00",
        "user": "acct:ana_reviewer@hypothes.is",
        "uri": "https://example.org/memo",
        "text": text,
        "tags": [],
        "group": "__world__",
        "permissions": {"read": ["group:__world__"]},
        "target": [
            {
                "source": "https://example.org/memo",
                "selector": [
                    {
                        "type": "RangeSelector",
                        "startContainer": "/p[1]",
                        "startOffset": 0,
                        "endContainer": "/p[1]",
                        "endOffset": 5,
                    },
                    {"type": "TextPositionSelector", "start": start, "end": end},
                    {
                        "type": "TextQuoteSelector",
                        "exact": quote,
                        "prefix": TEXT[max(0, i - 32) : i],
                        "suffix": TEXT[i + len(quote) : i + len(quote) + 32],
                    },
                ],
            }
        ],
        "document": {"title": ["Memo"]},
        "links": {"html": f"https://hypothes.is/a/{aid}"},
        "hidden": False,
        "flagged": False,
        "user_info": {"display_name": "Ana Reviewer"},
    }
    row.update(extra)
    return row


def test_search_rows_import_with_utf16_positions_kept() -> None:
    obj = {"total": 2, "rows": [_row("aaa", "two days"), _row("bbb", "中文内容")]}
    assert is_hypothesis(obj)
    comments, unusable = parse_comments(obj, "h.json", TEXT)
    assert unusable == []
    assert [c.id for c in comments] == ["aaa", "bbb"]
    a = comments[0]
    assert a.body == "Please revise." and a.author == "Ana Reviewer" and a.status == "open"
    i = TEXT.index("two days")
    # the emoji before the quote is two UTF-16 units: the offsets are the row's own
    assert a.anchor.start_offset == i + 1 and a.anchor.end_offset == i + 1 + len("two days")
    assert a.anchor.quote == "two days" and a.anchor.prefix.endswith("up to ")


def test_client_export_shape_imports_too() -> None:
    obj = {
        "export_date": "2026-03-02T09:00:00.000Z",
        "export_userid": "acct:ana_reviewer@hypothes.is",
        "client_version": "1.1500.0",
        "annotations": [_row("aaa", "two days", user_info={"display_name": None})],
    }
    assert is_hypothesis(obj)
    (c,), unusable = parse_comments(obj, "export.json", TEXT)
    assert unusable == [] and c.author == "ana_reviewer"  # from acct:<name>@<authority>


def test_positions_that_do_not_hold_the_quote_are_dropped_and_the_quote_stays() -> None:
    row = _row("aaa", "two days")
    row["target"][0]["selector"][1] = {"type": "TextPositionSelector", "start": 3, "end": 11}
    (c,), _ = parse_comments({"rows": [row]}, "h.json", TEXT)
    assert c.anchor.start_offset is None and c.anchor.quote == "two days"
    # a position inside the emoji's surrogate pair, or past the end, is dropped as well
    for start, end in ((8, 12), (5, 10_000), (-1, 3)):
        row["target"][0]["selector"][1] = {
            "type": "TextPositionSelector",
            "start": start,
            "end": end,
        }
        (c,), _ = parse_comments({"rows": [row]}, "h.json", TEXT)
        assert c.anchor.start_offset is None and c.anchor.end_offset is None


def test_replies_join_their_root_and_what_is_no_comment_says_why() -> None:
    rows = [
        _row("root", "two days"),
        _row(
            "r2",
            "two days",
            text="Second reply",
            references=["root", "r1"],
            created="2026-03-01T12:00:00+00:00",
            target=[{"source": "https://example.org/memo"}],
        ),
        _row(
            "r1",
            "two days",
            text="First reply",
            references=["root"],
            created="2026-03-01T11:00:00+00:00",
            target=[{"source": "https://example.org/memo"}],
        ),
        _row("orphan", "two days", text="hm", references=["gone"]),
        _row(
            "note", "two days", text="A page note", target=[{"source": "https://example.org/memo"}]
        ),
        _row("hl", "Employees", text=""),
        "not an object",
        _row("", "two days"),
        _row("root", "Employees"),
    ]
    comments, unusable = parse_comments({"total": len(rows), "rows": rows}, "h.json", TEXT)
    assert [c.id for c in comments] == ["root"]
    assert [(r.body, r.author) for r in comments[0].thread] == [
        ("First reply", "Ana Reviewer"),
        ("Second reply", "Ana Reviewer"),
    ]
    why = dict(unusable)
    assert "not in the file" in why["orphan"]
    assert "page note" in why["note"]
    assert "highlight" in why["hl"]
    assert why["#7"] == "annotation is not a JSON object" and why["#8"] == "annotation has no id"
    assert why["root"] == "duplicate annotation id"


def test_hostile_selector_values_are_unusable_not_a_crash() -> None:
    row = _row("aaa", "two days")
    row["target"][0]["selector"][2]["exact"] = {"not": "text"}
    comments, unusable = parse_comments({"rows": [row]}, "h.json", TEXT)
    assert comments == [] and "exact is an object" in dict(unusable)["aaa"]
    row = _row("bbb", "two days")
    row["target"] = "https://example.org/memo"
    comments, unusable = parse_comments({"rows": [row]}, "h.json", TEXT)
    assert comments == [] and "page note" in dict(unusable)["bbb"]


def test_native_and_w3c_files_are_not_taken_for_hypothesis() -> None:
    assert not is_hypothesis({"comments": [], "rows": []})
    assert not is_hypothesis({"annotations": []})  # neither export field
    assert not is_hypothesis([{"rows": []}])
    assert not is_hypothesis({"type": "AnnotationCollection", "items": []})


def test_arl_comments_import_reads_a_hypothesis_search(tmp_path: Path, capsys) -> None:
    doc = tmp_path / "memo.txt"
    doc.write_text(TEXT, encoding="utf-8")
    h = tmp_path / "hypothesis.json"
    h.write_text(
        json.dumps({"total": 2, "rows": [_row("aaa", "two days"), _row("hl", "中文", text="")]})
    )
    out = tmp_path / "native.json"
    assert (
        arl(["comments", "import", "--doc", str(doc), "--annotations", str(h), "--out", str(out)])
        == 0
    )
    (c,) = json.loads(out.read_text())["comments"]
    assert c["id"] == "aaa" and c["anchor"]["quote"] == "two days"
    assert "annotation hl skipped: a highlight without a note" in capsys.readouterr().err
    # and `arl score` takes the same file as its comments
    capsys.readouterr()
    arl(["score", "--v1", str(doc), "--v2", str(doc), "--comments", str(h), "--json"])
    verdicts = json.loads(capsys.readouterr().out)["verdicts"]
    assert [(v["comment_id"], v["verdict"]) for v in verdicts] == [("aaa", "untouched")]
