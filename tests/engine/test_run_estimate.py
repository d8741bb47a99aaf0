"""A single ``arl run`` gets the estimate and confirmation a suite has (engine.suite.estimate,
one model of a run's tokens; docs/suites.md, "Estimate"): tokens, the cost where prices are
given, asked before anything is sent, ``--yes`` to start without asking."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.cli.main import main as arl
from engine.suite.estimate import estimate_run, estimate_suite, render_run_estimate
from engine.suite.suite import load_suite
from tests.engine.test_suite_decides import write_docs_suite
from tests.helpers.scripted_server import FixEverything, ScriptedServer


def _args(srv, folder: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--doc",
        str(folder / "d" / "d1.txt"),
        "--comments",
        str(folder / "d" / "d1.json"),
        "--base-url",
        srv.base_url,
        "--model",
        srv.model,
        "--rounds",
        "1",
        "--turns",
        "8",
        "--out",
        str(folder / "bundles"),
        *extra,
    ]


def test_the_estimate_is_the_suites_for_the_same_run(tmp_path):
    s = load_suite(write_docs_suite(tmp_path, {"m": "http://127.0.0.1:9/v1"}, ["d1"], repeats=1))
    suite_est = estimate_suite(s).items[0]
    from engine.comments_io import load_comments

    raw = (tmp_path / "d" / "d1.txt").read_text(encoding="utf-8")
    comments, _ = load_comments(str(tmp_path / "d" / "d1.json"))
    one = estimate_run(raw, comments, rounds=1, turns=8)
    assert one.input == suite_est.input and one.output == suite_est.output
    assert one.cost is None and "no prices given" in render_run_estimate(one)


def test_arl_run_prints_the_estimate_and_starts_with_yes(tmp_path, capsys):
    write_docs_suite(tmp_path, {"m": "http://127.0.0.1:9/v1"}, ["d1"], repeats=1)
    with ScriptedServer(FixEverything()) as srv:
        code = arl(
            _args(srv, tmp_path, "--yes", "--json", "--price-input", "2", "--price-output", "8")
            + ["--currency", "USD"]
        )
        out, err = capsys.readouterr()
        assert code == 0, err
        assert srv.requests  # it ran
    assert json.loads(out)["status"] == "completed"  # stdout still holds the JSON alone
    lines = err.splitlines()
    est = next(i for i, ln in enumerate(lines) if ln.startswith("Estimate: about "))
    sent = next(i for i, ln in enumerate(lines) if "sent to" in ln.lower() or "127.0.0.1" in ln)
    assert est < sent  # said before anything is sent
    assert any(ln.startswith("Cost: about ") and " USD (" in ln for ln in lines)


def test_arl_run_without_yes_and_without_a_terminal_does_not_start(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", open(os.devnull))  # noqa: SIM115
    write_docs_suite(tmp_path, {"m": "http://127.0.0.1:9/v1"}, ["d1"], repeats=1)
    with ScriptedServer(FixEverything()) as srv:
        code = arl(_args(srv, tmp_path))
        out, err = capsys.readouterr()
        assert code == 2 and "confirm the estimate with --yes" in err
        assert "Estimate: about " in out and "Cost: no prices given" in out
        assert not srv.requests
        assert not (tmp_path / "bundles").exists()
        assert arl(_args(srv, tmp_path, "--yes", "--price-input", "1")) == 2
        assert "give both prices" in capsys.readouterr().err
        with pytest.raises(SystemExit):  # argparse: one line, exit 2
            arl(_args(srv, tmp_path, "--yes", "--price-input", "-1", "--price-output", "1"))
        assert not srv.requests


def test_a_yes_on_the_terminal_starts_and_a_no_does_not(tmp_path, capsys, monkeypatch):
    import io

    write_docs_suite(tmp_path, {"m": "http://127.0.0.1:9/v1"}, ["d1"], repeats=1)

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    with ScriptedServer(FixEverything()) as srv:
        monkeypatch.setattr(sys, "stdin", Tty("n\n"))
        assert arl(_args(srv, tmp_path)) == 2
        assert "Start the run? [y/N]" in capsys.readouterr().err and not srv.requests
        monkeypatch.setattr(sys, "stdin", Tty("y\n"))
        assert arl(_args(srv, tmp_path)) == 0
        assert srv.requests


TEXT = st.text(
    st.sampled_from(list("abc def. ") + list("漢字かな") + list("مرحبا") + list("สวัสดี") + ["😀"]),
    min_size=1,
    max_size=400,
)


@settings(max_examples=60, deadline=None)
@given(TEXT, st.integers(1, 6), st.integers(2, 30), st.sampled_from(["tools", "no-tools", "auto"]))
def test_the_range_is_ordered_and_grows_with_rounds(text, rounds, turns, mode):
    """Low <= central <= high in any script, and more rounds never cost less."""
    from engine.models import Anchor, Comment

    quote = text[: max(1, len(text) // 3)]
    comments = [
        Comment(
            id="c1",
            body="fix",
            anchor=Anchor(quote=quote, prefix="", suffix="", start_offset=0, end_offset=len(quote)),
        )
    ]
    a = estimate_run(text, comments, mode=mode, rounds=rounds, turns=turns)
    b = estimate_run(text, comments, mode=mode, rounds=rounds + 1, turns=turns)
    assert a.total[0] <= a.total[1] <= a.total[2]
    assert b.total[2] >= a.total[2] and b.total[0] == a.total[0]
    priced = estimate_run(
        text, comments, mode=mode, rounds=rounds, turns=turns, price_input=1, price_output=3
    )
    assert priced.cost is not None and priced.cost[0] <= priced.cost[1] <= priced.cost[2]


@pytest.mark.parametrize("bad", ["nan", "inf", "abc"])
def test_a_price_must_be_a_number(tmp_path, capsys, bad):
    write_docs_suite(tmp_path, {"m": "http://127.0.0.1:9/v1"}, ["d1"], repeats=1)

    class Srv:
        base_url, model = "http://127.0.0.1:9/v1", "m"

    with pytest.raises(SystemExit) as exc:
        arl(_args(Srv, tmp_path, "--yes", "--price-input", bad, "--price-output", "1"))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("arl run: --price-input: ") and len(err.splitlines()) == 1
