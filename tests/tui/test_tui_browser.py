"""The browser: filters, sorting, the virtual table on 10,000 instances, help, palette, runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import MEMBERSHIP_SNAPSHOT, SIZE, FakeClock, render_text, settle
from textual.command import CommandPalette
from textual.widgets import Input

from core.attempts import AttemptRecord
from core.family import get_family
from core.instance import Snapshot
from core.runner import RunConfig, create_run
from core.store import LogStore, SnapshotStore
from tui.app import SembenchApp
from tui.data import Row, filter_rows, parse_query, sort_rows
from tui.families import view_for
from tui.families.cascade import CascadeStepper, matches
from tui.families.membership import MembershipStepper, probe_text
from tui.screens.browser import BrowserScreen
from tui.screens.help import HelpScreen
from tui.screens.runs import RunsScreen
from tui.widgets.plot import bar
from tui.widgets.steppers import SourceStepper
from tui.widgets.table import VirtualTable

BIG = 10_000


def rows() -> list[Row]:
    return [
        Row(0, "a-1", {"depth": 2, "kind": "wide"}, 0, False),
        Row(1, "a-2", {"depth": 5, "kind": "deep"}, 2, True),
        Row(2, "b-3", {"depth": 3, "kind": "deep"}, 1, False),
        Row(3, "b-4", {"depth": None, "kind": "wide"}, 0, False),
    ]


def test_query_filters_and_sorting() -> None:
    assert parse_query("depth>=3 kind=deep foo").conditions == [("depth", ">=", "3"), ("kind", "=", "deep")]
    assert [r.id for r in filter_rows(rows(), "depth>=3")] == ["a-2", "b-3"]
    assert [r.id for r in filter_rows(rows(), "kind:deep b")] == ["b-3"]
    assert [r.id for r in filter_rows(rows(), "kind!=deep")] == ["a-1", "b-4"]
    assert [r.id for r in filter_rows(rows(), "", "solved")] == ["a-2"]
    assert [r.id for r in filter_rows(rows(), "", "unsolved")] == ["a-1", "b-3", "b-4"]
    assert [r.id for r in filter_rows(rows(), "", "attempted")] == ["a-2", "b-3"]
    assert [r.id for r in filter_rows(rows(), "", "unattempted")] == ["a-1", "b-4"]
    assert [r.id for r in sort_rows(rows(), "depth")] == ["a-1", "b-3", "a-2", "b-4"]
    assert [r.id for r in sort_rows(rows(), "depth", reverse=True)] == ["a-2", "b-3", "a-1", "b-4"]  # missing last
    assert [r.id for r in sort_rows(rows(), "status")][0] == "a-2"


def test_registries_and_renderers() -> None:
    assert view_for("cascade").stepper is CascadeStepper
    assert view_for("membership").stepper is MembershipStepper
    assert view_for("no-such-family").stepper is SourceStepper
    assert matches("abab", "ab") == [(0, 2), (2, 4)] and matches("aaa", "aa") == [(0, 2)]
    text = probe_text([1, [2, [3]], 4], [1, 1])
    assert text.plain == "[1, [2, [3]], 4]"
    assert any(span.start == 8 and span.end == 11 for span in text.spans)
    assert bar(0.5, 1.0, 10) == "█████" and bar(0, 1.0, 10) == ""


async def test_filter_sort_in_the_app(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        browser.load_snapshot(MEMBERSHIP_SNAPSHOT)
        await pilot.pause()
        table = browser.query_one("#instances", VirtualTable)
        assert table.row_count == len(workbench.membership)
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"depth=3")
        await pilot.pause()
        assert browser.view and all(r.features["depth"] == 3 for r in browser.view)
        assert table.row_count == len(browser.view) < len(workbench.membership)
        await pilot.press("escape")  # clears the search and goes back to the table
        assert table.row_count == len(workbench.membership) and app.focused is table
        await pilot.press("s", "s", "s", "s")  # sort by the fourth column (#, id, status, depth)
        assert browser.sort_column == "depth"
        depths = [r.features["depth"] for r in browser.view]
        assert depths == sorted(depths)
        await pilot.press("S")
        assert [r.features["depth"] for r in browser.view] == sorted(depths, reverse=True)
        assert "sorted by depth ▼" in render_text(app)
        await pilot.press("f")  # status filter: all -> unsolved
        assert browser.status_filter == "unsolved"
        await pilot.click(VirtualTable, offset=(3, 0))  # click the "#" header
        assert browser.sort_column == "#"


async def test_search_never_sees_spoilers(make_app, workbench) -> None:
    """membership's `label` (the answer) is a spoiler feature: not a column, not searchable by word or by
    condition; the info line says the condition names no feature."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        browser.load_snapshot(MEMBERSHIP_SNAPSHOT)
        await pilot.pause()
        table = browser.query_one("#instances", VirtualTable)
        assert "label" not in table.columns and all("label" not in r.features for r in browser.table.rows)
        search = browser.query_one("#search", Input)
        for text in ("negative", "positive", "label=negative", "label:positive"):
            search.value = text
            await pilot.pause()
            assert browser.view == [] and table.row_count == 0, text
        assert "no feature 'label'" in render_text(app)
        search.value = "depth=2"
        await pilot.pause()
        assert 0 < len(browser.view) < len(workbench.membership)


async def test_help_palette_and_runs(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "Sembench workbench" in render_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, BrowserScreen)
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"Runs")
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RunsScreen)
        assert "0 run(s)" in render_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, BrowserScreen)
        await pilot.press("ctrl+p", *"open snapshot membership")
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.table is not None and app.screen.table.snapshot == MEMBERSHIP_SNAPSHOT


async def test_runs_live_progress_and_metrics(make_app, workbench, monkeypatch) -> None:
    """A run written by another connection (as `sembench run` in another process would) shows up live."""
    import tui.screens.runs as runs_screen

    # a run whose report is costly (none is, here): its metrics are recomputed at most every REPORT_EVERY_S
    monkeypatch.setattr(runs_screen, "INLINE_REPORT_S", 0.0)
    monkeypatch.setattr(runs_screen, "INLINE_ATTEMPTS", 0)
    family = get_family("membership")
    writer = LogStore(workbench.log)
    config = RunConfig(snapshot=MEMBERSHIP_SNAPSHOT, solver="baseline", samples=1)
    run_id = create_run(writer, config, family, total=len(workbench.membership))

    def write(n: int) -> None:
        for instance in workbench.membership[:n]:
            answer, verdict = family.check(instance, family.oracle_response(instance))
            record = AttemptRecord(run_id=run_id, snapshot=MEMBERSHIP_SNAPSHOT, instance_id=instance.id,
                                   family=family.id, solver="baseline", source="run", response="x", answer=answer,
                                   verdict=verdict, correct=verdict.correct, score=verdict.score,
                                   status=verdict.status)
            writer.add_attempt(record.row())

    write(3)
    clock = FakeClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        await settle(pilot)
        assert screen.runs[0]["done"] == 3 and screen.runs[0]["correct"] == 3
        assert screen.states[run_id] == "running"  # this process is alive and beat just now
        text = render_text(app)
        assert run_id in text and f"3/{len(workbench.membership)}" in text and "accuracy by depth" in text
        assert "running" in text and "by by" not in text
        write(len(workbench.membership))  # "another process" goes on
        screen._tick()  # what the 1 s timer does
        await settle(pilot)
        assert screen.runs[0]["done"] == len(workbench.membership)
        assert screen._shown_done[run_id] == 3  # the report is throttled: not recomputed within 5 s
        clock.now += 5.0
        screen._tick()
        await settle(pilot)
        assert screen._shown_done[run_id] == len(workbench.membership)  # metrics recomputed as it moved
        screen.query_one("#run-report").scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert "by label" in render_text(app)
    writer.close()


@pytest.fixture(scope="module")
def big_snapshot(tmp_path_factory: pytest.TempPathFactory, membership_instances) -> Path:
    """10,000 instances (copies of generated ones under new ids)."""
    path = tmp_path_factory.mktemp("big") / "snapshots.db"
    family = get_family("membership")
    base = membership_instances
    many = [base[i % len(base)].model_copy(update={"id": f"membership-big-{i:05d}"}) for i in range(BIG)]
    store = SnapshotStore(path, writable=True)
    store.write_snapshot(Snapshot(name="big", family="membership", count=BIG), many,
                         features=family.feature_values)
    store.close()
    return path


async def test_ten_thousand_instances_open_instantly(big_snapshot: Path, tmp_path: Path) -> None:
    app = SembenchApp(db=tmp_path / "log.db", snapshots=big_snapshot)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        browser.load_snapshot("big")
        await pilot.pause()
        table = browser.query_one("#instances", VirtualTable)
        assert table.row_count == BIG
        browser.query_one("#search", Input).value = "depth=3"
        await settle(pilot)
        assert 0 < table.row_count < BIG
        table.focus()
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1
        assert "membership-big-09999" in render_text(app) or "membership-big-0999" in render_text(app)
        # How fast: tests/bench/bench_tui_startup.py and bench_tui_runs.py measure it (no timing here).


async def test_no_snapshots_says_how_to_get_some(tmp_path: Path) -> None:
    app = SembenchApp(db=tmp_path / "log.db", snapshots=tmp_path / "absent.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = render_text(app)
        assert "No snapshots yet" in text and "sembench snapshot build" in text
        await pilot.press("s", "f", "S", "enter")  # nothing to sort or open: nothing breaks
        assert isinstance(app.screen, BrowserScreen)
