"""The `sembench` console script: the CLI, with the TUI as its default when no verb is given.

`sembench` and `sembench --db LOG.db` open the workbench (`sembench --unsandboxed ...` lets it run programs
unconfined where bubblewrap cannot run, see docs/sandbox.md); anything else goes to the CLI (`core.cli`).
"""

from __future__ import annotations

import os
import sys


def tui_db(args: list[str]) -> tuple[bool, str | None]:
    """Whether `args` ask for the workbench, and the log database they name (`--fresh` is read apart)."""
    args = [a for a in args if a != "--fresh"]
    if not args:
        return True, None
    if len(args) == 2 and args[0] == "--db":
        return True, args[1]
    if len(args) == 1 and args[0].startswith("--db="):
        return True, args[0].split("=", 1)[1]
    return False, None


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--unsandboxed" and tui_db(args[1:])[0]:
        # `sembench --unsandboxed`: the workbench may run programs unconfined where bubblewrap cannot run
        os.environ["SEMBENCH_UNSANDBOXED"] = "1"
        args = args[1:]
    is_tui, db = tui_db(args)
    if not is_tui:
        from core.cli import main as cli_main  # not on the workbench's start-up path

        cli_main(args)
        return
    # A lone escape is told from an arrow key's sequence after ESCDELAY ms (tui.driver); Textual reads it
    # once, when imported. A user's own value is kept.
    os.environ.setdefault("ESCDELAY", "25")
    from tui.app import run_app

    run_app(db, fresh="--fresh" in args)
