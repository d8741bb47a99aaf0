"""Review suites (engine/suite*.py, ``arl suite``) against the scripted OpenAI-compatible
server: estimate, run, limits, resume after a kill, report with spread and the noise rule,
history, the CI gate's exit codes, shards merged to the same report as one run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.cli.main import main as arl
from engine.suite.corpus import builtin_documents, sample_stratified
from engine.suite.estimate import estimate_suite
from engine.suite.report import build_report, gate, parse_thresholds
from engine.suite.store import ItemResult, SuiteStore
from engine.suite.suite import SuiteError, expand_items, load_suite, parse_shard, shard_items
from tests.helpers.scripted_server import FixEverything, ScriptedServer, Silent

ROOT = Path(__file__).resolve().parents[2]


def write_suite(folder: Path, base_url: str, **over: object) -> Path:
    """A small suite over two built-in brief documents, one model, two repeats."""
    lines = [
        f'name = "{over.get("name", "t")}"',
        f"rounds = {over.get('rounds', 1)}",
        f"repeats = {over.get('repeats', 2)}",
        'documents = [{ corpus = "briefs", sample = 2 }]',
        "seed = 1",
        "[limits]",
        "timeout = 10",
        "turns_per_round = 8",
        "[[models]]",
        'name = "scripted"',
        f'base_url = "{base_url}"',
        'model = "scripted-model"',
    ]
    if over.get("priced"):
        lines += ["price_input = 1.0", "price_output = 2.0", 'currency = "USD"']
    for extra in over.get("models", []):  # type: ignore[attr-defined]
        lines += extra
    p = folder / "suite.toml"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    code = arl(argv)
    out, err = capsys.readouterr()
    return code, out, err


# -- the suite file ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, problem",
    [
        ('name = "x"\nfoo = 1\n', "unknown key foo"),
        ('documents = ["builtin"]\n', "'models' must be a non-empty list"),
        (
            'documents = ["nowhere"]\n[[models]]\nbase_url="http://a/v1"\nmodel="m"\n',
            "is not a corpus",
        ),
        (
            'documents = ["briefs"]\n[[models]]\nbase_url="ftp://a"\nmodel="m"\n',
            "must be an http(s) URL",
        ),
        (
            'documents = ["briefs"]\n[[models]]\nbase_url="http://a/v1"\nmodel="m"\n'
            "price_input = 1\n",
            "give both price_input and price_output",
        ),
        (
            'documents = ["briefs"]\nrepeats = 0\n[[models]]\nbase_url="http://a/v1"\nmodel="m"\n',
            "'repeats' must be a whole number of at least 1",
        ),
        (
            'documents = ["briefs"]\n[[models]]\nbase_url="http://a/v1"\nmodel="m"\n'
            '[[models]]\nbase_url="http://b/v1"\nmodel="m"\n',
            "the name m appears twice",
        ),
        ("documents = [", "is not valid TOML"),
    ],
)
def test_bad_suite_files_are_one_line_errors(tmp_path, body, problem):
    p = tmp_path / "s.toml"
    p.write_text(body, encoding="utf-8")
    with pytest.raises(SuiteError) as e:
        load_suite(p)
    assert problem in str(e.value)
    assert str(p) in str(e.value) and "\n" not in str(e.value)


def test_a_json_suite_with_a_huge_integer_is_refused_cleanly(tmp_path, capsys):
    p = tmp_path / "s.json"
    p.write_text('{"documents": ["briefs"], "rounds": ' + "9" * 5000 + "}", encoding="utf-8")
    code, _, err = run_cli(["suite", "estimate", str(p)], capsys)
    assert code == 2 and "s.json" in err and "Traceback" not in err


def test_file_documents_are_relative_to_the_suite(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "memo.txt").write_text("The memo says two days a week.", encoding="utf-8")
    comments = [
        {
            "id": "c1",
            "body": "three",
            "anchor": {
                "quote": "two days",
                "prefix": "",
                "suffix": "",
                "start_offset": 14,
                "end_offset": 22,
            },
        }
    ]
    (tmp_path / "d" / "c.json").write_text(json.dumps(comments), encoding="utf-8")
    p = tmp_path / "s.toml"
    p.write_text(
        'documents = [{ path = "d/memo.txt", comments = "d/c.json" }]\n'
        '[[models]]\nbase_url = "http://127.0.0.1:1/v1"\nmodel = "m"\n',
        encoding="utf-8",
    )
    s = load_suite(p)
    assert [d.name for d in s.documents] == ["memo"] and s.documents[0].size == "small"
    assert s.repeats == 3  # the default: one run is a sample of one


# -- corpus and sampling -------------------------------------------------------------------


def test_the_builtin_corpus_ships_papers_and_briefs_in_every_size():
    docs = builtin_documents()
    names = {d.name for d in docs}
    assert "f1000rd/8-103" in names and "briefs/policy-memo" in names
    assert {d.size for d in docs} == {"small", "medium", "large"}
    for d in docs:
        assert d.doc.is_file() and json.loads(d.comments.read_text(encoding="utf-8"))


def test_sample_is_stratified_and_fixed_by_seed():
    docs = builtin_documents()
    a = sample_stratified(docs, 8, seed=1)
    assert a == sample_stratified(docs, 8, seed=1)  # same seed, same documents
    assert len(a) == 8 and len({d.name for d in a}) == 8
    sizes = [d.size for d in a]
    share = {c: sum(d.size == c for d in docs) / len(docs) for c in ("small", "medium", "large")}
    for c in ("small", "medium"):  # each class within one document of its proportional share
        assert abs(sizes.count(c) - 8 * share[c]) <= 1
    seeds = {tuple(d.name for d in sample_stratified(docs, 3, seed=s)) for s in range(10)}
    assert len(seeds) > 1  # the seed really chooses
    assert sample_stratified(docs, 100, seed=3) == sorted(docs, key=lambda d: d.name)


def test_shards_partition_the_items(tmp_path):
    s = load_suite(write_suite(tmp_path, "http://127.0.0.1:1/v1", repeats=3))
    items = expand_items(s)
    parts = [shard_items(items, (i, 3)) for i in (1, 2, 3)]
    keys = [it.key for p in parts for it in p]
    assert sorted(keys) == sorted(it.key for it in items) and len(set(keys)) == len(keys)
    assert all(parts)
    with pytest.raises(SuiteError):
        parse_shard("3/2")


# -- estimate ------------------------------------------------------------------------------


def test_estimate_calls_no_model_and_prices_only_when_given(tmp_path, capsys):
    # No server listens on this port: any model call would fail.
    s = write_suite(
        tmp_path,
        "http://127.0.0.1:9/v1",
        priced=True,
        models=[
            ["[[models]]", 'name = "free"', 'base_url = "http://127.0.0.1:9/v1"', 'model = "other"']
        ],
    )
    code, out, _ = run_cli(["suite", "estimate", str(s)], capsys)
    assert code == 0
    assert "no prices given" in out and "USD" in out and "N/A — no prices for free" in out
    est = estimate_suite(load_suite(s))
    lo, mid, hi = est.total_tokens
    assert 0 < lo <= mid <= hi
    assert est.per_model["scripted"]["cost"] is not None
    assert est.per_model["free"]["cost"] is None
    more = estimate_suite(load_suite(write_suite(tmp_path, "http://127.0.0.1:9/v1", repeats=4)))
    assert more.per_model["scripted"]["tokens"][1] == 2 * est.per_model["scripted"]["tokens"][1]


# -- running -------------------------------------------------------------------------------


@pytest.fixture
def server():
    with ScriptedServer(FixEverything()) as srv:
        yield srv


def _suite_id(out: str) -> str:
    return next(w for w in out.split() if w.startswith("S-")).rstrip(";.")


def test_run_makes_every_run_with_a_bundle_and_reports(tmp_path, capsys, server):
    s = write_suite(tmp_path, server.base_url)
    code, out, err = run_cli(
        ["suite", "run", str(s), "--yes", "--out", str(tmp_path / "o"), "--concurrency", "2"],
        capsys,
    )
    assert code == 0, err
    sid = _suite_id(out)
    with SuiteStore() as store:
        items = store.items(sid)
        assert store.run_row(sid).status == "finished"
    assert len(items) == 4 and {i.status for i in items} == {"finished"}
    for it in items:
        assert (Path(it.bundle) / "manifest.json").is_file()
        assert arl(["bundle", "verify", it.bundle]) == 0
        assert it.metrics["attribution_rate"]["value"] == 1.0
        assert it.tokens and it.prompt_tokens is not None
    capsys.readouterr()
    assert "attribution" in out and "100% [100% to 100%] over 2 documents x 2 repeats" in out
    assert (tmp_path / "o" / sid / "suite-results.json").is_file()


def test_run_without_yes_and_without_a_terminal_does_not_start(
    tmp_path, capsys, server, monkeypatch
):
    monkeypatch.setattr(sys, "stdin", open(os.devnull))  # noqa: SIM115
    s = write_suite(tmp_path, server.base_url)
    code, _, err = run_cli(["suite", "run", str(s), "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "--yes" in err
    assert not server.requests


def test_token_limit_stops_cleanly_and_resume_finishes_without_rerunning(tmp_path, capsys, server):
    s = write_suite(tmp_path, server.base_url)
    # One run of FixEverything costs a few hundred tokens: the limit lets one run start.
    code, out, _ = run_cli(
        [
            "suite",
            "run",
            str(s),
            "--yes",
            "--out",
            str(tmp_path / "o"),
            "--max-total-tokens",
            "300",
        ],
        capsys,
    )
    assert code == 0
    sid = _suite_id(out)
    with SuiteStore() as store:
        row = store.run_row(sid)
        items = store.items(sid)
    assert row.status == "stopped" and "token limit of 300" in row.stop_reason
    done = {i.key: i for i in items if i.status in ("finished", "stopped")}
    # A run is capped at what remains; the call that crosses the cap is the last one, so
    # the total passes the limit by at most one model call (120 tokens on this server).
    assert sum(i.tokens or 0 for i in items) <= 300 + 120
    assert any(i.status in ("queued", "stopped") for i in items)
    finished_before = {i.key: i.finished_at for i in items if i.status == "finished"}
    code, out, _ = run_cli(["suite", "resume", sid], capsys)
    assert code == 0
    with SuiteStore() as store:
        after = {i.key: i for i in store.items(sid)}
        assert store.run_row(sid).status == "finished"
    assert {i.status for i in after.values()} == {"finished"}
    for key, when in finished_before.items():  # not re-run
        assert after[key].finished_at == when
    assert done  # something ran before the limit


def test_cost_limit_needs_prices_and_caps_spending(tmp_path, capsys, server):
    s = write_suite(tmp_path, server.base_url)
    code, _, err = run_cli(
        ["suite", "run", str(s), "--yes", "--out", str(tmp_path / "o"), "--max-total-cost", "1"],
        capsys,
    )
    assert code == 2 and "needs prices" in err
    s = write_suite(tmp_path, server.base_url, priced=True)
    # 1 USD per million input, 2 per million output: 0.0005 USD is a few hundred tokens.
    code, out, _ = run_cli(
        [
            "suite",
            "run",
            str(s),
            "--yes",
            "--out",
            str(tmp_path / "o"),
            "--max-total-cost",
            "0.0005",
        ],
        capsys,
    )
    assert code == 0
    with SuiteStore() as store:
        row = store.run_row(_suite_id(out))
        items = store.items(row.id)
    assert row.status == "stopped" and "cost limit" in row.stop_reason
    # At most one model call past the limit (100 input + 20 output tokens = 0.00014 USD).
    assert sum(i.cost or 0 for i in items) <= 0.0005 + 0.00014 + 1e-12


def test_time_limit_cancels_runs_in_flight_and_they_resume(tmp_path, capsys):
    # Every model call takes 2 s and a run makes at least 5: the first run is surely in
    # flight when the 5 s limit passes, however slow or loaded the machine is.
    with ScriptedServer(FixEverything(), latency=2.0) as srv:
        s = write_suite(tmp_path, srv.base_url)
        code, out, _ = run_cli(
            [
                "suite",
                "run",
                str(s),
                "--yes",
                "--out",
                str(tmp_path / "o"),
                "--time-limit",
                str(5.0 / 60),
            ],
            capsys,
        )
        assert code == 0
        sid = _suite_id(out)
        with SuiteStore() as store:
            row = store.run_row(sid)
            items = store.items(sid)
        assert row.status == "stopped" and "time limit" in row.stop_reason
        stopped = [i for i in items if i.status == "stopped"]
        assert stopped and all(i.bundle for i in stopped)  # a cancelled run leaves its bundle
        assert not any(i.status == "finished" for i in items)
        srv.latency = 0.0
        code, out, _ = run_cli(["suite", "resume", sid], capsys)
        assert code == 0
        with SuiteStore() as store:
            assert {i.status for i in store.items(sid)} == {"finished"}


def test_a_killed_suite_resumes_without_rerunning_finished_runs(tmp_path):
    with ScriptedServer(FixEverything(), latency=0.3) as srv:
        s = write_suite(tmp_path, srv.base_url, repeats=3)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "engine.cli.main",
                "suite",
                "run",
                str(s),
                "--yes",
                "--out",
                str(tmp_path / "o"),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        sid, seen = None, []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # kill right after the second run finished
            line = proc.stdout.readline()
            seen.append(line)
            if line.startswith("Suite run S-") and sid is None:
                sid = line.split()[2].rstrip(";")
            if (
                line.strip().startswith("finished")
                and sum(ln.strip().startswith("finished") for ln in seen) == 2
            ):
                break
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert sid, "".join(seen)
        with SuiteStore() as store:
            before = {i.key: i for i in store.items(sid)}
        finished = {k: i.finished_at for k, i in before.items() if i.status == "finished"}
        assert len(finished) >= 2
        assert any(i.status != "finished" for i in before.values())
        assert arl(["suite", "resume", sid]) == 0
        with SuiteStore() as store:
            after = {i.key: i for i in store.items(sid)}
        assert {i.status for i in after.values()} == {"finished"}
        for key, when in finished.items():
            assert after[key].finished_at == when


def test_a_failing_model_is_reported_with_its_reason_not_dropped(tmp_path, capsys):
    with ScriptedServer(Silent()) as srv:
        s = write_suite(tmp_path, srv.base_url, repeats=1)
        code, out, _ = run_cli(
            [
                "suite",
                "run",
                str(s),
                "--yes",
                "--out",
                str(tmp_path / "o"),
                "--fail-under",
                "attribution=0.5",
            ],
            capsys,
        )
    assert code == 4  # the gate: attribution 0 is under 0.5 (or N/A -> UNVERIFIED)
    assert "Gate:" in out and ("FAIL" in out or "UNVERIFIED" in out)


# -- report, noise rule, gate --------------------------------------------------------------


def _row(
    model: str,
    repeat: int,
    doc: str,
    attribution: float | None,
    claims=None,
    status="finished",
    tokens=100,
) -> ItemResult:
    metrics = {
        "attribution_rate": (
            {"value": attribution, "numerator": attribution * 2, "denominator": 2}
            if attribution is not None
            else {"value": None, "reason": "no actionable comments"}
        ),
        "claim_accuracy": (
            {"value": claims, "numerator": 1, "denominator": 1}
            if claims is not None
            else {"value": None, "reason": "the agent made no usable report"}
        ),
    }
    return ItemResult(
        key=f"{doc}|{model}|default|r{repeat}",
        document=doc,
        size="small",
        model=model,
        model_id=model,
        base_url="http://x/v1",
        variant="default",
        instructions_hash="abc",
        repeat=repeat,
        status=status,
        metrics=metrics,
        tokens=tokens,
    )


def test_gate_pass_fail_and_unverified():
    rows = [
        _row("A", 1, "d", 0.9, claims=None),
        _row("A", 2, "d", 0.8, claims=None),
        _row("B", 1, "d", 0.2, claims=1.0),
        _row("B", 2, "d", 0.3, claims=1.0),
    ]
    rep = build_report(rows)
    res = {
        (g.combination, g.metric, g.threshold): g.outcome
        for g in gate(rep, parse_thresholds("attribution=0.6,claims=0.8"))
    }
    assert res[("A / default", "attribution_rate", 0.6)] == "PASS"  # interval [0.8, 0.9]
    assert res[("B / default", "attribution_rate", 0.6)] == "FAIL"  # interval [0.2, 0.3]
    assert res[("A / default", "claim_accuracy", 0.8)] == "UNVERIFIED"  # N/A never passes
    assert res[("B / default", "claim_accuracy", 0.8)] == "PASS"
    noisy = build_report([_row("A", 1, "d", 0.5), _row("A", 2, "d", 0.7)])
    assert gate(noisy, {"attribution_rate": 0.65})[0].outcome == "UNVERIFIED"
    with pytest.raises(ValueError):
        parse_thresholds("speed=3")


def test_failed_runs_are_counted_with_reasons_and_not_averaged():
    rows = [_row("A", 1, "d", 1.0), _row("A", 2, "d", None, status="failed")]
    rows[1].reason = "the server said: model overloaded"
    c = build_report(rows)["combinations"][0]
    assert c["finished"] == 1 and c["failed"] == 1
    assert c["failures"] == [{"reason": "the server said: model overloaded", "runs": 1}]
    assert c["metrics"]["attribution_rate"]["n"] == 1


# -- gate exit codes, history, compare, shards ---------------------------------------------


def test_gate_exit_codes_history_and_compare(tmp_path, capsys, server):
    s = write_suite(tmp_path, server.base_url)
    out_dir = str(tmp_path / "o")
    code, out, _ = run_cli(
        ["suite", "run", str(s), "--yes", "--out", out_dir, "--fail-under", "attribution=0.6"],
        capsys,
    )
    assert code == 0 and "PASS" in out
    first = _suite_id(out)
    code, out, _ = run_cli(["suite", "report", first, "--fail-under", "attribution=1.01"], capsys)
    assert code == 4 and "FAIL" in out
    code, out, _ = run_cli(["suite", "report", first, "--fail-over", "churn=0.5"], capsys)
    assert code == 0
    code, out, _ = run_cli(["suite", "run", str(s), "--yes", "--out", out_dir], capsys)
    second = _suite_id(out)
    code, out, _ = run_cli(["suite", "history", "--json"], capsys)
    rows = json.loads(out)
    assert [r["suite_id"] for r in rows] == [first, second]
    assert all(r["instructions_hash"] and r["app_version"] for r in rows)
    code, out, _ = run_cli(["suite", "history", "--csv", "--model", "scripted"], capsys)
    assert out.splitlines()[0].startswith("suite_id,") and len(out.splitlines()) == 3
    from engine.suite.report import trend_points
    from engine.suite.store import read_results, results_items

    with SuiteStore() as store:
        folder = store.run_row(second).out_dir
    data = read_results(folder)
    points = trend_points(data, results_items(data, Path(folder)))
    assert [p["suite_id"] for p in points] == [first, second]  # oldest first, this one last
    code, out, _ = run_cli(["suite", "compare", first, second, "--json"], capsys)
    cmp_rows = json.loads(out)
    att = next(r for r in cmp_rows if r["metric"] == "attribution_rate")
    assert att["delta"] == 0 and att["verdict"].startswith("too few documents in common")
    code, _, err = run_cli(["suite", "report", "S-nope"], capsys)
    assert code == 2 and "S-nope" in err


def test_shards_merge_to_the_report_of_one_machine(tmp_path, capsys, server):
    s = write_suite(tmp_path, server.base_url, repeats=3)
    code, out, _ = run_cli(
        ["suite", "run", str(s), "--yes", "--out", str(tmp_path / "all"), "--json"], capsys
    )
    whole = json.loads(out[out.index("{") :])
    folders = []
    for i in (1, 2, 3):
        code, out, _ = run_cli(
            [
                "suite",
                "run",
                str(s),
                "--yes",
                "--shard",
                f"{i}/3",
                "--out",
                str(tmp_path / f"shard{i}"),
                "--json",
            ],
            capsys,
        )
        assert code == 0
        sid = json.loads(out[out.index("{") :])["suite_id"]
        folders.append(str(tmp_path / f"shard{i}" / sid))
    code, out, err = run_cli(["suite", "merge", *folders, "--json"], capsys)
    assert code == 0, err
    merged = json.loads(out)["report"]
    assert merged == whole["report"]
    code, out, _ = run_cli(["suite", "merge", *folders, "--fail-under", "attribution=0.9"], capsys)
    assert code == 0 and "PASS" in out
    code, _, err = run_cli(["suite", "merge", folders[0], folders[1]], capsys)
    assert code == 2 and "do not make a whole suite" in err


def test_instruction_variants_reach_the_model_and_are_hashed(tmp_path, capsys, server):
    (tmp_path / "terse.txt").write_text("ZEBRA-RULE: answer tersely.", encoding="utf-8")
    (tmp_path / "own.txt").write_text("OWN-PROMPT: you revise documents.", encoding="utf-8")
    s = write_suite(tmp_path, server.base_url, repeats=1)
    s.write_text(
        s.read_text(encoding="utf-8").replace(
            'documents = [{ corpus = "briefs", sample = 2 }]',
            'documents = [{ corpus = "briefs", sample = 1 }]',
        )
        + '[[variants]]\nname = "default"\n'
        '[[variants]]\nname = "terse"\ninstructions = "terse.txt"\nhow = "extend"\n'
        '[[variants]]\nname = "own"\ninstructions = "own.txt"\nhow = "replace"\n',
        encoding="utf-8",
    )
    code, out, err = run_cli(
        ["suite", "run", str(s), "--yes", "--out", str(tmp_path / "o")], capsys
    )
    assert code == 0, err
    systems = [
        m["content"]
        for body in server.requests
        for m in body["messages"]
        if m["role"] == "system" and "tools" in body
    ]
    assert any("ZEBRA-RULE" in t and "revision agent" in t for t in systems)  # extended
    assert any(t.startswith("OWN-PROMPT") for t in systems)  # replaced
    assert any("ZEBRA" not in t and "OWN-PROMPT" not in t for t in systems)  # default
    with SuiteStore() as store:
        items = store.items(_suite_id(out))
    hashes = {i.variant: i.instructions_hash for i in items}
    assert len(set(hashes.values())) == 3


def test_new_writes_a_template_that_loads_and_never_overwrites_silently(tmp_path, capsys):
    target = tmp_path / "mine.toml"
    code, out, _ = run_cli(["suite", "new", str(target), "--model", "m1"], capsys)
    assert code == 0 and target.is_file()
    s = load_suite(target)
    assert s.name == "mine" and s.models[0].model == "m1" and len(s.documents) == 3
    before = target.read_text(encoding="utf-8")
    code, _, err = run_cli(["suite", "new", str(target)], capsys)
    assert code == 2 and "--force" in err and target.read_text(encoding="utf-8") == before
    code, _, err = run_cli(["suite", "new", str(tmp_path / "x.json")], capsys)
    assert code == 2 and "TOML" in err


def test_the_shipped_example_suite_merges_and_its_bundles_open(capsys):
    folders = sorted(str(p) for p in (ROOT / "resources/suites/example").glob("S-*"))
    assert folders
    code, out, err = run_cli(["suite", "merge", *folders, "--json"], capsys)
    assert code == 0, err
    report = json.loads(out)["report"]
    assert report["runs"] >= 6 and report["combinations"]
    from engine.suite.store import read_results, results_items

    for folder in folders:
        for it in results_items(read_results(folder), folder):
            assert it.status == "finished"
            assert (Path(it.bundle) / "manifest.json").is_file()


@pytest.mark.parametrize(
    "body",
    ["rounds = " + "9" * 5000 + "\n", "repeats = 1e400\n", "[limits]\ntimeout = nan\n"],
)
def test_absurd_numbers_in_a_toml_suite_are_one_line_errors(tmp_path, body):
    p = tmp_path / "s.toml"
    p.write_text(
        'documents = ["briefs"]\n' + body + '[[models]]\nbase_url = "http://a/v1"\nmodel = "m"\n'
        if not body.startswith("[limits]")
        else 'documents = ["briefs"]\n[[models]]\nbase_url = "http://a/v1"\nmodel = "m"\n' + body,
        encoding="utf-8",
    )
    with pytest.raises(SuiteError) as e:
        load_suite(p)
    assert str(p) in str(e.value) and "\n" not in str(e.value)


def test_a_suite_or_instructions_that_is_not_a_regular_file_is_refused(tmp_path):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    with pytest.raises(SuiteError) as e:
        load_suite(fifo)
    assert "fifo.toml" in str(e.value)
    os.mkfifo(tmp_path / "rules.txt")
    p = tmp_path / "s.toml"
    p.write_text(
        'documents = ["briefs"]\n[[models]]\nbase_url = "http://a/v1"\nmodel = "m"\n'
        '[[variants]]\nname = "x"\ninstructions = "rules.txt"\n',
        encoding="utf-8",
    )
    with pytest.raises(SuiteError) as e:
        load_suite(p)
    assert "rules.txt" in str(e.value)
    with pytest.raises(SuiteError):
        load_suite("/dev/zero")


def test_the_suite_file_shown_in_the_docs_loads(tmp_path):
    import re

    text = (ROOT / "docs" / "suites.md").read_text(encoding="utf-8")
    example = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    (tmp_path / "memo.html").write_text(
        "<html><body><p>Staff work two days a week.</p></body></html>", encoding="utf-8"
    )
    comments = [
        {"id": "c1", "body": "three", "anchor": {"quote": "two days", "prefix": "", "suffix": ""}}
    ]
    (tmp_path / "memo.comments.json").write_text(json.dumps(comments), encoding="utf-8")
    (tmp_path / "terse.txt").write_text("Answer tersely.", encoding="utf-8")
    (tmp_path / "suite.toml").write_text(example, encoding="utf-8")
    s = load_suite(tmp_path / "suite.toml")
    assert len(s.models) == 2 and len(s.variants) == 2 and s.turns_per_round == 16
    assert s.documents[0].name == "memo"


def test_na_reasons_are_counted_over_runs_and_plain():
    from engine.suite.report import combination_cell

    rows = [_row("A", r, "d", None) for r in (1, 2)]
    for it in rows:
        it.metrics["claim_accuracy"] = {
            "value": None,
            "reason": "the agent's report is unusable: the report was cut off at its limit "
            "of 1150 tokens (the report is not valid JSON: unterminated string starting at "
            "character 2032 of 2113)",
        }
    combo = build_report(rows)["combinations"][0]
    cell = combination_cell(combo, "claim_accuracy")
    assert cell.startswith("N/A — in all 2 runs: ") and "character 2032" not in cell
    assert combination_cell(combo, "attribution_rate") == (
        "N/A — in all 2 runs: no actionable comments"
    )


def test_sigterm_interrupts_the_suite_cleanly_and_it_resumes(tmp_path):
    with ScriptedServer(FixEverything(), latency=0.5) as srv:
        s = write_suite(tmp_path, srv.base_url, repeats=2)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "engine.cli.main",
                "suite",
                "run",
                str(s),
                "--yes",
                "--out",
                str(tmp_path / "o"),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        sid, seen = None, []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            seen.append(line)
            if line.startswith("Suite run S-") and sid is None:
                sid = line.split()[2].rstrip(";")
            if line.strip().startswith("running"):
                break
        time.sleep(1.5)  # the run is between model calls (0.5 s each): its bundle is due
        proc.send_signal(signal.SIGTERM)
        proc.send_signal(signal.SIGTERM)  # a second one never breaks the bookkeeping
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 130, "".join(seen) + out
        assert "interrupted" in out and sid
        with SuiteStore() as store:
            assert store.run_row(sid).status == "interrupted"
            stopped = [i for i in store.items(sid) if i.status == "stopped"]
        assert stopped and all(i.bundle for i in stopped)  # the cancelled run kept its bundle
        assert arl(["suite", "resume", sid]) == 0
        with SuiteStore() as store:
            assert {i.status for i in store.items(sid)} == {"finished"}


def test_a_forged_figure_makes_the_run_a_tampered_failure(tmp_path, capsys, server):
    s = write_suite(tmp_path, server.base_url)
    code, out, _ = run_cli(["suite", "run", str(s), "--yes", "--out", str(tmp_path / "o")], capsys)
    sid = _suite_id(out)
    with SuiteStore() as store:
        victim = store.items(sid)[0]
    scores = Path(victim.bundle) / "metrics.json"
    data = json.loads(scores.read_text(encoding="utf-8"))
    data["attribution_rate"] = {"value": 0.01, "numerator": 1, "denominator": 100}
    scores.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = run_cli(["suite", "report", sid, "--json"], capsys)
    combo = json.loads(out)["report"]["combinations"][0]
    assert combo["finished"] == 3 and combo["failed"] == 1
    assert combo["failures"][0]["reason"].startswith("TAMPERED: ")
    assert combo["metrics"]["attribution_rate"]["n"] == 3


def test_the_html_report_is_self_contained_and_marks_a_tampered_run(tmp_path, capsys, server):
    import re

    s = write_suite(tmp_path, server.base_url)
    code, out, _ = run_cli(["suite", "run", str(s), "--yes", "--out", str(tmp_path / "o")], capsys)
    sid = _suite_id(out)
    with SuiteStore() as store:
        victim = store.items(sid)[0]
    figures = Path(victim.bundle) / "metrics.json"
    data = json.loads(figures.read_text(encoding="utf-8"))
    data["attribution_rate"] = {"value": 0.01, "numerator": 1, "denominator": 100}
    figures.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run_cli(["suite", "report", sid, "--html", str(tmp_path / "page")], capsys)
    assert code == 0, err
    page = (tmp_path / "page" / "index.html").read_text(encoding="utf-8")
    assert "<script" not in page.lower() and "<svg" in page
    assert not re.search(r"(src|href)=\"(https?:)?//", page)  # no external address
    assert page.count('class="tampered">TAMPERED') == 1
    assert "over 2 documents x 2 repeats" in page
    for link in re.findall(r'href="(runs/\d+)/scorecard.html"', page):
        assert (tmp_path / "page" / link / "scorecard.html").is_file()


def test_the_trend_leaves_a_tampered_run_out_and_says_so(tmp_path, capsys, server):
    """The trend checks every suite run's bundles as ``arl suite report`` does: a forged
    figure in an earlier run is not drawn as if valid."""
    from engine.suite.report import trend_note, trend_points
    from engine.suite.store import read_results, results_items

    s = write_suite(tmp_path, server.base_url)
    code, out, _ = run_cli(["suite", "run", str(s), "--yes", "--out", str(tmp_path / "o")], capsys)
    first = _suite_id(out)
    code, out, _ = run_cli(["suite", "run", str(s), "--yes", "--out", str(tmp_path / "o")], capsys)
    second = _suite_id(out)
    with SuiteStore() as store:
        victim = store.items(first)[0]
        folder = store.run_row(second).out_dir
    figures = Path(victim.bundle) / "metrics.json"
    data = json.loads(figures.read_text(encoding="utf-8"))
    data["attribution_rate"] = {"value": 0.01, "numerator": 1, "denominator": 100}
    figures.write_text(json.dumps(data), encoding="utf-8")
    shown = read_results(folder)
    points = trend_points(shown, results_items(shown, Path(folder)))
    assert [p["suite_id"] for p in points] == [first, second]
    forged, clean = points
    assert list(forged["tampered"]) == [victim.key] and clean["tampered"] == {}
    combo = next(
        c
        for c in forged["report"]["combinations"]
        if (c["model"], c["variant"]) == (victim.model, victim.variant)
    )
    assert combo["failed"] == 1 and combo["failures"][0]["reason"].startswith("TAMPERED: ")
    assert combo["metrics"]["attribution_rate"]["n"] == combo["finished"]  # left out
    assert trend_note(forged).startswith("1 run left out of the figures: its bundle is TAMPERED (")
    assert trend_note(clean) == ""
    # the shown run's own check, when the caller has made it, is not made again
    again = trend_points(shown, results_items(shown, Path(folder)), {"x": "a reason"})
    assert again[-1]["tampered"] == {"x": "a reason"}
