"""Runs in the log database: live progress (another process may be writing them), metrics by
difficulty feature, and a terminal plot of accuracy against the family's main feature.

Nothing here reads the log database on the UI thread: a poll worker (one at a time, every second, and
cheap unless a run is running) brings the runs and their counts; a report worker (one at a time, at most
every REPORT_EVERY_S for a run that moves) brings the selected run's metrics.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Header, Static

from tui.data import RunsPoll, poll_runs, read_runs, read_snapshot, short_time
from tui.messages import RunReport, RunsPolled
from tui.screens.base import SembenchScreen
from tui.widgets.footer import Footer
from tui.widgets.plot import bar
from tui.widgets.table import RowTable

REFRESH_S = 1.0
REPORT_EVERY_S = 5.0  # a run that moves gets its metrics recomputed at most this often...
# ...unless its last report took under INLINE_REPORT_S or covered at most INLINE_ATTEMPTS (its cost is then
# mostly the tables' layout, and a first report also pays for imports): then each poll that finds it moved
# recomputes them in the same read of the log, so the runs table and the metrics below are of one moment.
INLINE_REPORT_S = 0.5
INLINE_ATTEMPTS = 2000
PLOT_WIDTH = 90
PLOT_HEIGHT = 16
MAX_METRIC_COLUMNS = 6  # n and the first metrics of each breakdown: the screen is narrower than a report
COLUMNS = (("run", "run"), ("snapshot", "snapshot"), ("solver", "solver"), ("state", "state"),
           ("progress", "progress"), ("correct", "correct"), ("errors", "errors"), ("created", "created"))
# A run in one of these states stopped before its end: it shows its resume command and `R` resumes it.
RESUMABLE = {"stale", "interrupted", "stopped", "failed", "aborted"}
STATE_STYLES = {"running": "bold yellow", "stale": "bold magenta", "finished": "green", "failed": "red",
                "stopped": "yellow", "aborted": "red"}


def run_command_hint(log_path: Path) -> str:
    """How to start a run into this database: `--db PATH` (a group option) goes before the verb."""
    from core.store import default_log_db

    try:
        default = Path(log_path).resolve() == default_log_db().resolve()
    except OSError:
        default = False
    db = "" if default else f"--db {shlex.quote(str(log_path))} "
    return f"sembench {db}run --snapshot NAME --solver baseline"


def report_head(run: dict[str, Any], report: dict[str, Any] | None = None) -> Text:
    """What the metrics below are of: the run and its solver and snapshot. Its counts (progress, correct,
    errors) and state are the runs table's, on the highlighted row above, and are not printed again here
    (a second copy from another moment would disagree with the row while the run moves)."""
    head = Text()
    head.append(f"{run['id']}", style="bold")
    head.append(f"  {run.get('solver')} on {run.get('snapshot')}")
    counts = (report or {}).get("counts", {})
    if counts.get("env_errors"):  # from the report: not answers, redone by a resume (core.store.envfaults)
        from core.report_view import env_errors_line

        head.append("\n" + env_errors_line(counts), style="yellow")
    return head


def metrics_status(covered: int | None, done: int, computing: str | None) -> Text:
    """The one line that says what the metrics cover: `covered` attempts (None: no metrics yet) against
    the `done` of the row above; behind it, they are being brought up to date (at most every
    REPORT_EVERY_S while the run moves)."""
    if covered is None:
        return Text(f"computing the metrics of {computing}…" if computing else "", style="yellow")
    status = Text(f"metrics over {covered} attempt(s)", style="dim")
    if covered != done:
        status.append(" · the run moved on: updating…", style="yellow")
    elif computing:
        status.append(f" · computing the metrics of {computing}…", style="yellow")
    return status


def report_renderable(run: dict[str, Any], body: RenderableType, report: dict[str, Any] | None = None) -> RenderableType:
    """The head over the report's body (core.report_view, the same tables `sembench report` prints)."""
    return Group(report_head(run, report), body)


class RunsScreen(SembenchScreen):
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("q", "back", "Back", show=False),
        Binding("R", "resume", "Resume"),
        Binding("f5", "refresh", "Refresh"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[dict[str, Any]] = []
        self.counts: dict[str, tuple[int, int, int]] = {}  # run id -> (done, correct, errors)
        self.states: dict[str, str] = {}
        self.selected: str | None = None
        self.polled = False  # the first poll came back
        self._marker: tuple[int, int, str] | None = None
        self._polling = False
        self._poll_again = False
        self._shown_done: dict[str, int] = {}
        self._reports: dict[str, RunReport] = {}
        self._report_inflight: str | None = None
        self._report_started: dict[str, float] = {}
        self._ahead: RunReport | None = None  # a report read from a later moment of the log than the row above
        self._ahead_polls = 0  # polls applied since it was held back
        self.resuming: set[str] = set()  # runs resumed from here, still running in a worker
        self.cluster: dict[str, dict[str, Any]] = {}  # running run id -> its cluster's counts (core.cluster.progress)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("reading the runs…", style="dim"), id="runs-info")
        yield RowTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="run-resume")
        yield Static("", id="run-cluster")
        yield Static("", id="run-report-status")
        with VerticalScroll(id="run-report"):
            yield Static(Text("Select a run to see its metrics.", style="dim"), id="run-metrics")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#runs-table", DataTable)
        for label, key in COLUMNS:
            table.add_column(label, key=key)
        self.action_refresh()
        self.set_interval(REFRESH_S, self._tick)
        table.focus()

    def action_back(self) -> None:
        self.app.pop_screen()

    # -- polling ---------------------------------------------------------------------------------
    def _tick(self) -> None:
        self.request_poll()
        self._maybe_start_report()

    def action_refresh(self) -> None:
        self.request_poll(force=True)

    def request_poll(self, force: bool = False) -> None:
        """Start a poll worker unless one is in flight (then one more follows it, when forced). The
        selected run's report comes with it when it is cheap (INLINE_REPORT_S) and not being computed."""
        if self._polling:
            self._poll_again = self._poll_again or force
            return
        self._polling = True
        inline = None
        run_id = self.selected
        last = self._reports.get(run_id) if run_id is not None else None
        if (run_id is not None and last is not None and self._report_inflight is None
                and (last.seconds < INLINE_REPORT_S or last.done <= INLINE_ATTEMPTS)):
            inline = (run_id, self._shown_done.get(run_id, -1), self._report_width())
        self.poll(self._marker, dict(self.counts), dict(self.states), force, inline)

    @work(thread=True, group="runs-poll", exit_on_error=False)
    def poll(self, marker: tuple[int, int, str] | None, counts: dict[str, tuple[int, int, int]],
             states: dict[str, str], force: bool, inline: tuple[str, int, int] | None = None) -> None:
        if inline is None:
            try:
                result = poll_runs(self.app.log_path, marker, counts, states, force)
            except Exception as exc:  # a locked or broken database is shown, never a crash
                self.post_message(RunsPolled(None, f"{type(exc).__name__}: {exc}"))
                return
            self.post_message(RunsPolled(result))
            return
        from core.store import Workspace

        run_id, shown, width = inline
        report = None
        app = self.app
        try:
            ws = Workspace(log_path=app.log_path, snapshots_path=app.snapshots_path)
        except Exception as exc:
            self.post_message(RunsPolled(None, f"{type(exc).__name__}: {exc}"))
            return
        try:
            with read_snapshot(ws.log.db.conn):
                result = read_runs(ws.log, marker, counts, states, force)
                done = {**counts, **result.counts}.get(run_id, (0, 0, 0))[0]
                if result.runs is not None and done != shown:
                    report = build_report(ws, run_id, done, width)
        except Exception as exc:
            self.post_message(RunsPolled(None, f"{type(exc).__name__}: {exc}"))
            return
        finally:
            ws.close()
        self.post_message(RunsPolled(result, report=report))

    def on_runs_polled(self, message: RunsPolled) -> None:
        self._polling = False
        if message.error:
            self.query_one("#runs-info", Static).update(Text(f"cannot read runs: {message.error}", style="red"))
        else:
            if message.report is not None:  # before the poll is applied: both are on screen in one refresh
                self._take_report(message.report)
            self._apply_poll(message.poll)
            self._take_ahead(message.poll.runs is not None)
        if self._poll_again:
            self._poll_again = False
            self.request_poll(force=True)

    def _apply_poll(self, poll: RunsPoll) -> None:
        self._marker = poll.marker
        self.polled = True
        if poll.runs is None:
            return
        self.counts.update(poll.counts)
        for run in poll.runs:
            done, correct, errors = self.counts.get(run["id"], (0, 0, 0))
            run["done"], run["correct"], run["errors"] = done, correct, errors
            run["state"] = run.get("state") or run.get("status") or ""
        self.states = {run["id"]: run["state"] for run in poll.runs}
        self.runs = poll.runs
        self._fill_table()
        self._show_info()
        self._show_resume()
        self.cluster = poll.cluster
        self._show_cluster()
        if self.selected is not None:
            run = self.run(self.selected)
            if run is not None and run["done"] != self._shown_done.get(self.selected):
                self._maybe_start_report()
            self._show_report_status()  # against this poll's row: "updating…" or not

    def run(self, run_id: str) -> dict[str, Any] | None:
        return next((r for r in self.runs if r["id"] == run_id), None)

    def _cells(self, run: dict[str, Any]) -> tuple[Any, ...]:
        total = run.get("total") or 0
        done = run.get("done") or 0
        progress = Text(bar(done, total or 1, 12).ljust(12), style="cyan")
        progress.append(f" {done}/{total}")
        state = run.get("state") or ""
        # Text cells: a DataTable reads a str as markup (a model name like `m[a]` would lose its brackets)
        return (Text(run["id"]), Text(run.get("snapshot") or ""), Text(run.get("solver") or ""),
                Text(state, style=STATE_STYLES.get(state, "")), progress, str(run.get("correct", 0)),
                str(run.get("errors", 0)), short_time(run.get("created")))

    def _fill_table(self) -> None:
        """Same runs in the same order: cells updated in place. Otherwise rebuilt, the cursor kept on
        the selected run (by id, not by row number)."""
        table = self.query_one("#runs-table", DataTable)
        ids = [run["id"] for run in self.runs]
        current = [key.value for key in table.rows]
        if ids == current:
            for run in self.runs:
                for (_, column), cell in zip(COLUMNS, self._cells(run), strict=True):
                    # the column widens when a cell outgrows it ("running" -> "finished")
                    table.update_cell(run["id"], column, cell, update_width=True)
            return
        table.clear()
        for run in self.runs:
            table.add_row(*self._cells(run), key=run["id"])
        if self.runs:
            at = ids.index(self.selected) if self.selected in ids else 0
            table.move_cursor(row=at)

    def _show_info(self) -> None:
        info = Text(f"{len(self.runs)} run(s) in {self.app.log_path}", style="bold")
        running = sum(state == "running" for state in self.states.values())
        stale = sum(state == "stale" for state in self.states.values())
        if running:
            info.append(f" · {running} running (live)", style="yellow")
        if stale:
            info.append(f" · {stale} stale (their process is gone: resume them)", style="magenta")
        if not self.runs:
            info.append(f"  — start one with `{run_command_hint(self.app.log_path)}`", style="dim")
        self.query_one("#runs-info", Static).update(info)

    # -- the selected run's report -----------------------------------------------------------------
    @on(DataTable.RowHighlighted, "#runs-table")
    def _run_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row != event.data_table.cursor_row:
            return  # a highlight from before the table was rebuilt
        run_id = event.row_key.value
        if not run_id or run_id == self.selected:
            return
        self.selected = run_id
        self._show_resume()
        self._show_cluster()
        cached = self._reports.get(run_id)
        if cached is not None:
            self._render_report(cached)
        else:
            self.query_one("#run-metrics", Static).update("")  # the status line above says it is computing
        self._maybe_start_report()

    def _maybe_start_report(self) -> None:
        """Compute the selected run's report when it is missing or behind, unless one is in flight (a
        thread cannot be stopped: never more than one) or this run's was started under REPORT_EVERY_S
        ago (the next tick tries again)."""
        run_id = self.selected
        if run_id is None or self._report_inflight is not None:
            self._show_report_status()
            return
        run = self.run(run_id)
        done = (run or {}).get("done") or 0
        if run_id in self._reports and self._shown_done.get(run_id) == done:
            self._show_report_status()
            return
        now = self.app.clock()
        started = self._report_started.get(run_id)
        if run_id in self._reports and started is not None and now - started < REPORT_EVERY_S:
            self._show_report_status()
            return
        self._report_inflight = run_id
        self._report_started[run_id] = now
        self._show_report_status()
        self.compute_report(run_id, done, self._report_width())

    def _show_report_status(self) -> None:
        status = self.query_one("#run-report-status", Static)
        run_id = self.selected
        if run_id is None:
            status.update("")
            return
        run = self.run(run_id) or {}
        status.update(metrics_status(self._shown_done.get(run_id), run.get("done") or 0, self._report_inflight))

    @work(thread=True, group="run-report", exit_on_error=False)
    def compute_report(self, run_id: str, done: int, width: int) -> None:
        from core.store import Workspace

        app = self.app
        ws = Workspace(log_path=app.log_path, snapshots_path=app.snapshots_path)
        try:
            with read_snapshot(ws.log.db.conn):
                self.post_message(build_report(ws, run_id, done, width))
        finally:
            ws.close()

    def _report_width(self) -> int:
        width = self.query_one("#run-report", VerticalScroll).size.width
        return max(60, width - 2) if width else 120

    def on_run_report(self, message: RunReport) -> None:
        run = self.run(message.run_id)
        if run is not None and message.error is None and message.done > (run.get("done") or 0):
            # Read from a later moment of the log than the row above it (the run moved on between the
            # poll and the report): shown with the poll that brings the row there, so that the header and
            # the detail are never of two moments. Still "updating…" meanwhile, and nothing else computed.
            self._ahead, self._ahead_polls = message, 0
            self.request_poll(force=True)
            return
        self._report_inflight = None
        self._take_report(message)
        self._maybe_start_report()  # another run was selected meanwhile, or this one moved on

    def _take_ahead(self, rows_read: bool) -> None:
        """The report held back by on_run_report, once the row has caught up with it; or, when two polls
        that read the rows left the row behind it (attempts deleted meanwhile, as a resume that retries
        errors does), as it is: the metrics are never held back for good."""
        ahead = self._ahead
        if ahead is None:
            return
        self._ahead_polls += rows_read
        run = self.run(ahead.run_id)
        behind = run is not None and (run.get("done") or 0) < ahead.done
        if behind and self._ahead_polls < 2:
            return  # the next poll (the first may have read the log before the report did)
        self._ahead = None
        self._report_inflight = None
        self._take_report(ahead)
        self._maybe_start_report()

    def _take_report(self, message: RunReport) -> None:
        self._shown_done[message.run_id] = message.done
        self._reports[message.run_id] = message
        if message.run_id == self.selected:
            self._render_report(message)

    def _render_report(self, message: RunReport) -> None:
        view = self.query_one("#run-metrics", Static)
        if message.error:
            view.update(Text(f"cannot compute the metrics of {message.run_id}: {message.error}", style="red"))
            return
        try:
            view.update(report_renderable(message.run, message.body, message.report))
        except Exception as exc:  # an unexpected report shape is shown, never a crash
            view.update(Text(f"cannot render the report of {message.run_id}: {exc}", style="red"))

    # -- drilling down and resuming -------------------------------------------------------------------
    @on(DataTable.RowSelected, "#runs-table")
    def _run_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_run()

    def action_open_run(self) -> None:
        """Runs › run id: the run's attempts."""
        from tui.screens.attempts import AttemptsScreen

        run = self.run(self.selected) if self.selected else None
        if run is not None:
            self.app.push_screen(AttemptsScreen(run))

    def resumable(self, run: dict[str, Any] | None) -> bool:
        return run is not None and run.get("state") in RESUMABLE and run["id"] not in self.resuming

    def _show_resume(self) -> None:
        from core.runner import resume_command

        run = self.run(self.selected) if self.selected else None
        view = self.query_one("#run-resume", Static)
        if run is not None and run["id"] in self.resuming:
            view.update(Text(f"resuming {run['id']}…", style="yellow"))
        elif self.resumable(run):
            text = Text(f"{run['id']} stopped before its end ({run['state']}): ", style="magenta")  # type: ignore[index]
            text.append(resume_command(self.app.log_path, run["id"]), style="bold")  # type: ignore[index]
            text.append("  · R resumes it here", style="dim")
            view.update(text)
        else:
            view.update("")

    def _show_cluster(self) -> None:
        """The selected live run's cluster: tasks queued, running and done, workers alive."""
        from core.cluster.progress import progress_line

        progress = self.cluster.get(self.selected) if self.selected else None
        self.query_one("#run-cluster", Static).update(Text(progress_line(progress), style="cyan") if progress else "")

    def action_resume(self) -> None:
        run = self.run(self.selected) if self.selected else None
        if run is None:
            return
        if not self.resumable(run):
            self.notify(f"{run['id']} is {run.get('state')}: nothing to resume.", severity="warning", markup=False)
            return
        if is_session(run):
            try:
                from tui.screens import session  # written by the human-session work; may be absent
            except ImportError:
                self.notify("This is a human session: resume it from the session screen.", severity="warning")
                return
            session.resume_session(self.app, run["id"])
            return
        self.resuming.add(run["id"])
        self._show_resume()
        self.notify(f"Resuming {run['id']}…", markup=False)
        self.resume_run(run["id"])

    @work(thread=True, group="run-resume", exit_on_error=False)
    def resume_run(self, run_id: str) -> None:
        """What `sembench run --resume RUN` does, in its own thread with its own database connection."""
        from core.runner import config_of, get_run, run_sync
        from core.store import Workspace

        app = self.app
        ws = Workspace(log_path=app.log_path, snapshots_path=app.snapshots_path)
        try:
            outcome = run_sync(ws, config_of(get_run(ws.log, run_id)), resume=run_id)
            message = (f"{run_id}: {outcome.status}, {outcome.stats.done}/{outcome.stats.total} attempts, "
                       f"{outcome.stats.correct} correct", "information")
        except Exception as exc:  # a UserError (live elsewhere, a solver that fails) is shown, not raised
            message = (f"cannot resume {run_id}: {exc}", "error")
        finally:
            ws.close()
        app.call_from_thread(self._resumed, run_id, *message)

    def _resumed(self, run_id: str, text: str, severity: str) -> None:
        self.resuming.discard(run_id)
        self.app.invalidate_summary()
        self.notify(text, severity=severity, timeout=8, markup=False)  # type: ignore[arg-type]
        self._show_resume()
        self.request_poll(force=True)


def build_report(ws: Any, run_id: str, done: int, width: int) -> RunReport:
    """A run's report laid out at `width` (in a worker: the UI thread only puts the finished text on
    screen), or why there is none. `done` is what the caller last saw; the report says what it read."""
    import time

    from core.plot import terminal_plot
    from core.report import accuracy_series, load_run_data, report_run
    from core.report_view import prerender, report_body

    started = time.perf_counter()
    try:
        data = load_run_data(ws, run_id)
        report = report_run(data)
        feature, series = accuracy_series(data)
        # One line, named by the head above: no legend (plotext draws it over the top left, where an
        # accuracy of 1.0 is).
        plot = terminal_plot({"": series}, feature, width=PLOT_WIDTH, height=PLOT_HEIGHT) if series else ""
        shown = Text.from_ansi(plot, no_wrap=True) if plot else None
        # The errors of the run are a column of the runs table above: not printed again as a metric.
        metrics = report["metrics"]
        overall = {k: v for k, v in metrics["overall"].items() if k != "errors"}
        body = prerender(report_body({**report, "metrics": {**metrics, "overall": overall}}, shown,
                                     MAX_METRIC_COLUMNS), width)
    except Exception as exc:
        return RunReport(run_id, done, {}, {}, Text(""), f"{type(exc).__name__}: {exc}")
    covered = int(report.get("counts", {}).get("attempts", done))  # the run may have moved since `done`
    return RunReport(run_id, covered, data.run, report, body, None, time.perf_counter() - started)


def is_session(run: dict[str, Any]) -> bool:
    """A human session run (its options say "session"): resumed by the session screen, not the runner."""
    options = run.get("options")
    return isinstance(options, str | dict) and "session" in options
