"""Command palette (ctrl+p): screens, snapshots, filters, sorting, solving."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider


class SembenchCommands(Provider):
    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        from tui.data import ANY_BUT_ORACLE, ORACLE, PEOPLE_AND_MODELS, SOLVERS_COLUMN, STATUSES, solvers_in
        from tui.screens.browser import BrowserScreen
        from tui.screens.instance import InstanceScreen
        from tui.screens.notes import MARKED_ACTIONS

        app = self.app
        commands: list[tuple[str, Callable[[], object], str]] = [
            ("Runs", app.action_runs, "batch runs: live progress, metrics, plot"),
            ("Help", app.action_help, "screens and keys"),
            ("Browser", app.action_browser, "back to the snapshot browser"),
        ]
        for snap, origin in app.workspace.snapshots():
            commands.append((f"Open snapshot {snap.name}", partial(app.open_snapshot, snap.name),
                             f"{snap.family}, {snap.count} instances ({origin})"))
        screen = self.screen
        if isinstance(screen, BrowserScreen):
            for status in STATUSES:
                commands.append((f"Show {status} instances", partial(screen.set_status, status), "filter"))
            solvers = [s for s in solvers_in(app.summary or {}) if s != ORACLE]
            for a in solvers:  # the disagreement filter, for every ordered pair of solvers
                for b in solvers:
                    if a != b:
                        commands.append((f"Failed by {a} and solved by {b}", partial(screen.set_disagreement, a, b),
                                         f"search: failed_by:{a} solved_by:{b}"))
            commands.append(("Sort by solvers (hardest first)", partial(screen.sort_by, SOLVERS_COLUMN),
                             "the fewest solvers solved it first"))
            if screen.marked:
                commands.append((f"Act on the {len(screen.marked)} marked rows", screen.action_marked_menu,
                                 "tag, export, send to a solver as a run"))
                for key, label in MARKED_ACTIONS:
                    commands.append((label, partial(screen.marked_action, key), "the rows marked with space"))
            commands.append(("Solved by models and people", partial(screen.set_solver, PEOPLE_AND_MODELS),
                             "the default: the oracle and the family's own solvers do not count"))
            commands.append(("Solved by any solver but the oracle", partial(screen.set_solver, ANY_BUT_ORACLE),
                             "the baseline counts too"))
            for solver in (s for s in solvers_in(app.summary or {}) if s != ORACLE):
                commands.append((f"Solved by {solver}", partial(screen.set_solver, solver),
                                 "the solved/attempted filter and marks count this solver only"))
            commands.append(("Start a human-baseline session", screen.action_human_session,
                             "marked rows, the current filter or a seeded sample; or resume one (H)"))
            commands.append(("Toggle the snapshot pane", screen.action_toggle_pane, "more room for the table"))
            commands.append(("Sort menu", screen.action_sort_menu, "every column at once (O)"))
            if screen.table is not None:
                for column in screen.table.columns:
                    commands.append((f"Sort by {column}", partial(screen.sort_by, column), "sort ascending"))
        if isinstance(screen, InstanceScreen):
            for tab in ("problem", "step", "solve", "verdict", "history"):
                commands.append((f"Show {tab}", partial(screen.action_show_tab, tab), "instance tab"))
            commands.append(("Solve with the baseline", partial(app.solve_with, "baseline"),
                             "the family's own solver; the verdict appears in Verdict"))
            commands.append(("Step the ground truth from the start", screen.step_truth_from_start,
                             "the stepper, on the ground truth, at step 1"))
        return commands

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
