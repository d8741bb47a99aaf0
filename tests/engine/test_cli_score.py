"""`arl text` and `arl score`: the contract other tools call (README, "Scoring two versions")."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli.main import main

F1000 = Path(__file__).resolve().parents[1] / "data/f1000rd/docs/3-195"


def run(*args):
    p = subprocess.run(
        [sys.executable, "-m", "engine.cli.main", *map(str, args)], capture_output=True
    )
    return p.returncode, p.stdout, p.stderr.decode()


def test_text_prints_body_text_content_exactly(tmp_path):
    doc = tmp_path / "d.html"
    doc.write_bytes(
        "<!doctype html><title>T</title><p>a\r\nb &amp; 🤔<script>s</script>"
        "<template>x</template><noscript><b>n</b></noscript>".encode()
    )
    code, out, err = run("text", doc)
    assert code == 0 and err == ""
    assert out.decode("utf-8") == "a\nb & 🤔s<b>n</b>"


def test_text_missing_file_is_one_line_exit_2(tmp_path):
    code, out, err = run("text", tmp_path / "nope.html")
    assert code == 2 and out == b""
    assert err.count("\n") == 1 and "nope.html" in err and "Traceback" not in err


def _comments(tmp_path, items):
    p = tmp_path / "c.json"
    p.write_text(json.dumps(items), encoding="utf-8")
    return p


def test_score_json_shape_exactly(tmp_path):
    v1 = tmp_path / "v1.html"
    v2 = tmp_path / "v2.html"
    v1.write_text("<p>🤔 The blue kettle sat beside the blue teapot.</p>", encoding="utf-8")
    v2.write_text("<p>🤔 The blue kettle sat beside the green teapot.</p>", encoding="utf-8")
    c = _comments(
        tmp_path,
        [
            {
                "id": "c1",
                "body": "colour",
                "anchor": {
                    "quote": "blue",
                    "prefix": "sat beside the ",
                    "suffix": " teapot.",
                    "dom_path": "body",
                    "start_offset": 34,
                    "end_offset": 38,
                },
            }
        ],
    )
    claims = tmp_path / "claims.json"
    claims.write_text(
        json.dumps(
            {
                "comments": [
                    {
                        "comment_id": "c1",
                        "claim": "addressed",
                        "change_summary": "blue -> green",
                        "rationale": "asked",
                    }
                ],
                "notes": "",
            }
        )
    )
    code, out, err = run(
        "score", "--v1", v1, "--v2", v2, "--comments", c, "--claims", claims, "--json"
    )
    assert code == 0, err
    j = json.loads(out)
    # claim_coverage: the comments the report makes no claim about (docs/metrics.md)
    assert set(j) == {"verdicts", "metrics", "claim_coverage"}
    assert j["claim_coverage"]["no_claim"] == 0
    (v,) = j["verdicts"]
    assert set(v) == {
        "comment_id",
        "verdict",
        "v1",
        "v2",
        "method",
        "markup_changed",
        "claim",
        "claim_agrees",
        "message",
    }
    assert v["verdict"] == "edited" and v["claim"] == "addressed" and v["claim_agrees"] is True
    assert v["v1"] == {"start": 34, "end": 38, "text": "blue"}  # UTF-16 units: 🤔 is 2
    assert v["v2"] == {"start": 34, "end": 39, "text": "green"}
    m = j["metrics"]
    assert m["attribution_rate"] == {"value": 1.0, "numerator": 1, "denominator": 1}
    assert m["claim_accuracy"] == {"value": 1.0, "numerator": 1, "denominator": 1}
    assert m["collateral_churn"] == {"value": 0.0, "numerator": 0, "denominator": 9}
    for k in ("cost_per_attributed_fix", "rounds_to_converge"):
        assert m[k]["value"] is None and m[k]["reason"]


def test_score_w3c_annotations_auto_detected(tmp_path):
    v1 = tmp_path / "v1.txt"
    v1.write_text("😀 alpha beta gamma", encoding="utf-8")
    coll = {
        "type": "AnnotationCollection",
        "first": {
            "items": [
                {
                    "id": "urn:a1",
                    "type": "Annotation",
                    "body": {"type": "TextualBody", "value": "hm"},
                    "target": {
                        "selector": [
                            {
                                "type": "TextQuoteSelector",
                                "exact": "beta",
                                "prefix": "alpha ",
                                "suffix": " g",
                            },
                            {"type": "TextPositionSelector", "start": 8, "end": 12},
                        ]
                    },
                }
            ]
        },
    }
    c = tmp_path / "w3c.json"
    c.write_text(json.dumps(coll))
    code, out, err = run("score", "--v1", v1, "--v2", v1, "--comments", c, "--json")
    assert code == 0, err
    (v,) = json.loads(out)["verdicts"]
    assert v["comment_id"] == "urn:a1" and v["verdict"] == "untouched"
    assert v["v1"]["start"] == 9  # code point 8 + one astral character
    assert "repaired" not in err


@pytest.mark.parametrize(
    "content,problem",
    [
        (None, "file not found"),
        (b"{not json", "not a JSON file"),
        (b'"x"', "not a list of comments"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (b"", "empty file"),
    ],
)
def test_score_unusable_input_is_one_line_exit_2(tmp_path, content, problem):
    v1 = tmp_path / "v1.txt"
    v1.write_text("abc")
    c = tmp_path / "comments.json"
    if content is not None:
        c.write_bytes(content)
    code, out, err = run("score", "--v1", v1, "--v2", v1, "--comments", c)
    assert code == 2 and out == b""
    assert err.count("\n") == 1 and "comments.json" in err and problem in err
    assert "Traceback" not in err


def test_score_missing_document_names_it(tmp_path):
    c = _comments(tmp_path, [])
    code, _, err = run(
        "score", "--v1", tmp_path / "gone.html", "--v2", tmp_path / "gone.html", "--comments", c
    )
    assert code == 2 and "gone.html" in err and err.count("\n") == 1


def test_one_bad_comment_does_not_stop_the_rest(tmp_path, capsys):
    v1 = tmp_path / "v1.txt"
    v1.write_text("alpha beta gamma")
    c = _comments(
        tmp_path,
        [
            {
                "id": "ok",
                "body": "",
                "anchor": {"quote": "beta", "start_offset": 6, "end_offset": 10},
            },
            {"id": "noanchor", "body": ""},
            {"id": "empty", "body": "", "anchor": {"quote": ""}},
            {"id": "elsewhere", "body": "", "anchor": {"quote": "delta"}},
        ],
    )
    assert main(["score", "--v1", str(v1), "--v2", str(v1), "--comments", str(c), "--json"]) == 0
    cap = capsys.readouterr()
    j = json.loads(cap.out)
    assert [v["comment_id"] for v in j["verdicts"]] == ["ok"]
    assert j["metrics"]["attribution_rate"]["denominator"] == 1
    for cid in ("noanchor", "empty", "elsewhere"):
        assert f"comment {cid} skipped" in cap.err


def test_human_summary_says_na_in_words(tmp_path, capsys):
    v1 = tmp_path / "v1.txt"
    v1.write_text("alpha beta gamma")
    c = _comments(tmp_path, [{"id": "c1", "body": "", "anchor": {"quote": "beta"}}])
    assert main(["score", "--v1", str(v1), "--v2", str(v1), "--comments", str(c)]) == 0
    out = capsys.readouterr().out
    assert "c1: UNTOUCHED" in out
    assert "collateral churn:        N/A \u2014 nothing changed" in out
    assert "attribution rate:        0% (0 of 1)" in out  # a real zero, with its counts


def test_given_version_makes_other_comments_stale(tmp_path):
    v1 = tmp_path / "v1.txt"
    v1.write_text("The new wording stays.")
    c = _comments(
        tmp_path,
        [
            {
                "id": "old",
                "body": "",
                "created_on_version_id": "draft-1",
                "anchor": {"quote": "the old wording", "start_offset": 0, "end_offset": 15},
            },
            {
                "id": "cur",
                "body": "",
                "created_on_version_id": "draft-2",
                "anchor": {"quote": "new wording"},
            },
        ],
    )
    code, out, err = run(
        "score", "--v1", v1, "--v2", v1, "--comments", c, "--given-version", "draft-2", "--json"
    )
    j = json.loads(out)
    vs = {v["comment_id"]: v for v in j["verdicts"]}
    assert vs["old"]["verdict"] == "stale_anchor"
    assert vs["old"]["message"].startswith("ATTRIBUTION: STALE ANCHOR")
    assert vs["cur"]["verdict"] == "untouched"
    assert j["metrics"]["attribution_rate"]["denominator"] == 1


def test_score_with_no_usable_comment_is_unusable_input(tmp_path):
    v1 = tmp_path / "v1.txt"
    v1.write_text("alpha beta gamma")
    c = _comments(
        tmp_path,
        [
            {"id": "a", "body": "", "anchor": {"quote": "delta"}},
            {"id": "b", "body": "", "anchor": {"quote": ""}},
        ],
    )
    code, out, err = run("score", "--v1", v1, "--v2", v1, "--comments", c, "--json")
    assert code == 2 and out == b""
    assert "none of its comments could be scored against v1.txt" in err
    assert "comment a skipped" in err and "Traceback" not in err


def test_w3c_items_that_are_not_a_list_are_one_line_errors(tmp_path):
    v1 = tmp_path / "v1.txt"
    v1.write_text("alpha beta gamma")
    c = tmp_path / "w3c.json"
    c.write_text(json.dumps({"type": "AnnotationCollection", "items": "nope"}))
    code, out, err = run("score", "--v1", v1, "--v2", v1, "--comments", c)
    assert code == 2 and "items are not a list" in err and err.count("\n") == 1


def test_w3c_position_only_annotation_takes_its_quote_from_the_text(tmp_path):
    v1 = tmp_path / "v1.txt"
    v1.write_text("😀 alpha beta gamma", encoding="utf-8")
    c = tmp_path / "w3c.json"
    c.write_text(
        json.dumps(
            [
                {
                    "type": "Annotation",
                    "id": "p1",
                    "body": "x",
                    "target": {"selector": {"type": "TextPositionSelector", "start": 8, "end": 12}},
                }
            ]
        )
    )
    code, out, err = run("score", "--v1", v1, "--v2", v1, "--comments", c, "--json")
    assert code == 0, err
    (v,) = json.loads(out)["verdicts"]
    assert v["v1"]["text"] == "beta" and v["verdict"] == "untouched"


def _score_one(tmp_path, v1_html: str, v2_html: str, quote: str) -> dict:
    v1 = tmp_path / "v1.html"
    v2 = tmp_path / "v2.html"
    v1.write_text(v1_html, encoding="utf-8")
    v2.write_text(v2_html, encoding="utf-8")
    c = _comments(tmp_path, [{"id": "c1", "body": "b", "anchor": {"quote": quote}}])
    code, out, err = run("score", "--v1", v1, "--v2", v2, "--comments", c, "--json")
    assert code == 0, err
    (v,) = json.loads(out)["verdicts"]
    return v


@pytest.mark.parametrize(
    "v1_text,v2_text",
    [
        ("big\u00a0cat", "big cat"),  # NBSP -> space
        ("won\u00adderful", "wonderful"),  # soft hyphen dropped
        ("cafe\u0301", "caf\u00e9"),  # decomposed -> precomposed
        ("\ufb01nal", "final"),  # ligature -> letters
    ],
)
def test_text_only_change_is_not_reported_as_markup_change(tmp_path, v1_text, v2_text):
    """docs/verdicts.md, "Markup-only changes": markup_changed only when markup changed."""
    page = "<!doctype html><p>Before the <b>{}</b> and after it.</p>"
    v = _score_one(tmp_path, page.format(v1_text), page.format(v2_text), v1_text)
    assert v["verdict"] == "untouched"
    assert v["markup_changed"] is False


def test_markup_change_beside_a_text_only_change_is_still_reported(tmp_path):
    v = _score_one(
        tmp_path,
        "<p>Before the <b>big\u00a0cat</b> and after it.</p>",
        "<p>Before the <i>big cat</i> and after it.</p>",
        "big\u00a0cat",
    )
    assert v["verdict"] == "untouched" and v["markup_changed"] is True


REALWORLD_N01 = Path("/work/shared/data/realworld/N01")


@pytest.mark.skipif(not REALWORLD_N01.is_dir(), reason="needs /work/shared/data/realworld")
@pytest.mark.parametrize("name", ["co2", "m2", "ja-digits", "ja-kana"])
def test_realworld_n01_reports_no_markup_change(name):
    code, out, err = run(
        "score",
        "--v1",
        REALWORLD_N01 / f"v1-{name}.html",
        "--v2",
        REALWORLD_N01 / f"v2-{name}.html",
        "--comments",
        REALWORLD_N01 / f"comments-{name}.json",
        "--json",
    )
    assert code == 0, err
    (v,) = json.loads(out)["verdicts"]
    assert v["markup_changed"] is False


def test_verification_line_only_where_an_unchanged_comment_was_claimed(tmp_path, capsys):
    """The integrity check of ``arl score``: a claim of "addressed" on unchanged text gets
    its VERIFICATION line on stderr; with no claim and nothing resolved there is none (and
    ``engine.cli.main._say_unchanged_claims`` returns before importing the check)."""
    v1, v2 = tmp_path / "v1.txt", tmp_path / "v2.txt"
    v1.write_text("The blue kettle sat beside the blue teapot.\n", encoding="utf-8")
    v2.write_text("The blue kettle sat beside the green teapot.\n", encoding="utf-8")
    quote = {"quote": "blue kettle", "start_offset": 4, "end_offset": 15}
    c = _comments(tmp_path, [{"id": "c1", "body": "colour", "anchor": quote}])
    claims = tmp_path / "claims.json"
    claims.write_text(
        json.dumps({"comments": [{"comment_id": "c1", "claim": "addressed"}], "notes": ""})
    )
    base = ["score", "--v1", str(v1), "--v2", str(v2), "--comments", str(c)]
    assert main([*base, "--claims", str(claims)]) == 0
    err = capsys.readouterr().err
    assert "VERIFICATION" in err and "(comment c1: claimed addressed in the report)" in err
    assert main(base) == 0
    assert "VERIFICATION" not in capsys.readouterr().err
