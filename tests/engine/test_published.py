"""Publishing to a folder: index newest first, self-contained pages with no script and no
network, signed bundles publish their fingerprint, tampered ones are marked."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from engine.bundle import signing
from engine.bundle.read import open_bundle
from engine.bundle.write import content_of, write_bundle
from engine.cli.main import main as arl
from engine.publish import published
from tests.engine.test_bundle import make_bundle
from tests.helpers.relabel import trace_as


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("ARL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ARL_TRUSTED_KEYS", str(tmp_path / "trusted.json"))
    monkeypatch.delenv("ARL_PUBLISHED_FOLDER", raising=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three bundles: finished on three days, written in another order; one signed."""
    base = make_bundle(tmp_path_factory.mktemp("base"))
    b = open_bundle(base)
    out = tmp_path_factory.mktemp("runs")
    key = signing.new_private_key()
    made = {}
    for name, day, model, k in (
        ("b-mid", "2026-11-15", "model-mid", None),
        ("a-new", "2026-11-29", "model-new", key),
        ("c-old", "2026-11-01", "model-old", None),
    ):
        content = content_of(
            b,
            finished_at=f"{day}T10:00:00Z",
            run_id=f"run-{name}",
            model=model,
            trace=trace_as(b.trace, model),
            signing_key=k,
        )
        made[name] = write_bundle(out / name, content)
    return made, signing.key_fingerprint(key)


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _static(page: str) -> _Collect:
    """The page needs no script and no network: no script tag, no event handler, no
    remote URL, a CSP that forbids every fetch."""
    p = _Collect()
    p.feed(page)
    assert not any(t == "script" for t, _ in p.tags)
    assert not any(k.startswith("on") for _, a in p.tags for k in a)
    for _, a in p.tags:
        for k in ("href", "src"):
            v = a.get(k) or ""
            assert not re.match(r"(?i)\s*(https?:|//|javascript:)", v), v
    csp = [a for t, a in p.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]["content"]
    return p


def test_index_lists_runs_newest_first_and_renders_without_scripts(runs, tmp_path, capsys):
    made, fp = runs
    folder = tmp_path / "shared"
    assert arl(["bundle", "publish", str(made["b-mid"]), "--folder", str(folder)]) == 0
    for name in ("a-new", "c-old"):  # the folder was chosen once
        assert arl(["bundle", "publish", str(made[name])]) == 0
    entries = published.entries(folder)
    assert [e.model for e in entries] == ["model-new", "model-mid", "model-old"]
    index = (folder / "index.html").read_text(encoding="utf-8")
    text = " ".join(_static(index).text)
    order = [text.index(m) for m in ("model-new", "model-mid", "model-old")]
    assert order == sorted(order)
    for metric in ("Attribution", "Collateral churn", "Claim accuracy", "Tokens per fix"):
        assert metric in text
    assert "Remote work policy" in text and "100%" in text
    # the signed run publishes its fingerprint and its verification
    assert fp in text and "unknown key" in text
    for e in entries:
        page = (folder / e.scorecard).read_text(encoding="utf-8")
        _static(page)
        assert e.run_id in page
        assert Path(e.bundle).is_dir()  # linked back to its bundle
    capsys.readouterr()
    assert arl(["published", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "model-new" in lines[0] and "model-old" in lines[2] and fp in lines[0]
    assert arl(["published", "open", "1"]) == 0
    out = capsys.readouterr().out
    assert f"published from: {made['a-new'].resolve()}" in out
    assert "bundle.zip (the copy in the published folder)" in out
    assert arl(["published", "export", str(tmp_path / "copy")]) == 0
    assert (tmp_path / "copy" / "index.html").read_text(encoding="utf-8") == index


def test_the_index_names_each_bundle_by_its_document_and_time_not_its_run_id(runs, tmp_path):
    """The bundle column's link read "bundle.zip" over "run-…": now the document's title
    and when the run finished, in words; the run id is the link's tooltip only."""
    made, _ = runs
    folder = published.set_published_folder(tmp_path / "named")
    published.publish(made["b-mid"])
    index = (folder / "index.html").read_text(encoding="utf-8")
    parsed = _static(index)
    (entry,) = published.entries(folder)
    links = [a for tag, a in parsed.tags if tag == "a" and a.get("href") == entry.bundle_copy]
    assert len(links) == 1 and links[0].get("title") == "run-b-mid"
    text = " ".join(parsed.text)
    assert "Remote work policy, 15 Nov 2026, 10:00 UTC" in text
    assert "run-b-mid" not in text and "bundle.zip" not in text


def test_a_run_with_no_model_reads_not_recorded_in_the_index():
    """A revision checked here names no model: its cell said nothing at all."""
    from engine.publish.entry import PublishedEntry
    from engine.publish.index import render_index

    names = ("run_id", "model", "document_title", "status", "created_at", "finished_at")
    entry = PublishedEntry(
        **dict.fromkeys(names, ""),
        published_at="2026-12-01T10:00:00Z",
        bundle="b",
        scorecard="s.html",
    )
    cells = re.findall(r"<td>(.*?)</td>", render_index([entry]))
    assert "<span class='muted'>not recorded</span>" in cells


def test_republishing_replaces_and_tampered_is_marked(runs, tmp_path):
    made, _ = runs
    folder = published.set_published_folder(tmp_path / "pub")
    published.publish(made["b-mid"])
    published.publish(made["b-mid"])
    assert len(published.entries(folder)) == 1
    forged = tmp_path / "forged"
    shutil.copytree(made["c-old"], forged)
    v = json.loads((forged / "verdicts.json").read_text())
    v["final"][0]["verdict"] = "untouched"
    (forged / "verdicts.json").write_text(json.dumps(v))
    man = json.loads((forged / "manifest.json").read_text())
    man["files"]["verdicts.json"] = hashlib.sha256(
        (forged / "verdicts.json").read_bytes()
    ).hexdigest()
    (forged / "manifest.json").write_text(json.dumps(man))
    e = published.publish(forged)
    assert e.tampered and "TAMPERED" in e.verification
    # From the command line: published and marked, and the exit code says it (as show).
    assert arl(["bundle", "publish", str(forged)]) == 3
    assert arl(["bundle", "show", str(forged)]) == 3
    page = (folder / e.scorecard).read_text(encoding="utf-8")
    assert "TAMPERED" in page and "stored &#x27;untouched&#x27;" in page
    assert "TAMPERED" in (folder / "index.html").read_text(encoding="utf-8")


def test_no_folder_chosen_is_one_line(runs, capsys):
    made, _ = runs
    assert arl(["bundle", "publish", str(made["b-mid"])]) == 2
    err = capsys.readouterr().err
    assert "no publishing folder chosen" in err and len(err.strip().splitlines()) == 1


def test_the_bundle_is_copied_into_the_folder_and_linked_relatively(runs, tmp_path):
    """Colleagues opening the shared folder reach the evidence: each run's bundle is in
    the folder as bundle.zip (still verifying, signature included) and the index links
    it relatively, never as a file:// path of the publishing machine."""
    from engine.bundle.read import verify_bundle

    made, fp = runs
    folder = tmp_path / "shared"
    published.publish(made["a-new"], folder)
    e = published.entries(folder)[0]
    assert e.bundle_copy == str(Path(e.scorecard).parent / "bundle.zip")
    copy = folder / e.bundle_copy
    result = verify_bundle(copy)
    assert result.ok and result.signature.fingerprint == fp
    index = (folder / "index.html").read_text(encoding="utf-8")
    hrefs = [a.get("href") for t, a in _static(index).tags if t == "a"]
    assert e.bundle_copy in hrefs
    assert "file:" not in index and str(tmp_path) not in " ".join(h or "" for h in hrefs)
    # The whole folder can move: the copy travels with it.
    moved = tmp_path / "moved"
    shutil.copytree(folder, moved)
    shutil.rmtree(folder)
    assert verify_bundle(moved / e.bundle_copy).ok


def test_a_tampered_bundle_publishes_its_recomputed_metrics(runs, tmp_path):
    """A bundle whose metrics.json was edited after signing does not publish the edit:
    the index shows the recomputed figure, says the signature does not cover the files."""
    made, _ = runs
    forged = tmp_path / "forged"
    shutil.copytree(made["a-new"], forged)
    m = json.loads((forged / "metrics.json").read_text())
    stated = m["attribution_rate"]
    assert stated["value"] != 0
    m["attribution_rate"] = dict(stated, value=0.0, numerator=0)
    (forged / "metrics.json").write_text(json.dumps(m))
    e = published.publish(forged, tmp_path / "pub")
    assert e.tampered and e.figures == "recomputed"
    assert e.metrics["attribution_rate"]["value"] == stated["value"]
    assert e.signature["state"] == "bad" and e.signature["uncovered"] == "metrics.json"
    index = (tmp_path / "pub" / "index.html").read_text(encoding="utf-8")
    assert "NOT COVERED" in index and "recomputed from its documents" in index
    page = (tmp_path / "pub" / e.scorecard).read_text(encoding="utf-8")
    assert "recomputed from its documents:" in page


def _forge(src: Path, dest: Path) -> Path:
    """An unsigned copy of ``src`` whose first verdict was edited and re-hashed into its
    manifest: TAMPERED (re-derivation differs with the same engine)."""
    shutil.copytree(src, dest)
    v = json.loads((dest / "verdicts.json").read_text())
    v["final"][0]["verdict"] = "untouched"
    (dest / "verdicts.json").write_text(json.dumps(v))
    man = json.loads((dest / "manifest.json").read_text())
    man["files"]["verdicts.json"] = hashlib.sha256(
        (dest / "verdicts.json").read_bytes()
    ).hexdigest()
    (dest / "manifest.json").write_text(json.dumps(man))
    (dest / "signature.json").unlink(missing_ok=True)
    return dest


def _edit_index(folder: Path, edit) -> None:
    obj = json.loads((folder / "index.json").read_text())
    for run in obj["runs"]:
        edit(run)
    (folder / "index.json").write_text(json.dumps(obj))


def _claim_trusted(run: dict) -> None:
    """What an attacker with write access to the shared folder writes into index.json."""
    run["tampered"] = False
    run["verification"] = "Every verdict and metric re-derives from its own files"
    run["signature"] = {
        "state": "signed",
        "fingerprint": "45ad 6ccd ea15 bf69",
        "trusted_as": "Legal team",
        "line": "signed by 45ad 6ccd ea15 bf69 (trusted: Legal team)",
    }
    run["metrics"]["attribution_rate"] = {"value": 1.0, "numerator": 3, "denominator": 3}
    run["figures"] = "stated"
    run["model"] = "edited-model"


def test_an_edited_index_json_shows_no_trust_it_did_not_earn(runs, tmp_path, capsys):
    """Anyone who can write the shared folder can edit index.json: a tampered, unsigned
    run edited to read "signed, trusted: Legal team, 100%" still reads TAMPERED and
    unsigned in entries(), `arl published list` and the next honest publish's index."""
    made, _ = runs
    folder = tmp_path / "shared"
    forged = published.publish(_forge(made["c-old"], tmp_path / "forged"), folder)
    assert forged.tampered
    _edit_index(folder, _claim_trusted)
    (e,) = published.entries(folder)
    assert e.tampered and e.checked and "TAMPERED" in e.verification
    assert e.signature["state"] == "unsigned" and e.trusted_signer == ""
    assert e.model == "model-old" and e.metrics == forged.metrics
    capsys.readouterr()
    assert arl(["published", "list", "--folder", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "TAMPERED" in out and "Legal team" not in out and "edited-model" not in out
    published.publish(made["b-mid"], folder)  # any later honest publish rewrites the index
    index = (folder / "index.html").read_text(encoding="utf-8")
    assert "Legal team" not in index and "edited-model" not in index
    assert index.count("class='tampered'") == 1
    again = json.loads((folder / "index.json").read_text())
    assert [r["tampered"] for r in again["runs"]] == [False, True]


def test_a_missing_or_unreadable_bundle_copy_says_so(runs, tmp_path, capsys):
    made, _ = runs
    folder = tmp_path / "shared"
    published.publish(made["a-new"], folder)
    published.publish(made["b-mid"], folder)
    published.publish(made["c-old"], folder)
    new, mid, old = published.entries(folder)
    (folder / new.bundle_copy).unlink()
    (folder / mid.bundle_copy).write_bytes(b"PK\x03\x04 not really a zip")
    _edit_index(
        folder,
        lambda r: (
            r.update(bundle_copy="../elsewhere/bundle.zip") if r["run_id"] == old.run_id else None
        ),
    )
    got = {e.run_id: e for e in published.entries(folder)}
    assert "is missing" in got[new.run_id].problem
    assert "not a readable bundle" in got[mid.run_id].problem
    assert "names no bundle copy" in got[old.run_id].problem
    for e in got.values():
        assert not e.checked and e.metrics == {} and e.signature == {} and not e.trusted_signer
    capsys.readouterr()
    assert arl(["published", "list", "--folder", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all("NOT CHECKED" in line for line in lines)
    html_page = published.render_index(list(got.values()))
    assert html_page.count("NOT CHECKED") == 3 and "class='num'" not in html_page
    assert "../elsewhere" not in html_page


def test_the_check_mark_is_for_a_trusted_signer_only(runs, tmp_path):
    made, fp = runs
    folder = tmp_path / "shared"
    published.publish(made["a-new"], folder)
    index = (folder / "index.html").read_text(encoding="utf-8")
    (e,) = published.entries(folder)
    assert e.signature["state"] == "signed" and e.trusted_signer == ""
    assert "\u2714 signed" not in index and "an unknown key: not trusted" in index
    signing.set_trusted(fp, "Legal team")
    (e,) = published.entries(folder)  # the trusted-keys store changed: checked again
    assert e.trusted_signer == "Legal team"
    page = published.render_index([e])
    assert "\u2714 signed" in page and "trusted: Legal team" in page


def test_checks_are_cached_by_the_copy_hash(runs, tmp_path, monkeypatch):
    from engine.publish import check as published_check

    made, _ = runs
    folder = tmp_path / "shared"
    published.publish(made["a-new"], folder)
    published.publish(made["b-mid"], folder)
    calls = []
    real = published_check.judge
    monkeypatch.setattr(published_check, "judge", lambda p: calls.append(p) or real(p))
    published_check._memory.clear()  # as a new process: only the cache file
    monkeypatch.setattr(published_check, "_disk_mtime", None)
    assert len(published.entries(folder)) == 2
    assert calls == []  # the publish step recorded both copies in the local cache file
    copy = folder / published.entries(folder)[0].bundle_copy
    # another file in the copy's place is another hash: checked again
    shutil.copyfile(folder / published.entries(folder)[1].bundle_copy, copy)
    published.entries(folder)
    assert calls == []  # that content was checked before (same hash)
    copy.write_bytes(copy.read_bytes() + b"\0")
    published.entries(folder)
    assert len(calls) == 1


def test_published_open_names_the_copy(runs, tmp_path, capsys):
    made, _ = runs
    src = tmp_path / "gone"
    shutil.copytree(made["b-mid"], src)
    folder = tmp_path / "shared"
    published.publish(src, folder)
    shutil.rmtree(src)
    capsys.readouterr()
    assert arl(["published", "open", "1", "--folder", str(folder)]) == 0
    out = capsys.readouterr().out
    (e,) = published.entries(folder)
    assert f"bundle: {folder / e.bundle_copy}" in out and "no longer there" in out


def test_the_next_publish_rewrites_a_scorecard_page_edited_in_the_folder(runs, tmp_path):
    made, _ = runs
    folder = tmp_path / "shared"
    forged = published.publish(_forge(made["c-old"], tmp_path / "forged"), folder)
    page = folder / forged.scorecard
    own = page.read_bytes()
    page.write_text(
        "<html><body>signed, trusted: Legal team; every figure re-derives</body></html>"
    )
    published.publish(made["b-mid"], folder)
    assert page.read_bytes() == own and b"TAMPERED" in own
    (folder / forged.scorecard).unlink()
    published.publish(made["a-new"], folder)
    assert page.read_bytes() == own


def test_the_status_says_the_outcome_the_scorecard_leads_with(runs, tmp_path):
    """A run none of whose comments has a reviewer decision is published as awaiting
    review (the engine's one headline, engine.vocabulary.outcome_headline), never as
    plainly "completed"; the index says the same."""
    from engine.bundle.review import review_figures
    from engine.vocabulary import outcome_headline

    made, _ = runs
    folder = tmp_path / "shared"
    entry = published.publish(made["b-mid"], folder)
    b = open_bundle(made["b-mid"])
    fig = review_figures(b.verdicts["final"], [c.to_json() for c in b.comments_before], {})
    assert fig.awaiting > 0 and fig.actionable >= fig.awaiting
    want = outcome_headline(awaiting=fig.awaiting, actionable=fig.actionable)
    assert want == f"Awaiting review ({fig.awaiting} of {fig.actionable})"
    assert entry.outcome == want and entry.status_words == want and entry.status == "completed"
    [listed] = published.entries(folder)
    assert listed.status_words == want
    index = " ".join(_static((folder / "index.html").read_text(encoding="utf-8")).text)
    assert want in index


def test_the_index_writes_times_in_the_one_time_format():
    """index.html wrote "2026-12-02<br>04:49:26 UTC" while every view reads "2 Dec 2026,
    04:49 UTC" (``engine.vocabulary.when_words``): the one formatter, split on two lines."""
    from engine.publish.index import _when
    from engine.vocabulary import when_words

    stamp = "2026-12-02T04:49:26Z"
    assert when_words(stamp) == "2 Dec 2026, 04:49 UTC"
    assert _when(stamp) == "<span class='when'>2 Dec 2026</span><br>04:49 UTC"
    assert _when("not a time <b>") == "not a time &lt;b&gt;"
