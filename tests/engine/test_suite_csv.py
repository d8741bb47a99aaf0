"""``arl suite history --csv`` writes no cell a spreadsheet would evaluate: text from suite
files starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading
apostrophe (OWASP "CSV Injection"), numbers stay numbers (docs/suites.md)."""

from __future__ import annotations

import csv
import io

from engine.cli.main import main as arl
from tests.helpers.scripted_server import FixEverything, ScriptedServer


def test_history_csv_cells_are_never_formulas(tmp_path, capsys):
    with ScriptedServer(FixEverything()) as srv:
        s = tmp_path / "suite.toml"
        s.write_text(
            "\n".join(
                [
                    'name = \'=HYPERLINK("http://evil.example/","x")\'',
                    "rounds = 1",
                    "repeats = 1",
                    'documents = [{ corpus = "briefs", sample = 1 }]',
                    "[limits]",
                    "timeout = 10",
                    "[[models]]",
                    "name = \"+cmd' /C calc'!A0\"",
                    f'base_url = "{srv.base_url}"',
                    'model = "@SUM(1,1)"',
                    "[[variants]]",
                    'name = "\\t=1+1"',
                ]
            )
            + "\n",
            encoding="utf-8",
        )
        assert arl(["suite", "run", str(s), "--yes", "--out", str(tmp_path / "o")]) == 0
    capsys.readouterr()
    assert arl(["suite", "history", "--csv"]) == 0
    out = capsys.readouterr().out
    rows = list(csv.reader(io.StringIO(out)))
    header, body = rows[0], rows[1:]
    assert body
    for row in body:
        for name, cell in zip(header, row, strict=True):
            assert not cell.lstrip(" ").startswith(("=", "+", "@", "\t", "\r")), (name, cell)
            if cell.startswith("-"):
                float(cell)  # only a number may start with a minus
    joined = "\n".join(",".join(r) for r in body)
    assert "'=HYPERLINK" in joined and "'+cmd" in joined and "'@SUM" in joined


def test_a_run_row_of_a_run_that_never_reached_the_model_says_na_tokens():
    """Its tokens are N/A, the model was never reached (0 in rows written before null
    was stored), never "0" nor "unreported"; a run without usage stays "unreported"."""
    from engine.suite.report import run_cells
    from engine.suite.store import ItemResult

    never = "the model was never reached: could not connect to 127.0.0.1:9 (nothing answered)"
    row = dict(key="k", document="d", size="s", model="m", model_id="m", base_url="u")
    row |= dict(variant="v", instructions_hash="h", repeat=1, status="failed")
    for tokens in (None, 0):
        it = ItemResult(
            **row,
            tokens=tokens,
            metrics={
                "attribution_rate": {"value": None, "reason": never},
                "cost_per_attributed_fix": {"value": None, "reason": never},
            },
        )
        assert run_cells(it)[-1] == "N/A: the model was never reached"
    assert run_cells(ItemResult(**row, tokens=None))[-1] == "unreported"
