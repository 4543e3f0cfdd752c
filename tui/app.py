"""The Sembench workbench: `SembenchApp` and `run_app`.

It reads the bundled `snapshots.db` read-only (never writes it) and the user's log database (`--db`),
through `core.store.Workspace`.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from core.errors import UserError
from core.paths import asset
from core.store import Workspace
from tui.commands import SembenchCommands
from tui.listing import InstanceList

# The styles live with the project's other assets; found from this file, so any working directory works.
THEME = asset("themes", "sembench.tcss")
# Where the workbench is gets written this often when it changed: a closed terminal (SIGHUP) or a killed
# process loses at most this much of it.
SAVE_EVERY_S = 1.0


class SembenchApp(App[None]):
    TITLE = "Sembench"
    SUB_TITLE = "program-semantics reasoning benchmarks"
    CSS_PATH = THEME if THEME.exists() else None  # without it (an odd install) the widgets' own styles apply
    COMMANDS = App.COMMANDS | {SembenchCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("f1", "help", "Help"),  # shown in the footer when `?` is typed into an input instead
        Binding("r", "runs", "Runs"),
    ]

    def __init__(
        self,
        db: str | Path | None = None,
        snapshots: str | Path | None = None,
        *,
        workspace: Workspace | None = None,
        clock: Callable[[], float] = time.monotonic,
        fresh: bool = False,
    ) -> None:
        super().__init__(driver_class=quick_escape_driver())
        from tui.state import WorkbenchState, load_state

        # No animations unless asked for (TEXTUAL_ANIMATIONS): a tab's underline gliding to its place
        # repainted the screen a dozen times after each tab key, CPU that the next key waited for.
        if not os.environ.get("TEXTUAL_ANIMATIONS"):
            self.animation_level = "none"

        # Where the workbench was left (tui.state); `--fresh` starts from the defaults.
        self.saved = WorkbenchState() if fresh else load_state()
        self.snapshots_path = Path(snapshots) if snapshots else None
        self.workspace = workspace or Workspace(log_path=db, snapshots_path=self.snapshots_path)
        self.clock = clock
        # Attempts per instance and solver (`LogStore.solver_summary`), read by a worker and kept for the
        # session; `summary_marker` is the largest attempt id it covers (None: read it again).
        self.summary: dict[str, dict[str, tuple[int, bool]]] | None = None
        self.summary_marker: int | None = None
        # The Solve tab's choices (solver, model name, sampling options), kept from instance to instance.
        self.solve_prefs: dict[str, Any] = {k: v for k, v in self.saved.solve_prefs.items()
                                             if isinstance(v, str) or v is None}
        # Unsent human answers (tui.widgets.solve.Draft) of instances the user left, by InstanceScreen.draft_key.
        self.drafts: dict[str, Any] = {}
        # Instances (InstanceScreen.draft_key) whose answer a person revealed in human mode (gave up), and
        # those whose hint features they asked to see (`h`).
        self.revealed: set[str] = set()
        self.hints_shown: set[str] = set()
        # The human-baseline session open in this workbench (its run id), until its summary shows.
        self.session_run: str | None = None
        # The browser's current list, which the instance view's `]`/`[` walk (tui.listing).
        self.listing = InstanceList()
        self._instance_screen: Any = None  # the instance screen kept for the next Enter (open_instance)

    @property
    def hiding_hints(self) -> bool:
        """A person is answering by hand (a session is open, or human is the Solve tab's solver): the
        hint features (Family.hint_features) stay off the screen (the browser's columns, the headers)."""
        from tui.widgets.solve import HUMAN

        return self.session_run is not None or self.solve_prefs.get("choice") == HUMAN

    @property
    def log_path(self) -> Path:
        return self.workspace.log.path

    def invalidate_summary(self) -> None:
        """This app wrote an attempt: the browser's solved/attempted marks are read again."""
        self.summary_marker = None

    def get_default_screen(self) -> Screen:
        from tui.screens.browser import BrowserScreen

        return BrowserScreen()

    def on_mount(self) -> None:
        self._state_written: str | None = None
        self.set_interval(SAVE_EVERY_S, self.save_if_changed)
        # In a terminal, a full garbage collection that is due runs in a pause of the keys (tui.heap); under
        # Pilot (no input thread to say when keys came) only the collector's own schedule runs.
        if hasattr(self._driver, "idle_s"):
            from tui import heap

            self.set_interval(heap.CHECK_EVERY_S, self._collect_when_idle)

    def _collect_when_idle(self) -> None:
        from tui import heap

        heap.collect_when_idle(self._driver.idle_s())

    def on_unmount(self) -> None:
        self.save_state()
        self.workspace.close()

    def current_state(self) -> Any:
        """`saved` brought up to date (tui.state.WorkbenchState): the browser keeps its own part current
        (BrowserScreen.apply); the Solve tab's choices, the folded pane and the open instance are read here.
        Only while the browser is on the stack: while quitting the screens are gone, and what they last
        showed stands."""
        from tui.screens.browser import BrowserScreen
        from tui.screens.instance import InstanceScreen

        update: dict[str, Any] = {"solve_prefs": dict(self.solve_prefs)}
        if not self._running:
            # Shutting down: the screens are being taken apart (a closed terminal, a quit); what they
            # showed while running stands.
            self.saved = self.saved.model_copy(update=update)
            return self.saved
        stack = self.screen_stack
        browser = next((s for s in stack if isinstance(s, BrowserScreen)), None)
        if browser is not None and browser.is_mounted:
            update["pane_folded"] = browser.query_one("#snapshot-pane").has_class("collapsed")
            # the instance on top (a human session's is not reopened outside its session)
            top = next((s for s in reversed(stack) if type(s) is InstanceScreen), None)
            opened = top is not None and top.snapshot is not None and top.is_mounted
            update.update(instance=top.instance.id if opened else None,  # type: ignore[union-attr]
                          instance_snapshot=top.snapshot if opened else None,  # type: ignore[union-attr]
                          tab=top.active_tab if opened else None)  # type: ignore[union-attr]
        self.saved = self.saved.model_copy(update=update)
        return self.saved

    def save_if_changed(self) -> None:
        state = self.current_state()
        text = state.model_dump_json()
        if text != getattr(self, "_state_written", None):
            from tui.state import save_state

            save_state(state)
            self._state_written = text

    def save_state(self) -> None:
        """Remember where the workbench is, for the next start (tui.state)."""
        from tui.state import save_state

        save_state(self.current_state())

    # -- navigation ------------------------------------------------------------------------------
    def _pop_to_browser(self, then: Callable[[], object] | None = None) -> None:
        """Back to the browser; leaving an instance with a request in flight asks first (see
        `InstanceScreen.leave`), and its human draft is kept."""
        from tui.screens.browser import BrowserScreen
        from tui.screens.instance import InstanceScreen

        def pop() -> None:
            for screen in self.screen_stack:
                if isinstance(screen, InstanceScreen):
                    screen.keep_draft()
                    screen.action_cancel()
            while len(self.screen_stack) > 1 and not isinstance(self.screen, BrowserScreen):
                self.pop_screen()
            if then is not None:
                then()

        instance = next((s for s in reversed(self.screen_stack) if isinstance(s, InstanceScreen)), None)
        if instance is not None and instance.busy:
            instance.leave(pop)
        else:
            pop()

    def action_browser(self) -> None:
        self._pop_to_browser()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Typing in an input or the answer editor never quits or leaves (Textual gives them printable
        # keys first; this also hides the keys from the footer while one has the focus).
        if action in ("quit", "runs"):
            from textual.widgets import Input, TextArea

            if isinstance(self.focused, Input | TextArea):
                return False
        return True

    def requests_in_flight(self) -> int:
        from tui.screens.instance import InstanceScreen

        return sum(1 for screen in self.screen_stack if isinstance(screen, InstanceScreen) and screen.busy)

    def unsent_drafts(self) -> int:
        """Human answers typed and not sent: kept ones, and the one on an open instance."""
        from tui.screens.instance import InstanceScreen

        open_ = sum(1 for screen in self.screen_stack
                    if isinstance(screen, InstanceScreen) and screen.panel.current_draft() is not None)
        return len(self.drafts) + open_

    async def action_quit(self) -> None:
        """Quit; with a request still running or an unsent human answer, ask first."""
        from tui.screens.confirm import ConfirmScreen

        running, drafts = self.requests_in_flight(), self.unsent_drafts()
        if not running and not drafts:
            self.exit()
            return
        if isinstance(self.screen, ConfirmScreen):
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        lost = []
        if running:
            lost.append("a request is still running (it is cancelled)")
        if drafts:
            lost.append(f"{drafts} unsent answer(s) typed by hand would be lost")
        self.push_screen(ConfirmScreen(f"Quit anyway? {'; '.join(lost).capitalize()}."), answered)

    def action_runs(self) -> None:
        from tui.screens.runs import RunsScreen

        if not isinstance(self.screen, RunsScreen):
            self.push_screen(RunsScreen())

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def open_snapshot(self, name: str) -> None:
        from tui.screens.browser import BrowserScreen

        def load() -> None:
            if isinstance(self.screen, BrowserScreen):
                self.screen.open_snapshot(name)

        self._pop_to_browser(load)

    def load_instance(self, snapshot: str, instance_id: str) -> tuple[Any, Any]:
        """(family, instance) of one snapshot row; raises when it is missing or does not parse."""
        from core.family import get_family

        data = self.workspace.store_for(snapshot).instance_data(snapshot, instance_id)
        if data is None:
            raise UserError(f"instance {instance_id} is not in snapshot {snapshot}")
        family = get_family(str(data.get("family")))
        return family, family.parse_instance(data)

    def open_instance(self, snapshot: str, instance_id: str, tab: str = "problem") -> None:
        """Push the instance screen; a snapshot row that does not parse is a notification. Only from the
        browser (or with nothing but the browser open): a second Enter before the first instance screen is
        up must not stack another one."""
        from tui.screens.browser import BrowserScreen
        from tui.screens.instance import InstanceScreen

        if not isinstance(self.screen, BrowserScreen):
            return
        kept = self._instance_screen
        prepared = kept.prepared(snapshot, instance_id) if kept is not None else None
        try:
            family, instance = ((kept.family, prepared.instance) if prepared is not None
                                else self.load_instance(snapshot, instance_id))
        except Exception as exc:
            self.notify(f"cannot open {instance_id}: {exc}", severity="error", timeout=8, markup=False)
            return
        # The instance screen is kept (installed) when left, and shows the next instance of its family in
        # place: composing it anew cost Enter most of its time. A screen busy with a request (or a draft
        # kept for this instance) is left alone and a new one is made.
        if (kept is not None and kept.family.id == family.id and kept not in self.screen_stack
                and kept.swappable(snapshot, instance_id)):
            kept.swap(family, instance, snapshot, prepared)
            kept.open_on(tab)
            self.push_screen(kept)
            return
        screen = InstanceScreen(family, instance, snapshot, tab=tab)
        if kept is not None and kept not in self.screen_stack:
            self.uninstall_screen(kept)
        if kept is None or kept not in self.screen_stack:
            self.install_screen(screen, name=f"instance-{id(screen)}")
            self._instance_screen = screen
        self.push_screen(screen)

    def prepare_instance(self, snapshot: str, instance_id: str) -> None:
        """The browser's cursor rests on a row: the kept instance screen draws it ahead, so that Enter shows
        it without drawing (see InstanceScreen.prepare)."""
        kept = self._instance_screen
        if kept is not None and kept not in self.screen_stack:
            kept.prepare(snapshot, [instance_id])

    def solve_with(self, spec: str) -> None:
        from tui.screens.instance import InstanceScreen
        from tui.widgets.solve import SolveRequest

        if isinstance(self.screen, InstanceScreen):
            self.screen.action_show_tab("solve")
            self.screen.post_message(SolveRequest(spec, None, None, {}))


def quick_escape_driver() -> type | None:
    """tui.driver's on Linux terminals; None (Textual picks: headless under Pilot, Windows) elsewhere."""
    if sys.platform == "win32" or os.environ.get("TEXTUAL_DRIVER"):
        return None
    from tui.driver import QuickEscapeDriver

    return QuickEscapeDriver


def run_app(db: str | None = None, snapshots: str | None = None, fresh: bool = False) -> None:
    try:
        app = SembenchApp(db=db, snapshots=snapshots, fresh=fresh)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    app.run()
