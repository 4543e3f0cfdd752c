"""Debugging a rejection: the runs screen drills down to a run's attempts and to the instance
with one attempt open, resumes an interrupted run, and each attempt shows its tokens, latency, finish
reason and cost; `y` copies, the instance exports as JSONL, re-ask sends the same instance again, and the
model picker lists what the endpoints report. Pilot tests on the real app with the real runner."""

from __future__ import annotations

import json

import pytest
from conftest import MEMBERSHIP_SNAPSHOT, SIZE, render_text, settle
from textual.widgets import DataTable

from core.attempts import AttemptRecord
from core.family import get_family
from core.runner import RunConfig, create_run, set_status
from core.store import LogStore
from tests.models.fakeserver import FakeServer, Reply
from tui.screens.attempts import AttemptsScreen
from tui.screens.instance import InstanceScreen
from tui.screens.runs import RunsScreen


def record(family, instance, solver: str, response: str, run_id: str | None = None, **extra) -> dict:
    answer, verdict = family.check(instance, response)
    return AttemptRecord(run_id=run_id, snapshot=MEMBERSHIP_SNAPSHOT, instance_id=instance.id, family=family.id,
                         solver=solver, source="run", response=response, answer=answer, verdict=verdict,
                         correct=verdict.correct, score=verdict.score, status=verdict.status,
                         **extra).row()


def stopped_run(workbench, done: int, solver: str = "baseline", wrong: int | None = None, **extra) -> str:
    """A run of `solver` on the membership snapshot that stopped after `done` attempts (`wrong`: the index
    of an attempt answered with the opposite label)."""
    family = get_family("membership")
    store = LogStore(workbench.log)
    run_id = create_run(store, RunConfig(snapshot=MEMBERSHIP_SNAPSHOT, solver=solver, samples=1), family,
                        total=len(workbench.membership))
    for i, instance in enumerate(workbench.membership[:done]):
        response = family.oracle_response(instance)
        if i == wrong:
            response = {"true": "False", "false": "True"}.get(response.strip().lower(), "no answer")
        store.add_attempt(record(family, instance, solver, response, run_id, **extra))
    set_status(store, run_id, "interrupted")
    store.close()
    return run_id


async def test_enter_on_a_run_lists_its_attempts_and_enter_opens_the_instance(make_app, workbench) -> None:
    run_id = stopped_run(workbench, 3, tokens_in=120, tokens_out=7, elapsed_s=1.5,
                         usage={"finish_reason": "length", "prompt_tokens": 120, "completion_tokens": 7})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AttemptsScreen)
        text = render_text(app)
        assert f"Runs › {run_id}" in text and "3 attempt(s) of baseline" in text
        assert "120/7" in text and "1.5s" in text and "length" in text
        table = screen.query_one("#attempts-table", DataTable)
        assert table.row_count == 3
        await pilot.press("down", "enter")
        await settle(pilot)
        instance = app.screen
        assert isinstance(instance, InstanceScreen)
        assert instance.instance.id == workbench.membership[1].id
        assert instance.active_tab == "verdict"
        assert instance.current is not None and instance.current.id == screen.rows[1]["id"]
        assert instance.answer_trace is not None  # the attempt's answer is in Step beside the truth
        assert f"Runs › {run_id} › {workbench.membership[1].id}" in render_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("escape")
        assert isinstance(app.screen, RunsScreen)


async def test_an_attempt_on_its_way_shows_loading_never_no_verdict(make_app, workbench, monkeypatch) -> None:
    """Opening an attempt from a run's list: until its verdict is there, Verdict says which attempt is
    loading (it said "No verdict yet: solve this instance", for seconds on a busy machine)."""
    run_id = stopped_run(workbench, 2)
    held: list[dict] = []
    monkeypatch.setattr(InstanceScreen, "open_attempt", lambda self, row: held.append(row))  # still on its way
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        attempts = app.screen
        assert isinstance(attempts, AttemptsScreen) and attempts.run["id"] == run_id
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, InstanceScreen) and held
        text = render_text(app)
        assert f"loading attempt #{held[0]['id']}" in text
        assert "No verdict yet" not in text


async def test_an_interrupted_run_shows_its_resume_command_and_R_resumes_it(make_app, workbench) -> None:
    run_id = stopped_run(workbench, 3)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot)
        text = render_text(app)
        assert f"run --resume {run_id}" in text and "R resumes it here" in text
        await pilot.press("R")
        await settle(pilot)
        await settle(pilot)
    store = LogStore(workbench.log)
    try:
        rows = store.attempts(run_id=run_id)
        assert len(rows) == len(workbench.membership)  # only what was missing was asked, in the same run
        assert store.get_run(run_id)["status"] == "finished"
    finally:
        store.close()


def write_prices(workbench, text: str = "[openai]\nprice_in_per_mtok = 2\nprice_out_per_mtok = 4\n") -> None:
    config = workbench.log.parent / "config" / "sembench" / "config.toml"  # the workbench's XDG_CONFIG_HOME
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)


async def test_each_attempt_shows_tokens_latency_finish_reason_and_cost(make_app, workbench) -> None:
    write_prices(workbench)
    usage = {"finish_reason": "stop", "prompt_tokens": 1_000_000, "completion_tokens": 500_000}
    run_id = stopped_run(workbench, 2, solver="openai:gpt-x", tokens_in=1_000_000, tokens_out=500_000,
                         elapsed_s=2.25, usage=usage)
    family = get_family("membership")
    store = LogStore(workbench.log)
    # an attempt of a solver with no price configured, and one with no token counts: no cost shown
    store.add_attempt(record(family, workbench.membership[0], "anthropic:claude-x",
                             family.oracle_response(workbench.membership[0]), tokens_in=10, tokens_out=3))
    store.close()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        text = render_text(app)
        assert text.count("$4.0000") == 2 and "1000000/500000" in text and "2.2s" in text and "stop" in text
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstanceScreen) and screen.sub_title.startswith(f"Runs › {run_id}")
        await pilot.press("5")
        await settle(pilot)
        table = screen.query_one("#history-table", DataTable)
        cells = {str(table.get_row_at(i)[2]): [str(c) for c in table.get_row_at(i)] for i in range(table.row_count)}
        assert set(cells) == {"openai:gpt-x", "anthropic:claude-x"}
        model = cells["openai:gpt-x"]
        assert "1000000/500000" in model and "stop" in model and "$4.0000" in model
        other = cells["anthropic:claude-x"]
        assert "10/3" in other and not any(c.startswith("$") for c in other)


async def open_attempt_from_run(app, pilot, row: int = 0) -> InstanceScreen:
    await pilot.press("r")
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    for _ in range(row):
        await pilot.press("down")
    await pilot.press("enter")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, InstanceScreen) and screen.current is not None
    return screen


async def test_y_copies_the_prompt_reply_answer_or_verdict(make_app, workbench) -> None:
    from tui.screens.debugging import CopyMenu

    stopped_run(workbench, 2, wrong=1)
    family = get_family("membership")
    instance = workbench.membership[1]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_attempt_from_run(app, pilot, row=1)
        assert screen.current.correct is False  # the rejected one
        copied = {}
        for key, what in (("1", "prompt"), ("2", "reply"), ("3", "answer"), ("4", "verdict")):
            await pilot.press("y")
            await settle(pilot)
            assert isinstance(app.screen, CopyMenu)
            await pilot.press(key)
            await settle(pilot)
            assert app.screen is screen
            copied[what] = app.clipboard
        prompt = family.prompt(instance, family.prompt_styles[0])
        assert copied["prompt"] == "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in prompt.messages) or \
            copied["prompt"] == prompt.messages[0]["content"]
        assert instance.id not in copied["reply"] and copied["reply"] == screen.current.response
        answer, verdict = family.check(instance, screen.current.response)
        assert copied["answer"] == (answer.value if isinstance(answer.value, str) else
                                    json.dumps(answer.value, ensure_ascii=False, indent=2))
        shown = json.loads(copied["verdict"])
        assert shown["correct"] is False and shown["status"] == verdict.status
        # the menu goes by arrows and enter too, and escape copies nothing
        app.copy_to_clipboard("")
        await pilot.press("y", "down", "enter")
        await settle(pilot)
        assert app.clipboard == copied["reply"]
        await pilot.press("y", "escape")
        await settle(pilot)
        assert app.screen is screen


async def test_export_writes_the_instance_its_attempts_and_its_notes(make_app, workbench, tmp_path) -> None:
    from textual.widgets import Input

    from core.store import notes
    from tui.screens.debugging import ExportPrompt

    run_id = stopped_run(workbench, 2)
    instance = workbench.membership[0]
    family = get_family("membership")
    store = LogStore(workbench.log)
    store.add_attempt(record(family, instance, "oracle", family.oracle_response(instance)))
    notes.update(store.db.conn, MEMBERSHIP_SNAPSHOT, instance.id, bookmark=True, text="why rejected?")
    store.close()
    out = tmp_path / "out" / "one.jsonl"
    out.parent.mkdir()
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_attempt_from_run(app, pilot)
        await pilot.press("E")
        await settle(pilot)
        assert isinstance(app.screen, ExportPrompt)
        app.screen.query_one("#export-path", Input).value = str(out)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        # a path that cannot be written is a notification, never a crash
        await pilot.press("E")
        await settle(pilot)
        app.screen.query_one("#export-path", Input).value = str(tmp_path / "missing" / "x.jsonl")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        assert any(n.severity == "error" and "cannot export" in n.message for n in app._notifications)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["kind"] for line in lines] == ["instance", "attempt", "attempt", "notes"]
    assert lines[0]["id"] == instance.id and lines[0]["snapshot"] == MEMBERSHIP_SNAPSHOT
    assert family.parse_instance(lines[0]).id == instance.id
    assert {(a["solver"], a["run_id"]) for a in lines[1:3]} == {("baseline", run_id), ("oracle", None)}
    assert isinstance(lines[1]["verdict"], dict) and lines[1]["verdict"]["correct"] is True
    assert lines[3]["bookmarked"] is True and lines[3]["note"] == "why rejected?"


@pytest.fixture
def server(tmp_path, monkeypatch, workbench):
    with FakeServer(chunk_size=8, models=["fake-model", "other-model"]) as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        config = tmp_path / "sembench.toml"
        config.write_text("[openai]\nmax_retries = 0\ntimeout_s = 20\n", encoding="utf-8")
        monkeypatch.setenv("SEMBENCH_CONFIG", str(config))
        yield srv


async def test_reask_sends_the_same_instance_with_the_same_solver_and_options(make_app, workbench, server) -> None:
    from textual.widgets import Input, Select

    family = get_family("membership")
    instance = workbench.membership[0]
    server.reply = lambda req: Reply(family.oracle_response(instance))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(MEMBERSHIP_SNAPSHOT, instance.id, tab="solve")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstanceScreen)
        screen.query_one("#solver", Select).value = "model:openai"
        await pilot.pause()
        screen.query_one("#model-name", Input).value = "fake-model"
        screen.query_one("#temperature", Input).value = "0.3"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert len(screen.history) == 1
        first = screen.history[0]["id"]
        # the Solve tab's options change afterwards: the re-ask keeps the attempt's own
        screen.query_one("#temperature", Input).value = "0.9"
        await pilot.press("5")
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert [row["solver"] for row in screen.history] == ["openai:fake-model"] * 2
        assert screen.history[0]["id"] == first and screen.history[1]["id"] != first  # the old one kept
        temperatures = [req.json["temperature"] for req in server.requests if req.path.endswith("/chat/completions")]
        assert temperatures == [0.3, 0.3]


async def test_reask_of_a_run_attempt_uses_the_run_options(make_app, workbench, server) -> None:
    from core.models import SamplingParams

    family = get_family("membership")
    instance = workbench.membership[0]
    store = LogStore(workbench.log)
    run_id = create_run(store, RunConfig(snapshot=MEMBERSHIP_SNAPSHOT, solver="openai:fake-model", samples=1,
                                         params=SamplingParams(temperature=0.7, max_tokens=321)),
                        family, total=1)
    store.add_attempt(record(family, instance, "openai:fake-model", "no idea", run_id))
    store.close()
    server.reply = lambda req: Reply(family.oracle_response(instance))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_attempt_from_run(app, pilot)
        await pilot.press("5")
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert [(row["run_id"], bool(row["correct"])) for row in screen.history] == [(run_id, False), (None, True)]
        body = server.last_request.json
        assert body["temperature"] == 0.7 and body["max_tokens"] == 321


async def test_model_picker_lists_what_the_endpoints_report(make_app, workbench, server, monkeypatch) -> None:
    import socket

    from textual.widgets import Input, Select

    # an Ollama endpoint on a port nobody listens on: shown as not answering, never an error
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    monkeypatch.setenv("OLLAMA_HOST", f"http://127.0.0.1:{dead}")
    family = get_family("membership")
    instance = workbench.membership[0]
    server.reply = lambda req: Reply(family.oracle_response(instance))
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.open_instance(MEMBERSHIP_SNAPSHOT, instance.id, tab="solve")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstanceScreen)
        screen.query_one("#solver", Select).value = "model:openai"
        await settle(pilot)
        pick = screen.query_one("#model-pick", Select)
        assert [value for _, value in pick._options if isinstance(value, str)] == ["fake-model", "other-model"]
        text = render_text(app)
        assert "2 model(s) listed" in text and "not answering" in text and f"127.0.0.1:{dead}" in text
        assert not [n for n in app._notifications if n.severity == "error"]
        pick.value = "other-model"
        await settle(pilot)
        name = screen.query_one("#model-name", Input)
        assert name.value == "other-model"
        # free text stays allowed: a name the endpoint did not list is sent as typed
        name.value = "unlisted-model"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert server.last_request.json["model"] == "unlisted-model"
        assert screen.history[-1]["solver"] == "openai:unlisted-model"
        # the Ollama endpoint lists nothing: its picker is empty and disabled, the field still free
        screen.query_one("#solver", Select).value = "model:ollama"
        await settle(pilot)
        assert pick.disabled and not [v for _, v in pick._options if isinstance(v, str)]


def test_help_lists_the_debugging_keys_and_the_screens_bind_them() -> None:
    from tui.screens.help import HELP

    for key in ("`y`", "`E`", "`R`", "Runs › run › instance"):
        assert key in HELP
    instance_keys = {b.key: b.action for b in InstanceScreen.BINDINGS}
    assert instance_keys["y"] == "copy" and instance_keys["E"] == "export" and instance_keys["R"] == "reask"
    assert {b.key: b.action for b in RunsScreen.BINDINGS}["R"] == "resume"


async def test_R_on_a_human_session_run_never_runs_the_runner(make_app, workbench, monkeypatch) -> None:
    """A human session is resumed by the session screen (when that module is there), never by the runner."""
    import importlib.util

    run_id = stopped_run(workbench, 2)
    store = LogStore(workbench.log)
    store.db.execute("update runs set options = ? where id = ?", ['{"session": {"name": "ann"}}', run_id])
    store.db.conn.commit()
    store.close()
    calls = []
    has_sessions = importlib.util.find_spec("tui.screens.session") is not None
    if has_sessions:  # the session module's own tests cover what resuming a session does
        from tui.screens import session

        monkeypatch.setattr(session, "resume_session", lambda app_, rid: calls.append(rid))
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        if not has_sessions:
            assert any("human session" in n.message for n in app._notifications)
    store = LogStore(workbench.log)
    try:
        assert len(store.attempts(run_id=run_id)) == 2  # the runner never asked the rest
    finally:
        store.close()
    assert calls == ([run_id] if has_sessions else [])
