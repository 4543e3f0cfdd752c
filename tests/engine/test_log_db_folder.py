"""`--db` (or SEMBENCH_DB) naming a folder that does not exist is a typo more often than a wish: one line,
exit 2, nothing created. In a folder that exists the database is created; the default location is made."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.store.workspace import Workspace


def sembench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from tui.entry import main; main()", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=120)


@pytest.mark.parametrize("verb", [(), ("runs",)], ids=["workbench", "cli"])
def test_a_db_in_a_missing_folder_is_one_line_and_exit_2(tmp_path: Path, verb: tuple[str, ...]) -> None:
    path = tmp_path / "no" / "such" / "x.db"
    done = sembench("--db", str(path), *verb)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"error: {path}: no folder {path.parent}: the log database is created only in a folder that exists "
        "(create it, or give another --db / SEMBENCH_DB)"]
    assert not (tmp_path / "no").exists()


def test_sembench_db_in_a_missing_folder_too(tmp_path: Path) -> None:
    path = tmp_path / "typo" / "log.db"
    done = sembench("runs", env={"SEMBENCH_DB": str(path)})
    assert done.returncode == 2 and "no folder" in done.stderr and not path.parent.exists()


def test_in_a_folder_that_exists_or_the_default_the_database_is_created(tmp_path: Path, monkeypatch) -> None:
    Workspace(tmp_path / "x.db").close()
    assert (tmp_path / "x.db").is_file()
    monkeypatch.delenv("SEMBENCH_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    Workspace().close()
    assert (tmp_path / "data" / "sembench" / "log.db").is_file()
