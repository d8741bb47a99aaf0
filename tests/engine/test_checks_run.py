"""Declared checks in a review run, against the scripted server (tests/helpers/
scripted_server.py): an agent that drops a placeholder ends "changes requested", the next
round's request carries the check's output word for word, the bundle holds checks.toml
and checks.json, verify re-derives them, and a forged result is caught (exit 3)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from engine.agent.config import AgentConfig
from engine.bundle.read import open_bundle, verify_bundle
from engine.checks.config import parse_checks
from engine.events import ChecksComputed
from engine.models import Comment
from engine.run.checking import RunChecks
from engine.run.start import prepare_document, run_review
from engine.score.scoring import Version
from engine.workspace import Workspace
from tests.helpers.scripted_server import (
    SAMPLE_HTML,
    Churner,
    FixEverything,
    ScriptedServer,
    sample_comments,
)

TEMPLATE = SAMPLE_HTML.replace(
    "<p>This policy takes effect",
    "<p>Dear {{FirstName}}, see <a href='https://x.example/faq'>the FAQ</a>.</p>\n<p>This policy takes effect",
)
CHECKS = "placeholders = true\nlinks = true\nsections = true\nmax_length_drop = 0.3\nnumbers_outside_comments = true\n"


def _config(srv: ScriptedServer) -> AgentConfig:
    return AgentConfig(
        base_url=srv.base_url,
        model=srv.model,
        api_key=None,
        request_timeout=10,
        max_retries=1,
        backoff_initial=0.01,
        backoff_max=0.05,
    )


def _setup(tmp_path):
    ws = Workspace(tmp_path / "ws.sqlite3")
    text = Version.from_source(TEMPLATE, "html").text
    doc = prepare_document(
        ws,
        "Remote work policy",
        TEMPLATE,
        "html",
        [Comment.from_json(o) for o in sample_comments(text)],
    )
    return ws, doc


async def _run(tmp_path, agent, rounds=2):
    ws, doc = _setup(tmp_path)
    events = []
    checks = RunChecks(parse_checks(CHECKS, "checks.toml"))
    with ScriptedServer(agent) as srv:
        outcome = await run_review(
            ws,
            doc,
            _config(srv),
            rounds=rounds,
            out_dir=tmp_path / "bundles",
            on_event=events.append,
            checks=checks,
        )
        requests = list(srv.requests)
    return outcome, events, requests


async def test_dropped_placeholder_ends_changes_requested_and_the_next_round_is_told(tmp_path):
    outcome, events, requests = await _run(tmp_path, Churner("{{FirstName}}", "Customer"))
    assert outcome.status == "completed"
    assert outcome.checks_blocked is True and outcome.outcome == "changes requested"
    assert outcome.to_json()["outcome"] == "changes requested"
    computed = [e for e in events if isinstance(e, ChecksComputed)]
    assert [e.round for e in computed] == [1, 2] and all(e.blocked for e in computed)
    failing = [r for r in computed[0].results if r["status"] == "fail"]
    assert [r["name"] for r in failing] == ["placeholders"]
    output = failing[0]["output"]
    assert output.startswith('lost "{{FirstName}}" from: ')
    # Every comment was resolved in round 1, yet the run went on to round 2 because a
    # check failed; round 2's request carries the check's output word for word.
    round2 = [r for r in requests if any(output in str(m.get("content")) for m in r["messages"])]
    assert round2, "no request carried the check's output"
    first_user = next(m for m in round2[0]["messages"] if m["role"] == "user")
    assert "Round 2 of 2" in first_user["content"] and output in first_user["content"]
    assert not any(output in json.dumps(r) for r in requests[:1])  # round 1 did not know it

    b = open_bundle(outcome.bundle)
    assert b.checks is not None and b.checks["outcome"] == "changes requested"
    assert b.checks_toml == CHECKS
    assert "checks.toml" in b.manifest["files"] and "checks.json" in b.manifest["files"]
    final = b.checks["final"]
    (rev,) = [r for r in final["revised"] if r["name"] == "placeholders"]
    from engine.checks.results import version_sha256

    assert rev["sha256"] == version_sha256(b.version("v2").source)
    assert {r["sha256"] for r in final["reviewed"]} == {version_sha256(b.version("v1").source)}
    result = verify_bundle(outcome.bundle)
    assert result.ok, [d.line() for d in result.rederivation.differences]
    assert set(result.rederivation.checks) == {"round 1 checks", "round 2 checks", "final checks"}


async def test_fixing_agent_passes_every_check(tmp_path):
    outcome, events, _ = await _run(tmp_path, FixEverything(), rounds=2)
    assert outcome.checks_blocked is False and outcome.outcome is None
    computed = [e for e in events if isinstance(e, ChecksComputed)]
    assert len(computed) == 1 and not computed[0].blocked
    assert verify_bundle(outcome.bundle).ok


def _forge(bundle, tmp_path, edit):
    """A copy of the bundle with checks.json edited and its manifest hash updated (a
    forger who rewrites both; no signature in these runs)."""
    import hashlib

    copy = tmp_path / "forged"
    shutil.copytree(bundle, copy)
    data = json.loads((copy / "checks.json").read_text())
    edit(data)
    raw = (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode()
    (copy / "checks.json").write_bytes(raw)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["files"]["checks.json"] = hashlib.sha256(raw).hexdigest()
    (copy / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
    return copy


async def test_a_forged_check_result_is_caught_by_verify(tmp_path):
    outcome, _, _ = await _run(tmp_path, Churner("{{FirstName}}", "Customer"), rounds=1)
    assert verify_bundle(outcome.bundle).ok

    def pass_it(data):
        for r in data["final"]["revised"]:
            if r["name"] == "placeholders":
                r.update(
                    status="pass", summary="every placeholder kept (1)", output="", findings=[]
                )
        data["final"]["blocked"] = False
        data["outcome"] = None

    forged = _forge(outcome.bundle, tmp_path, pass_it)
    result = verify_bundle(forged)
    assert result.tampered
    lines = [d.line() for d in result.rederivation.differences]
    assert any(
        "final checks: placeholders (revised) status: stored 'pass', recomputed 'fail'" in x
        for x in lines
    ), lines
    assert any("outcome" in x for x in lines)

    from engine.cli.main import main

    assert main(["bundle", "verify", str(forged)]) == 3


async def test_a_result_bound_to_another_version_is_caught(tmp_path):
    outcome, _, _ = await _run(tmp_path, FixEverything(), rounds=1)

    def rebind(data):
        for r in data["final"]["revised"]:
            r["sha256"] = "0" * 64

    result = verify_bundle(_forge(outcome.bundle, tmp_path, rebind))
    assert result.tampered
    assert any("sha256" in d.line() for d in result.rederivation.differences)


async def test_a_changed_checks_file_is_caught(tmp_path):
    outcome, _, _ = await _run(tmp_path, Churner("{{FirstName}}", "Customer"), rounds=1)
    import hashlib

    copy = tmp_path / "edited"
    shutil.copytree(outcome.bundle, copy)
    (copy / "checks.toml").write_text('unverified = "show"\nlinks = true\n')
    assert verify_bundle(copy).tampered  # hashed in the manifest
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["files"]["checks.toml"] = hashlib.sha256(
        (copy / "checks.toml").read_bytes()
    ).hexdigest()
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=1))
    result = verify_bundle(copy)  # hashes agree now; the re-derivation does not
    assert result.tampered
    assert any("declared checks" in d.line() for d in result.rederivation.differences)


# -- the gate's exit codes ------------------------------------------------------------------

SE = Path(__file__).resolve().parents[1] / "data/standardebooks/0159a89"


def _score_args(tmp_path, checks: str, *extra: str) -> list[str]:
    (tmp_path / "checks.toml").write_text(checks)
    comments = tmp_path / "comments.json"
    comments.write_text(
        json.dumps(
            {"comments": [{"id": "c1", "body": "x", "anchor": {"quote": "Standard Ebooks"}}]}
        )
    )
    return [
        "score",
        "--v1",
        str(SE / "colophon.v1.xhtml"),
        "--v2",
        str(SE / "colophon.v2.xhtml"),
        "--comments",
        str(comments),
        "--checks",
        str(tmp_path / "checks.toml"),
        *extra,
    ]


def test_score_gate_exit_codes(tmp_path, capsys):
    from engine.cli.main import main

    # The real commit removed the edition's dates outside every comment: a FAIL.
    assert main(_score_args(tmp_path, CHECKS)) == 0
    out = capsys.readouterr().out
    assert "FAIL Numbers and dates outside comments" in out
    assert main(_score_args(tmp_path, CHECKS, "--gate")) == 4
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("CHANGES REQUESTED: ")
    assert main(_score_args(tmp_path, "links = true\n", "--gate")) == 0
    capsys.readouterr()
    assert main(_score_args(tmp_path, CHECKS, "--gate", "--json")) == 4
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "changes requested" and data["checks"]["blocked"] is True
    assert main(_score_args(tmp_path, "links = yes\n", "--gate")) == 2
    err = capsys.readouterr().err
    assert err.startswith("arl: ") and "checks.toml: not valid TOML" in err


def test_score_unverified_command_blocks_or_shows(tmp_path, capsys):
    from engine.cli.main import main

    cmd = f'[[command]]\nname = "lint"\nargv = [{json.dumps(sys.executable)}, "-c", "pass", "{{file}}"]\n'
    assert main(_score_args(tmp_path, "links = true\n" + cmd, "--gate")) == 4
    captured = capsys.readouterr()
    assert "UNVERIFIED Command: lint: commands are not allowed" in captured.out
    assert "lint: " in captured.err and "will NOT run" in captured.err  # listed before
    show = 'unverified = "show"\nlinks = true\n' + cmd
    assert main(_score_args(tmp_path, show, "--gate")) == 0
    assert main(_score_args(tmp_path, "links = true\n" + cmd, "--gate", "--allow-commands")) == 0
    assert "PASS Command: lint: exit status 0" in capsys.readouterr().out


def test_run_gate_exit_code(tmp_path, capsys):
    from engine.cli.main import main

    doc = tmp_path / "doc.html"
    doc.write_text(TEMPLATE)
    text = Version.from_source(TEMPLATE, "html").text
    comments = tmp_path / "comments.json"
    comments.write_text(json.dumps({"comments": sample_comments(text)}))
    (tmp_path / "checks.toml").write_text(CHECKS)
    with ScriptedServer(Churner("{{FirstName}}", "Customer")) as srv:
        args = [
            "run",
            "--yes",
            "--doc",
            str(doc),
            "--comments",
            str(comments),
            "--base-url",
            srv.base_url,
            "--model",
            srv.model,
            "--rounds",
            "1",
            "--out",
            str(tmp_path / "b"),
            "--workspace",
            str(tmp_path / "ws.sqlite3"),
            "--no-sign",
            "--checks",
            str(tmp_path / "checks.toml"),
        ]
        assert main(args) == 0
        assert "CHANGES REQUESTED" in capsys.readouterr().out
        assert main([*args, "--gate"]) == 4


def test_suite_takes_checks_and_its_gate_exits_4(tmp_path, capsys):
    from engine.cli.main import main

    # A style rule against SHOUTING: the scripted agent's fixes upper-case each passage.
    code = "import re, sys; sys.exit(1 if re.search('[A-Z]{8,}', open(sys.argv[1]).read()) else 0)"
    fails = json.dumps([sys.executable, "-c", code, "{file}"])
    (tmp_path / "checks.toml").write_text(f'[[command]]\nname = "lint"\nargv = {fails}\n')
    with ScriptedServer(FixEverything()) as srv:
        suite = tmp_path / "suite.toml"
        suite.write_text(
            "\n".join(
                [
                    'name = "t"',
                    "rounds = 1",
                    "repeats = 1",
                    'documents = [{ corpus = "briefs", sample = 1 }]',
                    'checks = "checks.toml"',
                    "[[models]]",
                    'name = "scripted"',
                    f'base_url = "{srv.base_url}"',
                    'model = "scripted-model"',
                ]
            )
            + "\n"
        )
        base = ["suite", "run", str(suite), "--yes", "--out", str(tmp_path / "o"), "--gate"]
        home = {"ARL_HOME": str(tmp_path / "home")}
        with _env(home):
            assert main([*base, "--allow-commands"]) == 4
            out = capsys.readouterr()
            assert (
                "changes requested" in out.out
                and "Commands the declared checks will run" in out.err
            )
    bad = tmp_path / "bad.toml"
    bad.write_text(suite.read_text().replace('checks = "checks.toml"', "checks = { lenght = 1 }"))
    with _env(home):
        assert main(["suite", "run", str(bad), "--yes"]) == 2
    assert 'unknown key "lenght"' in capsys.readouterr().err


class _env:
    def __init__(self, values):
        self.values, self.old = values, {}

    def __enter__(self):
        import os

        for k, v in self.values.items():
            self.old[k] = os.environ.get(k)
            os.environ[k] = v

    def __exit__(self, *exc):
        import os

        for k, v in self.old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


async def test_every_view_says_changes_requested_after_tampered_only(tmp_path, capsys):
    from engine.bundle.bundle import own_scorecard
    from engine.cli.main import main

    outcome, _, _ = await _run(tmp_path, Churner("{{FirstName}}", "Customer"), rounds=1)
    page = (outcome.bundle / "scorecard.html").read_text()
    banners = page.split("<h1>", 1)[1]
    first = banners.index("<div class='banner")
    assert banners[first:].startswith("<div class='banner failed'><b>Changes requested.</b>")
    assert "Declared checks" in page and "Placeholders kept" in page
    mine = own_scorecard(open_bundle(outcome.bundle))
    assert mine.index("Changes requested.") < mine.index("The run completed")
    assert main(["bundle", "show", str(outcome.bundle)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("OK: ") and lines[1].startswith("CHANGES REQUESTED: ")
    assert any(x.startswith("  FAIL Placeholders kept") for x in lines)

    def pass_it(data):
        for r in data["final"]["revised"]:
            if r["name"] == "placeholders":
                r.update(
                    status="pass", summary="every placeholder kept (1)", output="", findings=[]
                )

    forged = open_bundle(_forge(outcome.bundle, tmp_path, pass_it))
    page = own_scorecard(forged)
    # TAMPERED first, then the re-derived truth: changes requested, the FAIL shown.
    assert page.index("TAMPERED.") < page.index("Changes requested.")
    assert "every placeholder kept (1)" not in page.split("Declared checks", 1)[1]


async def test_a_command_result_is_recorded_not_rerun(tmp_path, capsys):
    from engine.cli.main import main

    ws, doc = _setup(tmp_path)
    code = "import sys; print('style: 2 warnings'); sys.exit(1 if 'CUSTOMER' in open(sys.argv[1]).read().upper() else 0)"
    toml = (
        CHECKS
        + f'[[command]]\nname = "style"\nargv = {json.dumps([sys.executable, "-c", code, "{file}"])}\n'
    )
    checks = RunChecks(parse_checks(toml, "checks.toml"), allow_commands=True)
    with ScriptedServer(Churner("{{FirstName}}", "Customer")) as srv:
        outcome = await run_review(
            ws, doc, _config(srv), rounds=1, out_dir=tmp_path / "b", checks=checks
        )
    assert verify_bundle(outcome.bundle).ok
    assert main(["bundle", "show", str(outcome.bundle)]) == 0
    out = capsys.readouterr().out
    assert "FAIL Command: style: exit status 1 [recorded, not re-run]" in out
    page = (outcome.bundle / "scorecard.html").read_text()
    assert "recorded, not re-run" in page and "style: 2 warnings" in page


async def test_an_interrupted_run_keeps_its_checks(tmp_path):
    """A run whose process ended is finished from its checkpoint (engine.run.recovery):
    its bundle still holds checks.toml and checks.json, re-derived on verify."""
    from engine.run.recovery import recover_run

    ws, doc = _setup(tmp_path)
    checks = RunChecks(parse_checks(CHECKS, "checks.toml"))
    with ScriptedServer(Churner("{{FirstName}}", "Customer")) as srv:
        first = await run_review(
            ws, doc, _config(srv), rounds=1, out_dir=tmp_path / "b", checks=checks
        )
    cp = ws.checkpoint(first.run_id)
    assert cp["checks"]["toml"] == CHECKS and len(cp["checks"]["rounds"]) == 1
    # The same state, as a run still marked running whose process is gone.
    orphan = ws.start_run(doc, "scripted-model", "http://127.0.0.1:9/v1")
    ws.save_checkpoint(orphan, cp | {"out_dir": str(tmp_path / "recovered")})
    recover_run(ws, ws.run(orphan), out_dir=tmp_path / "recovered")  # as the next start does
    (bundle,) = (tmp_path / "recovered").glob(f"*-{orphan}")
    b = open_bundle(bundle)
    assert b.status == "failed" and b.checks is not None
    assert b.checks["outcome"] == "changes requested" and b.checks_toml == CHECKS
    result = verify_bundle(bundle)
    assert "final checks" in result.rederivation.checks
    assert not any("checks" in d.where for d in result.rederivation.differences)


async def test_compare_says_each_sides_checks(tmp_path):
    from engine.compare import checks_words

    blocked, _, _ = await _run(tmp_path / "a", Churner("{{FirstName}}", "Customer"), rounds=1)
    passed, _, _ = await _run(tmp_path / "b", FixEverything(), rounds=1)
    a, b = open_bundle(blocked.bundle), open_bundle(passed.bundle)
    assert checks_words(a) == "changes requested (Placeholders kept FAIL)"
    assert checks_words(b) == "no check blocks: 100% (5 of 5) passed"

    class NoChecks:
        checks = None

    assert checks_words(NoChecks()) == "none declared"
