"""The `sembench` console script: the workbench by default, the CLI for every verb."""

from __future__ import annotations

import pytest

import tui.app
from tui.entry import main, tui_db


def test_which_arguments_open_the_workbench() -> None:
    assert tui_db([]) == (True, None)
    assert tui_db(["--db", "log.db"]) == (True, "log.db")
    assert tui_db(["--db=log.db"]) == (True, "log.db")
    assert tui_db(["families"]) == (False, None)
    assert tui_db(["--db", "log.db", "families"]) == (False, None)


def test_main_opens_the_workbench_or_passes_through(monkeypatch: pytest.MonkeyPatch, capsys, tmp_path) -> None:
    opened: list[str | None] = []
    monkeypatch.setattr(tui.app, "run_app", lambda db=None, fresh=False: opened.append(db))
    main([])
    main(["--db", str(tmp_path / "log.db")])
    assert opened == [None, str(tmp_path / "log.db")]
    with pytest.raises(SystemExit) as exit_info:
        main(["families"])
    assert exit_info.value.code in (0, None)
    assert "cascade" in capsys.readouterr().out


def test_a_bad_log_database_is_one_line_not_a_traceback(tmp_path, capsys) -> None:
    bad = tmp_path / "not-a-db.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(SystemExit) as exit_info:
        tui.app.run_app(str(bad))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "not-a-db.db" in err
