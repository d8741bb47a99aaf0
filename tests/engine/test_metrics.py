"""The five metrics: a number with numerator and denominator, or N/A with the reason."""

from engine.comments_io import parse_claim_report
from engine.models import Anchor, Comment, Metric
from engine.score.scoring import Version, score

V1 = "Alpha one. Beta two. Gamma three. Delta four."
V2 = "Alpha ONE. Beta two. Gamma three. Delta four, and more."


def _c(cid, quote, **kw):
    i = V1.index(quote)
    return Comment(cid, "fix", Anchor(quote, start_offset=i, end_offset=i + len(quote)), **kw)


def _score(comments, v2=V2, **kw):
    return score(
        Version.from_source(V1, "text"), Version.from_source(v2, "text", "v2"), comments, **kw
    )


def test_zero_is_a_number_and_na_is_a_reason():
    r = _score([_c("b", "two")])
    m = r.metrics["attribution_rate"]
    assert (m.value, m.numerator, m.denominator) == (0.0, 0, 1)
    assert m.to_json() == {"value": 0.0, "numerator": 0, "denominator": 1}
    r = _score([_c("b", "two")], v2=V1)
    churn = r.metrics["collateral_churn"]
    assert churn.value is None and "nothing changed" in churn.reason
    assert churn.to_json() == {"value": None, "reason": churn.reason}


def test_attribution_counts_only_actionable_open_comments():
    r = _score(
        [
            _c("a", "one"),
            _c("b", "two"),
            _c("c", "three", actionable=False),
            _c("d", "four", status="resolved"),
        ]
    )
    m = r.metrics["attribution_rate"]
    assert (m.numerator, m.denominator) == (1, 2)
    assert {v.comment_id for v in r.verdicts} == {"a", "b", "c", "d"}


def test_no_actionable_comments_is_na():
    r = _score([_c("c", "three", actionable=False)])
    assert r.metrics["attribution_rate"].is_na
    assert "no actionable" in r.metrics["attribution_rate"].reason


def test_churn_outside_over_all_changed():
    r = _score([_c("a", "one")])
    m = r.metrics["collateral_churn"]
    assert m.denominator == 3 + 3 + len(", and more")
    assert m.numerator == len(", and more")


def test_claim_accuracy_agreement_rules():
    report = parse_claim_report(
        {
            "comments": [
                {"comment_id": "a", "claim": "addressed"},  # edited -> agrees
                {"comment_id": "b", "claim": "addressed"},  # untouched -> disagrees
                {"comment_id": "c", "claim": "not_addressed"},  # untouched -> agrees
            ]
        }
    )
    r = _score([_c("a", "one"), _c("b", "two"), _c("c", "three")], claims=report)
    m = r.metrics["claim_accuracy"]
    assert (m.numerator, m.denominator) == (2, 3)
    by = {v.comment_id: v for v in r.verdicts}
    assert by["b"].claim_agrees is False and by["a"].claim_agrees is True


def test_unusable_report_and_invented_ids_make_claim_accuracy_na():
    r = _score([_c("a", "one")], claims=parse_claim_report("not an object"))
    assert r.metrics["claim_accuracy"].is_na and "unusable" in r.metrics["claim_accuracy"].reason
    bad = parse_claim_report({"comments": [{"comment_id": "zz", "claim": "maybe"}]})
    assert not bad.usable
    r = _score(
        [_c("a", "one")],
        claims=parse_claim_report(
            {
                "comments": [
                    {"comment_id": "a", "claim": "addressed"},
                    {"comment_id": "ghost", "claim": "addressed"},
                ]
            }
        ),
    )
    m = r.metrics["claim_accuracy"]
    assert m.is_na and "ghost" in m.reason


def test_stale_anchor_claim_agrees_but_is_outside_every_denominator():
    stale = Comment("s", "x", Anchor("gone words"), created_on_version_id="v0")
    report = parse_claim_report(
        {
            "comments": [
                {"comment_id": "s", "claim": "stale_anchor"},
                {"comment_id": "a", "claim": "addressed"},
            ]
        }
    )
    r = _score([stale, _c("a", "one")], claims=report)
    by = {v.comment_id: v for v in r.verdicts}
    assert by["s"].verdict == "stale_anchor" and by["s"].claim_agrees is True
    assert r.metrics["claim_accuracy"].denominator == 1
    assert r.metrics["attribution_rate"].denominator == 1


def test_cost_per_fix_uses_real_tokens_and_says_why_not():
    r = _score([_c("a", "one")], tokens=1234)
    m = r.metrics["cost_per_attributed_fix"]
    assert (m.value, m.numerator, m.denominator) == (1234, 1234, 1)
    r = _score([_c("b", "two")], tokens=1234)
    assert r.metrics["cost_per_attributed_fix"].is_na
    r = _score([_c("a", "one")], tokens=None, tokens_reason="the provider reported no usage")
    assert r.metrics["cost_per_attributed_fix"].reason == "the provider reported no usage"


def test_rounds_to_converge():
    r = _score([_c("a", "one")], rounds_to_converge=2)
    assert r.metrics["rounds_to_converge"].to_json() == {
        "value": 2,
        "numerator": 2,
        "denominator": 1,
    }
    r = _score([_c("a", "one")], rounds_reason="did not converge within 3 rounds")
    assert r.metrics["rounds_to_converge"].reason == "did not converge within 3 rounds"


def test_metric_json_round_trip():
    for m in (Metric.ratio(1, 4), Metric.na("why")):
        assert Metric.from_json(m.to_json()).to_json() == m.to_json()


def _report(claims: dict[str, str]):
    return parse_claim_report(
        {"comments": [{"comment_id": k, "claim": v} for k, v in claims.items()]}
    )


def test_claim_coverage_counts_the_comments_a_report_leaves_out():
    comments = [_c("a", "one"), _c("b", "two"), _c("c", "three"), _c("d", "four")]
    r = _score(comments, claims=_report({"a": "addressed"}))
    acc = r.metrics["claim_accuracy"]
    assert (acc.numerator, acc.denominator) == (1, 1)  # the definition is unchanged
    cov = r.claim_coverage
    assert (cov.claimed, cov.no_claim, cov.actionable) == (1, 3, 4)
    assert cov.no_claim_ids == ("b", "c", "d")
    assert cov.text() == "no claim for 3 of 4 comments"
    j = r.to_json()["claim_coverage"]
    assert j == {
        "claimed": 1,
        "no_claim": 3,
        "actionable": 4,
        "no_claim_ids": ["b", "c", "d"],
        "text": "no claim for 3 of 4 comments",
    }
    full = _score(comments, claims=_report(dict.fromkeys("abcd", "addressed")))
    assert full.claim_coverage.no_claim == 0
    assert full.claim_coverage.text() == "a claim for every comment (4)"
    # no report at all: no coverage to speak of (claim accuracy says why it is N/A)
    assert _score(comments).claim_coverage is None
    assert _score(comments).to_json()["claim_coverage"] is None


def test_verification_for_every_claim_of_addressed_on_unchanged_text():
    from engine.score.integrity import unchanged_claims

    comments = [_c("a", "one"), _c("b", "two"), _c("c", "three"), _c("d", "four")]
    # the agent pushed nothing, resolved nothing, and reported "addressed" for everything
    r = _score(comments, v2=V1, claims=_report(dict.fromkeys("abcd", "addressed")))
    got = unchanged_claims(r.verdicts, _report(dict.fromkeys("abcd", "addressed")))
    assert [(u.comment_id, u.by) for u in got] == [(c, "report") for c in "abcd"]
    # resolving counts as a claim too; an edited comment never gets the line
    r = _score(comments, claims=_report({"b": "addressed"}))
    got = unchanged_claims(r.verdicts, _report({"b": "addressed"}), {"b", "c", "a"})
    assert [(u.comment_id, u.by) for u in got] == [("b", "resolved+report"), ("c", "resolved")]
    # not_addressed on unchanged text is an honest claim: no line
    got = unchanged_claims(r.verdicts, _report({"b": "not_addressed"}))
    assert got == []


def test_arl_score_prints_verification_and_the_no_claim_count(tmp_path, capsys):
    import json

    from engine.cli import main as cli

    (tmp_path / "v1.txt").write_text(V1)
    (tmp_path / "v2.txt").write_text(V1)  # nothing changed
    cs = [_c("a", "one"), _c("b", "two")]
    (tmp_path / "c.json").write_text(json.dumps([c.to_json() for c in cs]))
    (tmp_path / "r.json").write_text(
        json.dumps({"comments": [{"comment_id": "a", "claim": "addressed"}]})
    )
    args = ["score", "--v1", str(tmp_path / "v1.txt"), "--v2", str(tmp_path / "v2.txt")]
    args += ["--comments", str(tmp_path / "c.json"), "--claims", str(tmp_path / "r.json")]
    assert cli.main(args) == 0
    out, err = capsys.readouterr()
    assert "no claim for 1 of 2 comments" in out
    assert err.count("VERIFICATION: MODEL CLAIMED ADDRESSED - ANCHORED TEXT UNCHANGED") == 1
    assert "(comment a: claimed addressed in the report)" in err
    assert cli.main([*args, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["claim_coverage"]["no_claim"] == 1
    assert "VERIFICATION" in err
