"""One run's attempts (Runs › run id): instance, sample, verdict, status, latency, tokens, finish reason
and cost; Enter opens the instance with that attempt in Verdict and Step (Runs › run id › instance)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Header, Static

from tui.attempt_info import configured_endpoints, cost_cell, finish_cell, latency_cell, tokens_cell
from tui.screens.base import SembenchScreen
from tui.widgets.footer import Footer
from tui.widgets.table import RowTable

COLUMNS = ("attempt", "instance", "sample", "correct", "status", "latency", "tokens in/out", "finish", "cost", "error")


def breadcrumb(*parts: str) -> Text:
    text = Text()
    for i, part in enumerate(parts):
        if i:
            text.append(" › ", style="dim")
        text.append(part, style="bold" if i == len(parts) - 1 else "")
    return text


def correct_cell(row: dict[str, Any]) -> Text:
    if row.get("error"):
        return Text("error", style="bold red")
    return Text("✓", style="green") if row.get("correct") else Text("✗", style="red")


class AttemptsScreen(SembenchScreen):
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("q", "back", "Back", show=False),
    ]

    def __init__(self, run: dict[str, Any]) -> None:
        super().__init__()
        self.run = run
        self.rows: list[dict[str, Any]] = []
        self.sub_title = f"Runs › {run['id']}"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(breadcrumb("Runs", self.run["id"]), id="breadcrumb")
        yield Static("", id="attempts-info")
        yield RowTable(id="attempts-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#attempts-table", DataTable)
        table.add_columns(*COLUMNS)
        self.refresh_rows()
        table.focus()

    def on_screen_resume(self) -> None:
        self.refresh_rows()  # a re-ask from the instance adds an attempt (outside the run: not listed)

    def refresh_rows(self) -> None:
        self.rows = self.app.workspace.log.attempts(run_id=self.run["id"])
        endpoints = configured_endpoints()
        table = self.query_one("#attempts-table", DataTable)
        table.clear()
        for row in self.rows:
            table.add_row(
                str(row["id"]), Text(row.get("instance_id") or ""), str(row.get("sample") or 0), correct_cell(row),
                Text(row.get("status") or "", style="dim"), latency_cell(row), tokens_cell(row),
                Text(finish_cell(row)), cost_cell(row, endpoints), Text((row.get("error") or "")[:40]),
                key=str(row["id"]),
            )
        solver = self.run.get("solver") or ""
        info = Text(f"{len(self.rows)} attempt(s) of {solver} on {self.run.get('snapshot') or ''}", style="bold")
        info.append(" · enter: open the instance with that attempt in Verdict and Step", style="dim")
        self.query_one("#attempts-info", Static).update(info)

    def action_back(self) -> None:
        self.app.pop_screen()

    @on(DataTable.RowSelected, "#attempts-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        row = next((r for r in self.rows if str(r["id"]) == event.row_key.value), None)
        if row is not None:
            self.open_attempt(row)

    def open_attempt(self, row: dict[str, Any]) -> None:
        from core.errors import UserError
        from core.family import get_family
        from tui.screens.instance import InstanceScreen

        snapshot = row.get("snapshot") or self.run.get("snapshot")
        instance_id = row.get("instance_id") or ""
        try:
            data = self.app.workspace.store_for(snapshot).instance_data(snapshot, instance_id)
            if data is None:
                raise UserError(f"instance {instance_id} is not in snapshot {snapshot}")
            family = get_family(str(data.get("family")))
            instance = family.parse_instance(data)
        except Exception as exc:
            self.notify(f"cannot open {instance_id}: {exc}", severity="error", timeout=8, markup=False)
            return
        self.app.push_screen(InstanceScreen(family, instance, snapshot, tab="verdict", attempt=row,
                                            trail=("Runs", self.run["id"])))
