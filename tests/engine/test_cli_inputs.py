"""Hostile and odd inputs at the `arl` command line: one line naming the file and the
problem, exit 2, never a traceback, never a hang; nothing bad written.

Covers comments, claims and W3C annotations files (regular files only, the JSON budget,
types checked naming the item), `--timeout`, `--rounds`, `--base-url`, URL masking, the
bundle's own claims.json for `arl score --claims`, and `arl comments import` warnings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BUNDLE = Path(__file__).resolve().parents[1] / "data/bundle-min"
DOC = "<!doctype html><p>The blue kettle sat beside the blue teapot.</p>"


def run(*args, timeout: float = 60):
    p = subprocess.run(
        [sys.executable, "-m", "engine.cli.main", *map(str, args)],
        capture_output=True,
        timeout=timeout,
        env={**os.environ, "OPENAI_API_KEY": ""},
    )
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def one_clean_line(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err, err
    assert err.count("\n") == 1, err
    for n in needles:
        assert n in err, (n, err)


@pytest.fixture
def docs(tmp_path):
    v1 = tmp_path / "v1.html"
    v1.write_text(DOC, encoding="utf-8")
    v2 = tmp_path / "v2.html"
    v2.write_text(DOC.replace("blue teapot", "green teapot"), encoding="utf-8")
    comments = tmp_path / "c.json"
    comments.write_text(
        json.dumps([{"id": "c1", "body": "colour", "anchor": {"quote": "blue teapot"}}])
    )
    return v1, v2, comments


# ----------------------------------------------------------------------------------------
# Not regular files, wherever a path is read
# ----------------------------------------------------------------------------------------

DEVICES = [d for d in ("/dev/zero", "/dev/urandom") if os.path.exists(d)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("role", ["--comments", "--claims", "--v1", "--v2"])
def test_score_refuses_devices(docs, device, role) -> None:
    v1, v2, comments = docs
    args = {"--v1": v1, "--v2": v2, "--comments": comments}
    args[role] = device
    flat = [x for kv in args.items() for x in kv]
    code, out, err = run("score", *flat, timeout=30)
    one_clean_line(code, err, device, "is a device, not a regular file")
    assert out == ""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
@pytest.mark.parametrize("role", ["--comments", "--claims", "--v2"])
def test_score_refuses_a_fifo_without_hanging(docs, tmp_path, role) -> None:
    v1, v2, comments = docs
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    args = {"--v1": v1, "--v2": v2, "--comments": comments, role: fifo}
    flat = [x for kv in args.items() for x in kv]
    code, _, err = run("score", *flat, timeout=30)
    one_clean_line(code, err, "pipe.json", "is a pipe (FIFO), not a regular file")


def test_score_refuses_a_folder_as_claims(docs, tmp_path) -> None:
    v1, v2, comments = docs
    code, _, err = run(
        "score", "--v1", v1, "--v2", v2, "--comments", comments, "--claims", tmp_path
    )
    one_clean_line(code, err, "is a folder, not a file")


@pytest.mark.parametrize("device", DEVICES)
def test_comments_import_and_export_refuse_devices(docs, device, tmp_path) -> None:
    v1, _, comments = docs
    out = tmp_path / "out.json"
    for sub, flag in (("import", "--annotations"), ("export", "--comments")):
        code, _, err = run("comments", sub, "--doc", v1, flag, device, "--out", out, timeout=30)
        one_clean_line(code, err, "is a device")
        code, _, err = run(
            "comments", sub, "--doc", device, flag, comments, "--out", out, timeout=30
        )
        one_clean_line(code, err, "is a device")
    assert not out.exists()


# ----------------------------------------------------------------------------------------
# The JSON budget
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,problem",
    [
        (
            '[{"id": "c1", "anchor": {"quote": "blue", "start_offset": ' + "7" * 5000 + "}}]",
            "an integer of 5,000 digits",
        ),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"comments": [' * 40 + "]}" * 40, "nested too deeply"),
        (
            '[{"id": "c1", "anchor": {"quote": "blue", "start_offset": NaN}}]',
            "NaN is not a JSON number",
        ),
        ('[{"id": 1e400, "anchor": {"quote": "blue"}}]', "is too large"),
        ("\xff", "not UTF-8"),
    ],
)
@pytest.mark.parametrize("role", ["--comments", "--claims"])
def test_score_json_budget(docs, tmp_path, text, problem, role) -> None:
    v1, v2, comments = docs
    bad = tmp_path / "bad.json"
    bad.write_bytes(text.encode("latin-1") if text == "\xff" else text.encode())
    args = {"--v1": v1, "--v2": v2, "--comments": comments, role: bad}
    code, _, err = run("score", *[x for kv in args.items() for x in kv])
    one_clean_line(code, err, "bad.json", problem)


def test_huge_integer_in_w3c_annotations_is_a_clean_error(docs, tmp_path) -> None:
    v1, _, _ = docs
    w3c = tmp_path / "w3c.json"
    w3c.write_text(
        '{"type": "AnnotationCollection", "items": [{"id": "a1", "type": "Annotation", '
        '"target": {"selector": [{"type": "TextPositionSelector", "start": '
        + "1" * 5000
        + ', "end": 3}]}}]}'
    )
    code, _, err = run("comments", "import", "--doc", v1, "--annotations", w3c)
    one_clean_line(code, err, "w3c.json", "an integer of 5,000 digits")


# ----------------------------------------------------------------------------------------
# Types checked on load, naming the item
# ----------------------------------------------------------------------------------------


def _w3c(**quote_selector):
    sel = {"type": "TextQuoteSelector", "exact": "blue teapot", **quote_selector}
    return {
        "type": "AnnotationCollection",
        "items": [
            {"id": "urn:bad", "type": "Annotation", "target": {"selector": sel}},
            {
                "id": "urn:good",
                "type": "Annotation",
                "body": {"type": "TextualBody", "value": "ok"},
                "target": {"selector": {"type": "TextQuoteSelector", "exact": "blue kettle"}},
            },
        ],
    }


@pytest.mark.parametrize(
    "selector,problem",
    [
        ({"exact": 42}, "TextQuoteSelector exact is a number, not text"),
        ({"prefix": 7}, "TextQuoteSelector prefix is a number, not text"),
        ({"suffix": ["x"]}, "TextQuoteSelector suffix is a list, not text"),
        ({"exact": {"a": 1}}, "TextQuoteSelector exact is an object, not text"),
        ({"exact": True}, "TextQuoteSelector exact is true or false, not text"),
    ],
)
def test_w3c_wrong_types_are_rejected_with_the_annotation_id(docs, tmp_path, selector, problem):
    v1, v2, _ = docs
    w3c = tmp_path / "w3c.json"
    w3c.write_text(json.dumps(_w3c(**selector)))
    # arl score: the bad annotation is skipped by id, the good one scored
    code, out, err = run("score", "--v1", v1, "--v2", v2, "--comments", w3c, "--json")
    assert code == 0, err
    assert f"comment urn:bad skipped: {problem}" in err and "Traceback" not in err
    assert [v["comment_id"] for v in json.loads(out)["verdicts"]] == ["urn:good"]
    # arl comments import: never writes such a value
    native = tmp_path / "native.json"
    code, _, err = run("comments", "import", "--doc", v1, "--annotations", w3c, "--out", native)
    assert code == 0, err
    assert f"annotation urn:bad skipped: {problem}" in err
    written = json.loads(native.read_text())["comments"]
    assert [c["id"] for c in written] == ["urn:good"]
    for c in written:
        for key in ("quote", "prefix", "suffix"):
            assert isinstance(c["anchor"][key], str)
    # and the written file scores cleanly
    code, _, err = run("score", "--v1", v1, "--v2", v2, "--comments", native)
    assert code == 0, err


@pytest.mark.parametrize(
    "selector,problem",
    [
        (
            {"type": "TextPositionSelector", "start": "4", "end": 8},
            "start '4' is not a non-negative integer",
        ),
        (
            {"type": "TextPositionSelector", "start": -1, "end": 8},
            "start -1 is not a non-negative integer",
        ),
        (
            {"type": "TextPositionSelector", "start": 1, "end": 2.5},
            "end 2.5 is not a non-negative integer",
        ),
    ],
)
def test_w3c_bad_positions_are_rejected_with_the_annotation_id(docs, tmp_path, selector, problem):
    v1, v2, _ = docs
    doc = _w3c()
    doc["items"][0]["target"]["selector"] = [
        {"type": "TextQuoteSelector", "exact": "blue teapot"},
        selector,
    ]
    w3c = tmp_path / "w3c.json"
    w3c.write_text(json.dumps(doc))
    code, _, err = run("score", "--v1", v1, "--v2", v2, "--comments", w3c, "--json")
    assert code == 0, err
    assert f"comment urn:bad skipped: TextPositionSelector {problem}" in err


@pytest.mark.parametrize(
    "item,problem",
    [
        (
            {"id": "c9", "anchor": {"quote": "blue", "prefix": 5}},
            "anchor prefix is a number, not text",
        ),
        (
            {"id": "c9", "anchor": {"quote": "blue", "suffix": []}},
            "anchor suffix is a list, not text",
        ),
        ({"id": "c9", "anchor": {"quote": 3}}, "anchor quote is a number, not text"),
        (
            {"id": "c9", "anchor": {"quote": "blue", "start_offset": -4}},
            "anchor start_offset -4 is negative",
        ),
        (
            {"id": "c9", "body": {"x": 1}, "anchor": {"quote": "blue"}},
            "body is an object, not text",
        ),
        (
            {"id": "c9", "actionable": "yes", "anchor": {"quote": "blue"}},
            "actionable is text, not true or false",
        ),
        ({"id": "c9", "thread": "hi", "anchor": {"quote": "blue"}}, "thread is text, not a list"),
        ({"id": ["c9"], "anchor": {"quote": "blue"}}, "comment id is a list, not text"),
        # true and false are ints to Python: they were taken for "no offset" and repaired
        # from context, while "13" and 26.5 were refused (the attacker's brief, stop 38)
        (
            {"id": "c9", "anchor": {"quote": "blue", "start_offset": True, "end_offset": 8}},
            "offset true is not an integer",
        ),
        (
            {"id": "c9", "anchor": {"quote": "blue", "start_offset": 4, "end_offset": False}},
            "offset false is not an integer",
        ),
        (
            {"id": "c9", "anchor": {"quote": "blue", "start_offset": "13"}},
            "offset '13' is not an integer",
        ),
    ],
)
def test_native_wrong_types_are_rejected_naming_the_comment(docs, tmp_path, item, problem):
    v1, v2, _ = docs
    comments = tmp_path / "c.json"
    comments.write_text(json.dumps([item, {"id": "ok", "anchor": {"quote": "blue kettle"}}]))
    code, out, err = run("score", "--v1", v1, "--v2", v2, "--comments", comments, "--json")
    assert code == 0, err
    assert "skipped: " + problem in err and "Traceback" not in err
    assert [v["comment_id"] for v in json.loads(out)["verdicts"]] == ["ok"]


@pytest.mark.parametrize(
    "report,problem",
    [
        (
            {"comments": [{"comment_id": "c1", "claim": "addressed", "change_summary": 5}]},
            "comment c1: change_summary is a number, not text",
        ),
        ({"comments": [], "notes": ["x"]}, "the report's notes are a list, not text"),
        ({"comments": [{"comment_id": 7, "claim": "addressed"}]}, "entry 1 has no comment_id"),
        (
            {"comments": [{"comment_id": "c1", "claim": "done"}]},
            "entry 1 claim 'done' is not one of",
        ),
        ({"comments": "all"}, 'the report has no "comments" list'),
        ([1, 2], "the report is not a JSON object"),
    ],
)
def test_claims_wrong_types_are_one_line(docs, tmp_path, report, problem):
    v1, v2, comments = docs
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps(report))
    code, _, err = run("score", "--v1", v1, "--v2", v2, "--comments", comments, "--claims", claims)
    one_clean_line(code, err, "claims.json", problem)


# ----------------------------------------------------------------------------------------
# arl score --claims accepts the bundle's own claims.json
# ----------------------------------------------------------------------------------------


def test_score_accepts_the_bundles_claims_json():
    code, out, err = run(
        "score",
        "--v1", BUNDLE / "document/v1.html",
        "--v2", BUNDLE / "document/v2.html",
        "--comments", BUNDLE / "comments.before.json",
        "--claims", BUNDLE / "claims.json",
        "--json",
    )  # fmt: skip
    assert code == 0, err
    j = json.loads(out)
    final = json.loads((BUNDLE / "claims.json").read_text())["final"]["comments"]
    by_id = {v["comment_id"]: v for v in j["verdicts"]}
    for item in final:
        assert by_id[item["comment_id"]]["claim"] == item["claim"]
    assert j["metrics"]["claim_accuracy"]["denominator"] >= 1


def _bundle_claims(tmp_path, final, rounds=None) -> Path:
    path = tmp_path / "claims.json"
    path.write_text(json.dumps({"rounds": rounds or [], "final": final}))
    return path


def test_bundle_claims_without_final_take_the_last_round(docs, tmp_path):
    v1, v2, comments = docs
    report = {"comments": [{"comment_id": "c1", "claim": "addressed"}], "notes": ""}
    claims = _bundle_claims(tmp_path, None, [{"round": 1, "report": report, "raw": ""}])
    code, out, err = run(
        "score", "--v1", v1, "--v2", v2, "--comments", comments, "--claims", claims, "--json"
    )
    assert code == 0, err
    (v,) = json.loads(out)["verdicts"]
    assert v["claim"] == "addressed" and v["claim_agrees"] is True


def test_bundle_claims_with_an_unusable_report_read_na_with_its_reason(docs, tmp_path):
    v1, v2, comments = docs
    final = {"comments": [], "notes": "", "usable": False, "problem": "the report was cut off"}
    claims = _bundle_claims(tmp_path, final)
    code, out, err = run(
        "score", "--v1", v1, "--v2", v2, "--comments", comments, "--claims", claims, "--json"
    )
    assert code == 0, err
    assert "the agent's report is unusable (the report was cut off)" in err
    m = json.loads(out)["metrics"]["claim_accuracy"]
    assert m["value"] is None and "the report was cut off" in m["reason"]


def test_bundle_claims_with_no_report_at_all_is_one_line(docs, tmp_path):
    v1, v2, comments = docs
    claims = _bundle_claims(tmp_path, None)
    code, _, err = run("score", "--v1", v1, "--v2", v2, "--comments", comments, "--claims", claims)
    one_clean_line(code, err, "claims.json", "no report")


# ----------------------------------------------------------------------------------------
# arl comments import warns about quotes the document does not hold
# ----------------------------------------------------------------------------------------


def test_comments_import_warns_when_quotes_are_missing(docs, tmp_path):
    v1, _, _ = docs
    w3c = tmp_path / "w3c.json"
    doc = _w3c()
    doc["items"][0]["target"]["selector"]["exact"] = "purple teapot"  # not in v1
    w3c.write_text(json.dumps(doc))
    out = tmp_path / "native.json"
    code, _, err = run("comments", "import", "--doc", v1, "--annotations", w3c, "--out", out)
    assert code == 0, err
    assert "annotation urn:bad does not fit v1.html: the quote is not in the version" in err
    assert "urn:good" not in err
    assert [c["id"] for c in json.loads(out.read_text())["comments"]] == ["urn:bad", "urn:good"]


# ----------------------------------------------------------------------------------------
# Options: --timeout, --rounds, --base-url, masked URLs
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["nan", "NaN", "inf", "-inf", "-1", "0", "1e400", "abc", "9" * 5000]
)
@pytest.mark.parametrize("command", ["run", "author"])
def test_timeout_must_be_finite_and_positive(docs, value, command):
    v1, _, comments = docs
    if command == "run":
        args = ["run", "--yes", "--doc", v1, "--comments", comments, "--model", "m"]
    else:
        args = ["author", "--brief", "x", "--model", "m", "--out", v1.with_name("o.html")]
    code, out, err = run(*args, "--timeout", value)
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith(f"arl {command}: --timeout") and len(err) < 2000
    assert err.count("\n") == 1 and err.endswith(f"(see arl {command} --help)\n")


@pytest.mark.parametrize("value", ["9" * 5000, "-3", "0", "1.5", "99999999999999999999"])
def test_rounds_must_be_a_sane_whole_number(docs, value):
    v1, _, comments = docs
    code, out, err = run(
        "run", "--doc", v1, "--comments", comments, "--model", "m", "--rounds", value
    )
    assert code == 2 and "Traceback" not in err and len(err) < 2000
    assert err.startswith("arl run: --rounds: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    "url,problem",
    [
        ("http://[::1", "is not a valid URL"),
        ("http://[::1]:99999/v1", "is not a valid URL"),
        ("http://127.0.0.1:port/v1", "is not a valid URL"),
        ("http://[zz::1]/v1", "is not a valid URL"),
        ("ftp://127.0.0.1/v1", "is not an http(s) URL"),
        ("http:///v1", "is not an http(s) URL"),
        ("http://exa mple.com/v1", "contains spaces or control characters"),
        ("127.0.0.1:8089", "is not an http(s) URL"),
    ],
)
@pytest.mark.parametrize("command", ["run", "doctor"])
def test_bad_base_url_is_one_line(docs, url, problem, command):
    v1, _, comments = docs
    if command == "run":
        args = ["run", "--yes", "--doc", v1, "--comments", comments, "--model", "m"]
    else:
        args = ["doctor", "--model", "m", "--no-qt"]
    code, out, err = run(*args, "--base-url", url)
    one_clean_line(code, err, "--base-url", problem)


def test_base_url_credentials_are_masked_in_errors(docs):
    v1, _, comments = docs
    url = "http://alice:hunter2@[::1:8089/v1?api_key=sk-live-123&x=1"
    code, out, err = run(
        "run", "--doc", v1, "--comments", comments, "--model", "m", "--base-url", url
    )
    one_clean_line(code, err, "--base-url")
    for secret in ("alice", "hunter2", "sk-live-123"):
        assert secret not in err and secret not in out
    # mask_url hides them; the program's output redaction may then rewrite the mask
    assert "***@" in err and ("api_key=***" in err or "api_key=[REDACTED]" in err)


@pytest.mark.parametrize("device", DEVICES)
def test_author_refuses_a_device_as_brief(tmp_path, device):
    code, out, err = run(
        "author",
        "--brief",
        device,
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--out",
        tmp_path / "o.html",
        timeout=30,
    )
    one_clean_line(code, err, device, "is a device, not a regular file")
    assert not (tmp_path / "o.html").exists()
