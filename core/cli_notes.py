"""CLI verbs for the researcher's own data and comparisons: `notes` (bookmarks, tags and notes per
instance, the same rows the workbench writes) and `compare` (two runs paired by instance).

`core.cli` calls `register(cli)`; nothing heavy is imported until a verb runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from core.errors import UserError
from core.terminal import echo

FORMAT = click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)


def _workspace(ctx: click.Context) -> Any:
    from core.store import Workspace

    ws = Workspace(ctx.find_root().obj.get("db"))
    ctx.call_on_close(ws.close)  # closed with the command (see core.cli_runs._workspace)
    return ws


def _print_rows(rows: list[dict[str, Any]], columns: list[str], title: str, whole: tuple[str, ...] = ()) -> None:
    """A table of `rows`; the `whole` columns (ids: what a person copies from it) are never cut nor
    wrapped, however narrow the terminal: the others give way."""
    from rich.table import Table
    from rich.text import Text

    from core.terminal import safe_console

    table = Table(title=title)
    for column in columns:
        if column in whole:
            widest = max([len(column), *(len(str(row.get(column, ""))) for row in rows)])
            table.add_column(column, no_wrap=True, min_width=widest)
        else:
            table.add_column(column)
    for row in rows:  # text from notes and ids is shown as written, never read as markup
        table.add_row(*(Text(str(row.get(c, ""))) for c in columns))
    safe_console().print(table)


def register(cli: click.Group) -> None:
    @cli.group("notes")
    def notes_group() -> None:
        """Bookmarks, tags and notes per instance (shared with the workbench)."""

    @notes_group.command("list")
    @click.option("--snapshot", default=None, help="Only this snapshot's notes.")
    @FORMAT
    @click.pass_context
    def notes_list(ctx: click.Context, snapshot: str | None, fmt: str) -> None:
        """Every instance with a bookmark, a tag or a note."""
        from core.store import notes

        ws = _workspace(ctx)
        rows = [n.model_dump() for n in notes.all_notes(ws.log.db.conn, snapshot)]
        if fmt == "json":
            echo(json.dumps(rows, indent=2, ensure_ascii=False))
            return
        for row in rows:
            row["bookmarked"] = "*" if row["bookmarked"] else ""
            row["tags"] = " ".join(row["tags"])
        _print_rows(rows, ["snapshot", "instance_id", "bookmarked", "tags", "note", "updated"], "notes",
                    whole=("snapshot", "instance_id"))

    @notes_group.command("add")
    @click.option("--snapshot", required=True)
    @click.option("--id", "instance_id", required=True)
    @click.option("--tag", "tags", multiple=True, help="Add a tag (repeatable).")
    @click.option("--untag", "untags", multiple=True, help="Remove a tag (repeatable).")
    @click.option("--bookmark/--no-bookmark", default=None, help="Set or clear the bookmark.")
    @click.argument("text", required=False)
    @click.pass_context
    def notes_add(ctx: click.Context, snapshot: str, instance_id: str, tags: tuple[str, ...],
                  untags: tuple[str, ...], bookmark: bool | None, text: str | None) -> None:
        """Bookmark, tag or annotate one instance (TEXT replaces its note)."""
        from core.store import notes

        ws = _workspace(ctx)
        store = ws.store_for(snapshot)
        if store.instance_data(snapshot, instance_id) is None:
            raise UserError(f"snapshot '{snapshot}' has no instance '{instance_id}'")
        note = notes.update(ws.log.db.conn, snapshot, instance_id, bookmark=bookmark, add_tags=list(tags),
                            remove_tags=list(untags), text=text)
        marks = ["bookmarked"] if note.bookmarked else []
        marks += [f"tags {' '.join(note.tags)}"] if note.tags else []
        marks += ["a note"] if note.note else []
        echo(f"{snapshot} {instance_id}: {', '.join(marks) or 'nothing kept'}")

    @notes_group.command("export")
    @click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True)
    @click.option("--snapshot", default=None)
    @click.pass_context
    def notes_export(ctx: click.Context, out: Path, snapshot: str | None) -> None:
        """Write the notes as JSONL (one instance a line)."""
        from core.jsonl import write_jsonl
        from core.store import notes

        ws = _workspace(ctx)
        rows = [n.model_dump() for n in notes.all_notes(ws.log.db.conn, snapshot)]
        try:
            with out.open("w", encoding="utf-8") as handle:
                count = write_jsonl(rows, handle)
        except OSError as exc:
            raise UserError(f"cannot write ({exc.strerror or exc})", file=str(out)) from None
        echo(f"wrote {count} notes to {out}", err=True)

    @cli.command("compare")
    @click.argument("run_a", metavar="RUN_A")
    @click.argument("run_b", metavar="RUN_B")
    @FORMAT
    @click.pass_context
    def compare_cmd(ctx: click.Context, run_a: str, run_b: str, fmt: str) -> None:
        """Where two runs differ, instance by instance, with McNemar's exact test."""
        from core.compare import compare_runs
        from core.report import load_run_data

        ws = _workspace(ctx)
        result = compare_runs(load_run_data(ws, run_a), load_run_data(ws, run_b))
        if fmt == "json":
            echo(json.dumps(result, indent=2))
            return
        _print_compare(result)


def _print_compare(result: dict[str, Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    from core.terminal import safe_console

    console = safe_console()
    table = Table(title=f"{result['family']}: {result['paired']} instances paired (sample 0)")
    for column in ("run", "solver", "correct", "rate", "95% interval"):
        table.add_column(column)
    for key in ("a", "b"):
        run = result["runs"][key]
        interval = f"[{run['rate_lo']:.3f}, {run['rate_hi']:.3f}]" if run["rate_lo"] is not None else "-"
        rate = f"{run['rate']:.3f}" if run["rate"] is not None else "-"
        table.add_row(Text(f"{key.upper()} {run['id']}"), Text(run["solver"]), f"{run['correct']}/{run['n']}",
                      rate, Text(interval))
    console.print(table)
    console.print(Text(f"both right {result['both']}, both wrong {result['neither']}, "
                       f"A right B wrong {len(result['a_right_b_wrong'])}, "
                       f"A wrong B right {len(result['a_wrong_b_right'])}; "
                       f"McNemar exact p = {result['mcnemar_p']:.4g}"))
    extra = result.get("family_comparison") or {}
    if extra:
        table = Table(title=f"{result['family']}: the family's own comparison")
        table.add_column("measure")
        table.add_column("value")
        for key, value in extra.items():
            shown = f"{value:.4g}" if isinstance(value, float) else str(value)
            table.add_row(Text(str(key)), Text(shown))
        console.print(table)
    for label, ids in (("A right, B wrong", result["a_right_b_wrong"]),
                       ("A wrong, B right", result["a_wrong_b_right"])):
        if ids:
            console.print(Text(f"{label}: {' '.join(ids)}"))
