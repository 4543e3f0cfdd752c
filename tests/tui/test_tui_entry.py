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


@pytest.mark.parametrize(("given", "delay"), [(None, 0.025), ("80", 0.08)])
def test_escape_waits_25_ms_for_a_sequence_unless_the_user_says(given: str | None, delay: float) -> None:
    """Textual waits ESCDELAY (100 ms by default) after a lone escape byte; the workbench sets 25 ms before
    Textual reads it, and keeps a value the user set."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    probe = ("import sys, types, tui.entry\n"
             "assert 'textual' not in sys.modules\n"
             "app = types.ModuleType('tui.app')\n"
             "app.run_app = lambda db=None, fresh=False: print(__import__('textual.constants').constants.ESCAPE_DELAY)\n"
             "sys.modules['tui.app'] = app\n"
             "tui.entry.main([])\n")
    env = {k: v for k, v in os.environ.items() if k != "ESCDELAY"}
    if given is not None:
        env["ESCDELAY"] = given
    done = subprocess.run([sys.executable, "-c", probe], cwd=Path(__file__).resolve().parents[2], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout.strip()) == delay
