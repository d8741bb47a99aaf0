"""Two programs opening a new results store at the same moment (the window and ``arl
suite`` at first use) both get it: the check and the schema are one write transaction
(``SuiteStore._claim_schema``). Before, the second one could see the tables without their
schema version and read "not a suites results store; move it away" of a good store (seen
as a flaky GUI test)."""

from __future__ import annotations

import threading

import pytest

from engine.suite.store import SuiteStore, SuiteStoreError


def _open_it(path, start: threading.Barrier, errors: list[BaseException]) -> None:
    start.wait()
    try:
        SuiteStore(path).close()
    except BaseException as exc:  # collected for the assert
        errors.append(exc)


def test_stores_opened_together_on_a_new_file_all_open(tmp_path):
    errors: list[BaseException] = []
    for round_ in range(30):
        path = tmp_path / f"r{round_}" / "suites.sqlite"
        start = threading.Barrier(6)
        threads = [threading.Thread(target=_open_it, args=(path, start, errors)) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors[:3]


def test_a_file_of_other_tables_is_still_refused_and_left_as_it_was(tmp_path):
    import sqlite3

    path = tmp_path / "suites.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (x TEXT)")
    db.commit()
    db.close()
    with pytest.raises(SuiteStoreError, match="not a suites results store"):
        SuiteStore(path)
    db = sqlite3.connect(path)
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert names == {"notes"}
    db.close()
