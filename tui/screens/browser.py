"""The browser: snapshots (bundled and the user's), then the instances of one in a virtual table,
sortable and filterable by family, feature values, solved/unsolved/attempted and free text. Search sees
the instance id and the family's visible features only: never a spoiler.

Solved and attempted count models and people by default (never the oracle, which replays the ground
truth, nor the family's own baseline); the solver menu narrows them to one solver or widens them to every
solver but the oracle.

Which instances were attempted and solved comes from the whole log database, which can hold hundreds of
thousands of attempts: a worker reads it (and only when something was written since), never the UI thread.
"""

from __future__ import annotations

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import DataTable, Header, Input, Select, Static

from core.family import all_families
from core.instance import Snapshot
from core.readiness import Readiness, not_ready_message, readiness
from core.store import notes as note_store
from core.store.notes import Note
from tui.data import (
    ANY_BUT_ORACLE,
    ORACLE,
    PEOPLE_AND_MODELS,
    STATUSES,
    Cells,
    Row,
    SnapshotTable,
    filter_rows,
    load_table,
    non_numbers,
    parse_query,
    read_summary,
    scope_label,
    solvers_in,
    sort_rows,
    summary_for,
    unknown_keys,
)
from tui.heap import settle
from tui.messages import SummaryReady
from tui.screens.base import SembenchScreen
from tui.screens.notes import edit_note
from tui.widgets.footer import Footer
from tui.widgets.table import RowTable, VirtualTable

# Below NARROW columns (an 80x24 terminal) the browser packs tighter: the search box gets a row of its own
# (the two menus go below it, without borders), and the snapshot list drops its `n` column and cuts long
# names to NARROW_NAME characters in the middle (variants differ at the end: `formalb…-diverse`,
# `formalb…iverse-n`; the whole name is in the line above the instances) so that the family column stays
# whole. 116, not 100: between 100 and 115 columns the wide layout left the search box 5-10 characters
# ("searc" at 100), too few to see a query.
NARROW = 116
NARROW_NAME = 16
FAMILY_WIDTH = 10  # the longest family id (membership)
USER_MARK = "✎"  # a snapshot of the user's log database (the others are bundled)
UNREADY_MARK = "!"  # beside a family whose answers this machine cannot check (core.readiness)

PREPARE_AFTER_S = 0.15  # the cursor rests this long on a row: its instance is drawn ahead for Enter
SUMMARY_POLL_S = 0.5  # how often the browser looks for attempts written by another process
ALL = "*"
EMPTY_HELP = (
    "No snapshots yet. Build the bundled ones with `sembench snapshot build`, or import one with "
    "`sembench snapshot import`; they appear here."
)


class BrowserScreen(SembenchScreen):
    BINDINGS = [
        Binding("slash", "focus_search", "Search"),
        Binding("f", "cycle_status", "Solved filter"),
        Binding("s", "sort_next", "Sort"),
        Binding("S", "sort_reverse", "Reverse"),
        Binding("O", "sort_menu", "Sort by…", show=False),  # in ? help and the palette
        Binding("o", "focus_snapshots", "Snapshots"),
        Binding("b", "toggle_pane", "Pane"),
        Binding("space", "mark", "Mark"),
        Binding("m", "bookmark", "Bookmark"),
        Binding("N", "edit_note", "Note"),
        Binding("A", "marked_menu", "Marked…"),
        Binding("H", "human_session", "Session", show=False),  # in ? help and the palette
        Binding("escape", "clear_search", "Clear", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.snapshots: list[tuple[Snapshot, str]] = []
        self.table: SnapshotTable | None = None
        self._prepare_timer: Timer | None = None
        self.view: list[Row] = []
        self.sort_column: str | None = None
        self.sort_reverse = False
        self.solver = PEOPLE_AND_MODELS
        self.summary_loading = False
        self._summary_again = False
        self._restoring: str | None = None  # the saved snapshot, until the list's cursor is on it
        self.gone: str | None = None  # the saved snapshot, when it no longer exists (said in the info line)
        self.unready: dict[str, Readiness] = {}  # families whose answers cannot be checked here, and why
        # Rows marked with space (instance ids of the open snapshot), for the batch actions (`A`) and the
        # human-baseline sessions that start "on the marked rows". Cleared when another snapshot opens.
        self.marked: set[str] = set()
        self.notes: dict[str, Note] = {}  # instance id -> the researcher's bookmark, tags and note
        self.last_run_solver = "baseline"
        # (snapshot, attempts marker, solver scope) of the counts the table shows, to skip redrawing it
        # when a look at the log finds nothing new.
        self._summary_shown: tuple[str, int | None, str] | None = None
        self._hints_hidden = False  # the open table left out the hint features (a person is answering)
        self._hidden_hints: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="browser"):
            with Vertical(id="snapshot-pane"):
                yield Static("Snapshots", classes="pane-title", id="pane-title")
                yield Select([], prompt="all families", id="family-filter")
                yield RowTable(id="snapshots", cursor_type="row")
            with Vertical(id="instance-pane"):
                with Horizontal(id="filters"):
                    yield Input(placeholder="search: words, feature=value, feature>=3 …", id="search")
                    yield Select([(s, s) for s in STATUSES], value="all", allow_blank=False, id="status-filter")
                    yield Select([], prompt=scope_label(PEOPLE_AND_MODELS), id="solver-filter")
                yield Static("", id="table-info")
                yield VirtualTable(id="instances")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(SUMMARY_POLL_S, self._poll_summary)
        snapshots = self.query_one("#snapshots", DataTable)
        self._set_narrow(self.app.size.width < NARROW)  # the list is filled once, for this width
        self.reload_snapshots()
        if self.app.summary is not None:
            self._fill_solvers()
        if self.snapshots:
            self.restore(snapshots)  # before the first paint: the table is there at once
            if self.query_one("#snapshot-pane").has_class("collapsed"):
                self.query_one("#instances", VirtualTable).focus()
            else:
                snapshots.focus()
        else:
            self.query_one("#table-info", Static).update(Text(EMPTY_HELP, style="yellow"))

    def restore(self, snapshots: DataTable) -> None:
        """Open where the workbench was left (tui.state): its snapshot, search, filter, scope and sort;
        the first snapshot when there is no saved state or its snapshot is gone."""
        saved = self.app.saved
        names = [snap.name for snap, _ in self.snapshots]
        name = saved.snapshot if saved.snapshot in names else names[0]
        if saved.snapshot and name != saved.snapshot:
            self.gone = saved.snapshot
        if saved.status in STATUSES:
            with self.prevent(Select.Changed):
                self.query_one("#status-filter", Select).value = saved.status
        if saved.solver_scope:
            self.solver = saved.solver_scope
        self.sort_column, self.sort_reverse = saved.sort_column, saved.sort_reverse
        # The snapshot list highlights its first row once filled; that must not load another snapshot
        # (and drop the saved sort) in place of the saved one: highlights wait for the saved row's.
        self._restoring = name
        with self.prevent(Input.Changed):
            self.query_one("#search", Input).value = saved.search
        self.load_snapshot(name)
        if name != names[0]:
            snapshots.move_cursor(row=snapshots.get_row_index(name))
        self.set_timer(1.0, self._restored)  # in case no highlight of the saved row ever comes
        self.query_one("#snapshot-pane").set_class(saved.pane_folded, "collapsed")
        if saved.instance and saved.instance_snapshot in names:
            # the instance that was open, on its tab, once the browser is up (it opens over the browser)
            self.call_after_refresh(self.app.open_instance, saved.instance_snapshot, saved.instance,
                                    saved.tab or "problem")

    def _restored(self) -> None:
        self._restoring = None

    def state_fields(self) -> dict[str, object]:
        """What `restore` reads back next time."""
        return {"snapshot": self.table.snapshot if self.table is not None else None,
                "search": self.query_one("#search", Input).value, "status": self.status_filter,
                "solver_scope": self.solver, "sort_column": self.sort_column, "sort_reverse": self.sort_reverse}

    def on_screen_resume(self) -> None:
        if self.table is not None and self.app.hiding_hints != self._hints_hidden:
            # a session opened or ended, or human chosen or left: the hint columns go or come back
            self.load_snapshot(self.table.snapshot)
        if self.table is not None:
            # A bookmark or a note may have been written on the instance view: the list is drawn again
            # only then (for 1,600 rows that is a frame's worth of work that `escape` waited for).
            before = self.notes
            self.reload_notes()
            if self.notes != before:
                self.apply(keep_cursor=True)
            self._cursor_to_walked()
        # At start, and back from an instance (or runs): solved/attempted marks may have changed; a worker
        # looks, after the screen is painted (start-up never waits on the log database).
        self.call_after_refresh(self.refresh_summary)
        # The instance just left is no longer the one to reopen: written now, not at the next tick, so a
        # quit right after `escape` does not bring it back.
        self.call_after_refresh(self.app.save_if_changed)
        self._rest_then_prepare()  # the row under the cursor is drawn ahead for the next Enter

    def _cursor_to_walked(self) -> None:
        """Back from the instance view: the cursor on the instance last opened there (`]`/`[` walk on)."""
        listing = self.app.listing
        walked, listing.current = listing.current, None
        at = listing.index(self.table.snapshot, walked) if walked is not None and self.table is not None else None
        if at is not None:
            self.query_one("#instances", VirtualTable).cursor_row = at

    def on_resize(self, event: events.Resize) -> None:
        if self._set_narrow(event.size.width < NARROW) and self.snapshots:
            self.fill_snapshots(keep_cursor=True)

    def _set_narrow(self, narrow: bool) -> bool:
        """The layout for narrow terminals (see NARROW), on or off; whether it changed."""
        if narrow == self.has_class("-narrow"):
            return False
        self.set_class(narrow, "-narrow")
        for select in self.query("#filters Select").results(Select):
            select.compact = narrow
        return True

    # -- attempts per instance (a worker) --------------------------------------------------------
    def refresh_summary(self) -> None:
        """Read which instances were attempted and solved, in a worker (one at a time); nothing is read
        when no attempt was written since the app's cached summary."""
        if self.summary_loading:
            self._summary_again = True
            return
        self.summary_loading = True
        marker = self.app.summary_marker if self.app.summary is not None else None
        self.load_summary(marker)

    def _poll_summary(self) -> None:
        """While the browser is on screen: a look at the log (a `sembench run` in another terminal may
        be writing it); the counts and status column follow within a second. One index lookup when
        nothing was written, only the new attempts when something was, in a worker."""
        if self.app.screen is self and not self.summary_loading and self.app.summary is not None:
            self.refresh_summary()

    @work(thread=True, group="summary", exit_on_error=False)
    def load_summary(self, marker: int | None) -> None:
        try:
            now, summary = read_summary(self.app.log_path, marker, self.app.summary if marker is not None else None)
        except Exception as exc:
            self.post_message(SummaryReady(-1, None, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(SummaryReady(now, summary))

    def on_summary_ready(self, message: SummaryReady) -> None:
        self.summary_loading = False
        if message.error:
            self.notify(f"cannot read the attempts: {message.error}", severity="error", markup=False)
        elif message.summary is not None:
            self.app.summary = message.summary
            self.app.summary_marker = message.marker
            settle()
            self._fill_solvers()
            self._apply_summary()
        elif self.app.summary is not None and self.table is not None:
            if self._summary_shown != (self.table.snapshot, self.app.summary_marker, self.solver):
                self._apply_summary()  # unchanged in the log, but this table may have been loaded before it
        else:
            self.apply(keep_cursor=True)
        if self._summary_again:
            self._summary_again = False
            self.refresh_summary()

    def _apply_summary(self) -> None:
        if self.table is not None and self.app.summary is not None:
            self.table.update_summary(summary_for(self.app.summary, self.solver), self.app.summary, self.solver)
            self._summary_shown = (self.table.snapshot, self.app.summary_marker, self.solver)
            self.apply(keep_cursor=True)

    def _fill_solvers(self) -> None:
        select = self.query_one("#solver-filter", Select)
        solvers = [s for s in solvers_in(self.app.summary or {}) if s != ORACLE]  # the oracle never counts
        options = [(scope_label(ANY_BUT_ORACLE), ANY_BUT_ORACLE), *((s, s) for s in solvers)]
        current = select.value if isinstance(select.value, str) else self.solver  # a restored scope
        with self.prevent(Select.Changed):
            select.set_options(options)
            if isinstance(current, str) and current in {value for _, value in options}:
                select.value = current
            else:
                self.solver = PEOPLE_AND_MODELS

    @on(Select.Changed, "#solver-filter")
    def _solver_changed(self) -> None:
        value = self.query_one("#solver-filter", Select).value
        self.solver = value if isinstance(value, str) else PEOPLE_AND_MODELS
        self._apply_summary()

    def set_solver(self, solver: str) -> None:
        select = self.query_one("#solver-filter", Select)
        if solver:
            select.value = solver
        else:
            select.clear()

    # -- snapshots -------------------------------------------------------------------------------
    def reload_snapshots(self) -> None:
        self.snapshots = self.app.workspace.snapshots()
        families = sorted({snap.family for snap, _ in self.snapshots})
        known = all_families()
        states = (readiness(known[f]) for f in families if f in known)  # PATH look-ups, no process
        self.unready = {state.family: state for state in states if not state.ready}
        title = Text("Snapshots", style="bold")
        if any(origin != "bundled" for _, origin in self.snapshots):
            title.append(f"  {USER_MARK} yours", style="dim")
        if self.unready:
            title.append(f"  {UNREADY_MARK} tools missing", style="yellow")
        self.query_one("#pane-title", Static).update(title)
        self.query_one("#family-filter", Select).set_options([(f, f) for f in families])
        self.fill_snapshots()

    def fill_snapshots(self, keep_cursor: bool = False) -> None:
        """(Re)fill the snapshot list, for the family filter and the terminal's width (see NARROW);
        `keep_cursor`: the cursor stays on the open snapshot and no other one is loaded meanwhile."""
        wanted = self.query_one("#family-filter", Select).value
        table = self.query_one("#snapshots", DataTable)
        narrow = self.has_class("-narrow")
        table.clear(columns=True)
        if narrow:
            table.add_column("name", width=NARROW_NAME)
            table.add_column("family", width=FAMILY_WIDTH)
        else:
            table.add_columns("name", "family", "n")
        for snap, origin in self.snapshots:
            if isinstance(wanted, str) and snap.family != wanted:
                continue
            mark = f" {USER_MARK}" if origin != "bundled" else ""
            name = Text(middle_cut(snap.name, NARROW_NAME - len(mark)) if narrow else snap.name, no_wrap=True)
            if mark:
                name.append(mark, style="bold cyan")
            family = Text(snap.family)
            if snap.family in self.unready:
                family.stylize("yellow")
                family.append(UNREADY_MARK, style="bold yellow")
            if narrow:
                table.add_row(name, family, key=snap.name)
            else:
                table.add_row(name, family, str(snap.count), key=snap.name)
        current = self.table.snapshot if self.table is not None else None
        if keep_cursor and current is not None and current in table.rows:
            self._restoring = current  # the refilled list highlights its first row first: not a choice
            table.move_cursor(row=table.get_row_index(current))

    @on(Select.Changed, "#family-filter")
    def _family_changed(self) -> None:
        self.fill_snapshots()

    @on(DataTable.RowHighlighted, "#snapshots")
    def _snapshot_highlighted(self, event: DataTable.RowHighlighted) -> None:
        name = event.row_key.value
        if self._restoring is not None:
            if name == self._restoring:
                self._restoring = None
            return
        if name and (self.table is None or self.table.snapshot != name):
            self.load_snapshot(name)

    @on(DataTable.RowSelected, "#snapshots")
    def _snapshot_selected(self, event: DataTable.RowSelected) -> None:
        name = event.row_key.value
        if name and (self.table is None or self.table.snapshot != name):
            self.load_snapshot(name)
        self.query_one("#instances", VirtualTable).focus()

    def open_snapshot(self, name: str) -> None:
        """Open `name` as if picked in the list (the command palette's "Open snapshot"): its instances,
        the list's cursor on its row (so that Enter there opens it, not the one before) and the focus on
        its instance table."""
        self.load_snapshot(name)
        if self.table is None or self.table.snapshot != name:
            return  # could not be opened: said already
        snapshots = self.query_one("#snapshots", DataTable)
        if name not in snapshots.rows:  # hidden by the family filter
            with self.prevent(Select.Changed):
                self.query_one("#family-filter", Select).clear()
            self.fill_snapshots()
        if name in snapshots.rows:
            snapshots.move_cursor(row=snapshots.get_row_index(name))
        self.query_one("#instances", VirtualTable).focus()

    def load_snapshot(self, name: str) -> None:
        snap = next((s for s, _ in self.snapshots if s.name == name), None)
        if snap is None:
            return
        workspace = self.app.workspace
        try:
            family = all_families().get(snap.family)
            # while a person answers by hand, the hint features are neither shown nor searchable
            hide = self.app.hiding_hints
            features = (family.answering_features() if hide else family.visible_features()) if family else None
            store = workspace.store_for(name)
            known = summary_for(self.app.summary, self.solver) if self.app.summary is not None else {}
            label = family.label_field if family is not None else None
            table = load_table(store, name, snap.family, features, known, self.app.summary, label, self.solver)
        except Exception as exc:
            self.notify(f"cannot open snapshot {name}: {exc}", severity="error", markup=False)
            return
        if features is None:  # a family this version does not know: show what the rows carry
            features = tuple(table.rows[0].features) if table.rows else ()
            table = SnapshotTable(table.snapshot, table.family, features, table.rows)
        self._hints_hidden = hide
        self._hidden_hints = tuple(f for f in (family.visible_features() if family else ()) if f not in features)
        if self.table is None or self.table.snapshot != name:
            self.marked = set()
            if self.table is not None:
                self.gone = None  # said once, on the snapshot opened in its place
        table.marked = self.marked
        self.table = table
        self._summary_shown = (name, self.app.summary_marker, self.solver) if self.app.summary is not None else None
        self.reload_notes()
        if self.sort_column not in table.columns:
            self.sort_column, self.sort_reverse = None, False
        self.apply()
        settle()  # the table lives while it is shown: keep it out of every later full collection

    # -- filtering and sorting -------------------------------------------------------------------
    @property
    def status_filter(self) -> str:
        value = self.query_one("#status-filter", Select).value
        return value if isinstance(value, str) else "all"

    def apply(self, keep_cursor: bool = False) -> None:
        widget = self.query_one("#instances", VirtualTable)
        if self.table is None:
            return
        query = parse_query(self.query_one("#search", Input).value)
        rows = filter_rows(self.table.rows, query, self.status_filter, self.notes)
        rows = sort_rows(rows, self.sort_column, self.sort_reverse)
        self.view = rows
        self.app.listing.show(self.table.snapshot, [row.id for row in rows])  # what `]`/`[` walk
        self.app.saved = self.app.saved.model_copy(update=self.state_fields())  # reopened here next time
        cells = Cells(self.table, rows)
        widget.sorted_column = self.table.columns.index(self.sort_column) if self.sort_column else None
        widget.sort_reverse = self.sort_reverse
        widget.set_data(self.table.columns, cells, keep_cursor=keep_cursor)
        info = Text()
        if self.gone:
            info.append(f"snapshot {self.gone} (where the workbench was left) no longer exists; showing the "
                        "first one · ", style="bold yellow")
        info.append(f"{self.table.snapshot}", style="bold")
        info.append(f" · {self.table.family} · ")
        info.append(f"{len(rows)} of {len(self.table.rows)} instances", style="bold")
        solved = sum(r.solved for r in self.table.rows)
        tried = sum(r.attempts > 0 for r in self.table.rows)
        if self.app.summary is None:
            info.append(" · reading attempts…", style="dim italic")
        else:
            info.append(f" · solved {solved}, attempted {tried}", style="dim")
            if self.solver:  # the default scope (models and people) is what the menu above says
                info.append(f" by {scope_label(self.solver)}", style="yellow")
        if self.sort_column:
            info.append(f" · sorted by {self.sort_column} {'▼' if self.sort_reverse else '▲'}", style="dim")
        if self.status_filter != "all":
            info.append(f" · showing {self.status_filter}", style="yellow")
        if self.marked:
            info.append(f" · {len(self.marked)} marked (A: act on them)", style="bold cyan")
        if self._hidden_hints:
            why = "a session is open" if self.app.session_run else "human is the solver"
            info.append(f" · {len(self._hidden_hints)} hint feature(s) hidden ({why})", style="yellow")
        for bad in non_numbers(query):
            info.append(f" · {bad}: not a number, so it matches nothing", style="bold red")
        unknown = unknown_keys(query, self.table.features)
        if unknown:
            info.append(f" · no feature {', '.join(repr(k) for k in unknown)} (searchable: "
                        f"{', '.join(self.table.features) or 'ids'})", style="bold red")
        if self.table.family in self.unready:
            info.append(f"\n{UNREADY_MARK} {not_ready_message(self.unready[self.table.family])}", style="yellow")
        self.query_one("#table-info", Static).update(info)

    @on(Input.Changed, "#search")
    def _search_changed(self) -> None:
        self.apply()

    @on(Input.Submitted, "#search")
    def _search_submitted(self) -> None:
        self.query_one("#instances", VirtualTable).focus()

    @on(Select.Changed, "#status-filter")
    def _status_changed(self) -> None:
        self.apply()

    @on(VirtualTable.HeaderClicked)
    def _header_clicked(self, event: VirtualTable.HeaderClicked) -> None:
        if self.table is None:
            return
        column = self.table.columns[event.column]
        if column == self.sort_column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = column, False
        self.apply()

    @on(VirtualTable.Highlighted, "#instances")
    def _instance_highlighted(self, event: VirtualTable.Highlighted) -> None:
        # Once the cursor rests on a row (PREPARE_AFTER_S without a move), the instance view draws that
        # instance ahead, so that Enter shows it at once; moving through the list does no such work.
        self._rest_then_prepare()

    def _rest_then_prepare(self) -> None:
        if self._prepare_timer is not None:
            self._prepare_timer.stop()
        self._prepare_timer = self.set_timer(PREPARE_AFTER_S, self._prepare_highlighted)

    def _prepare_highlighted(self) -> None:
        self._prepare_timer = None
        row = self.query_one("#instances", VirtualTable).cursor_row
        if self.app.screen is self and self.table is not None and 0 <= row < len(self.view):
            self.app.prepare_instance(self.table.snapshot, self.view[row].id)

    @on(VirtualTable.Selected, "#instances")
    def _instance_selected(self, event: VirtualTable.Selected) -> None:
        if self.app.screen is not self:
            return  # a second Enter (or click) that arrived after the first had opened the instance
        if self.table is None or not (0 <= event.row < len(self.view)):
            return
        self.app.open_instance(self.table.snapshot, self.view[event.row].id)

    def action_human_session(self) -> None:
        from tui.screens.session import start_from_browser

        start_from_browser(self)

    def action_focus_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_focus_snapshots(self) -> None:
        self.query_one("#snapshot-pane").remove_class("collapsed")
        self.query_one("#snapshots", DataTable).focus()

    def action_toggle_pane(self) -> None:
        pane = self.query_one("#snapshot-pane")
        pane.toggle_class("collapsed")
        if pane.has_class("collapsed") and self.query_one("#snapshots", DataTable).has_focus:
            self.query_one("#instances", VirtualTable).focus()

    def action_clear_search(self) -> None:
        search = self.query_one("#search", Input)
        if search.value:
            search.value = ""
        self.query_one("#instances", VirtualTable).focus()

    def action_cycle_status(self) -> None:
        select = self.query_one("#status-filter", Select)
        current = self.status_filter
        select.value = STATUSES[(STATUSES.index(current) + 1) % len(STATUSES)]

    def set_status(self, status: str) -> None:
        self.query_one("#status-filter", Select).value = status

    def action_sort_next(self) -> None:
        if self.table is None:
            return
        columns = self.table.columns
        at = columns.index(self.sort_column) if self.sort_column in columns else -1
        self.sort_column, self.sort_reverse = columns[(at + 1) % len(columns)], False
        self.apply()

    def action_sort_menu(self) -> None:
        """Every column in a menu (`s` cycles through them one at a time)."""
        from tui.screens.sort_menu import SortMenu

        if self.table is None:
            return

        def picked(choice: tuple[str, bool] | None) -> None:
            if choice is not None:
                self.sort_by(*choice)
                self.query_one("#instances", VirtualTable).focus()

        self.app.push_screen(SortMenu(list(self.table.columns), self.sort_column, self.sort_reverse), picked)

    def action_sort_reverse(self) -> None:
        if self.table is None:
            return
        if self.sort_column is None:
            self.sort_column = self.table.columns[0]
        self.sort_reverse = not self.sort_reverse
        self.apply()

    def set_disagreement(self, failed: str, solved: str) -> None:
        """Narrow to the instances `failed` attempted and never solved and `solved` solved."""
        self.query_one("#search", Input).value = f"failed_by:{failed} solved_by:{solved}"

    def sort_by(self, column: str, reverse: bool = False) -> None:
        self.sort_column, self.sort_reverse = column, reverse
        self.apply()

    # -- marks, bookmarks, notes -----------------------------------------------------------------
    def reload_notes(self) -> None:
        if self.table is None:
            return
        try:
            self.notes = note_store.by_instance(self.app.workspace.log.db.conn, self.table.snapshot)
        except Exception as exc:  # an unreadable notes table must not stop the browser
            self.notes = {}
            self.notify(f"cannot read the notes: {exc}", severity="error", markup=False)
        self.table.notes = self.notes

    @property
    def current_row(self) -> Row | None:
        at = self.query_one("#instances", VirtualTable).cursor_row
        return self.view[at] if self.table is not None and 0 <= at < len(self.view) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "marked_menu" and not self.marked:
            return None  # shown dimmed: nothing is marked
        return True

    def action_mark(self) -> None:
        row = self.current_row
        if row is None:
            return
        self.marked.symmetric_difference_update({row.id})
        widget = self.query_one("#instances", VirtualTable)
        self.apply(keep_cursor=True)
        widget.action_cursor_down()  # like a file manager: space marks and moves on
        self.refresh_bindings()

    def action_bookmark(self) -> None:
        row = self.current_row
        if row is None or self.table is None:
            return
        note = note_store.toggle_bookmark(self.app.workspace.log.db.conn, self.table.snapshot, row.id)
        self.reload_notes()
        self.apply(keep_cursor=True)
        self.notify(f"{row.id}: {'bookmarked' if note.bookmarked else 'bookmark removed'}", markup=False)

    def action_edit_note(self) -> None:
        row = self.current_row
        if row is not None and self.table is not None:
            edit_note(self, self.table.snapshot, row.id, self._notes_changed)

    def _notes_changed(self) -> None:
        self.reload_notes()
        self.apply(keep_cursor=True)

    def action_marked_menu(self) -> None:
        from tui.screens.notes import MarkedMenu

        if not self.marked:
            self.notify("Nothing is marked: space marks the row under the cursor.", severity="warning")
            return
        self.app.push_screen(MarkedMenu(len(self.marked)), self.marked_action)

    def marked_ids(self) -> list[str]:
        """The marked ids in snapshot order."""
        return [r.id for r in self.table.rows if r.id in self.marked] if self.table is not None else []

    def marked_action(self, action: str | None) -> None:
        from tui.screens.notes import PromptScreen

        if action == "clear":
            self.marked.clear()
            self.apply(keep_cursor=True)
            self.refresh_bindings()
        elif action == "tag":
            self.app.push_screen(PromptScreen(f"Tag {len(self.marked)} marked instance(s) with:",
                                              placeholder="tags, space-separated"), self.tag_marked)
        elif action == "export":
            self.app.push_screen(PromptScreen("Export the marked instances (JSONL) to:",
                                              value=f"{self.table.snapshot if self.table else 'marked'}-marked.jsonl"),
                                 self.export_marked)
        elif action == "run":
            self.app.push_screen(PromptScreen("Send the marked instances as a run to (a solver: model:NAME, "
                                              "endpoint:model, baseline …):", value=self.last_run_solver), self.run_marked)

    def tag_marked(self, text: str | None) -> None:
        if not text or self.table is None:
            return
        from core.errors import UserError

        try:
            for iid in self.marked_ids():
                note_store.update(self.app.workspace.log.db.conn, self.table.snapshot, iid, add_tags=text.split())
        except UserError as exc:
            self.notify(str(exc), severity="error", markup=False)
        self._notes_changed()
        self.notify(f"tagged {len(self.marked)} instance(s): {text}", markup=False)

    def export_marked(self, path: str | None) -> None:
        if not path or self.table is None:
            return
        from tui.actions import export_instances

        try:
            count = export_instances(self.app.workspace, self.table.snapshot, self.marked_ids(), path)
        except Exception as exc:
            self.notify(f"cannot export: {exc}", severity="error", markup=False)
            return
        self.notify(f"exported {count} instance(s) to {path}", markup=False)

    def run_marked(self, solver: str | None) -> None:
        if not solver or self.table is None:
            return
        from tui.actions import start_marked_run

        self.last_run_solver = solver
        start_marked_run(self.app, self.table.snapshot, solver, self.marked_ids())


def middle_cut(text: str, width: int) -> str:
    """`text` in at most `width` characters, cut in the middle with an ellipsis (the end stays)."""
    if len(text) <= width:
        return text
    tail = width // 2
    return f"{text[:width - 1 - tail]}…{text[len(text) - tail:]}"

