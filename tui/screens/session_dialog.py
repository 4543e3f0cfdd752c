"""The dialog that starts (or resumes) a human-baseline session: which instances (the browser's marked
rows, its current filter, or a seeded random sample of the snapshot, stratified by a feature if asked),
the person's name (asked once, remembered in tui.state) and whether each verdict is shown right after
the answer (off by default: a baseline is spoiler-free until the end). It only asks; tui.screens.session
starts the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, OptionList, RadioButton, RadioSet, Select, Static
from textual.widgets.option_list import Option

DEFAULT_K = 10


@dataclass(frozen=True)
class SessionChoice:
    """What the person asked for: a new session (`chosen_by` marked | filter | sample) or to resume one."""

    chosen_by: str = "sample"
    person: str = ""
    k: int = DEFAULT_K
    seed: int = 0
    stratify: str | None = None
    show_after_each: bool = False
    shuffle: bool = True  # the marked rows or the filter in a seeded random order (a sample always is)
    resume: str | None = None  # a run id: resume that session instead


class SessionDialog(ModalScreen[SessionChoice | None]):
    DEFAULT_CSS = """
    SessionDialog { align: center middle; }
    #session-box { width: 84; height: auto; max-height: 90%; border: thick $primary; background: $surface;
                   padding: 0 1; }
    #session-box Horizontal { height: auto; }
    #session-box Input { width: 1fr; }
    #session-k, #session-seed { width: 14; }
    #session-unfinished { height: auto; max-height: 8; }
    #session-buttons { margin-top: 1; }
    """
    BINDINGS = [
        Binding("escape", "dismiss_none", "Cancel"),
        Binding("ctrl+s", "start", "Start", priority=True),
    ]

    def __init__(self, *, snapshot: str, marked: int, filtered: int, total: int, features: tuple[str, ...],
                 person: str | None, unfinished: list[dict[str, Any]]) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.counts = {"marked": marked, "filter": filtered, "sample": total}
        self.features = features
        self.person = person or ""
        self.unfinished = unfinished

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="session-box"):
            yield Static(Text(f"Human-baseline session on {self.snapshot}", style="bold"))
            with RadioSet(id="session-source"):
                yield RadioButton(f"the marked rows ({self.counts['marked']})", id="src-marked",
                                  disabled=not self.counts["marked"], value=bool(self.counts["marked"]))
                yield RadioButton(f"the current filter ({self.counts['filter']} instances)", id="src-filter",
                                  value=not self.counts["marked"])
                yield RadioButton(f"a random sample of the snapshot ({self.counts['sample']} instances)",
                                  id="src-sample")
            with Horizontal():
                yield Label("k ")
                yield Input(str(DEFAULT_K), id="session-k", type="integer")
                yield Label(" seed ")
                yield Input("0", id="session-seed", type="integer")
                yield Select([(f, f) for f in self.features], prompt="stratify by (none)", id="session-stratify")
            with Horizontal():
                yield Label("your name ")
                yield Input(self.person, placeholder="asked once, remembered", id="session-person")
            yield Checkbox("shuffle the order (seeded; off: the marked rows' or the filter's order)", True,
                           id="session-shuffle")
            yield Checkbox("show the verdict after each answer (off: only at the end)", False, id="session-show")
            with Horizontal(id="session-buttons"):
                yield Button("Start (ctrl+s)", id="session-start", variant="primary")
                yield Button("Cancel (escape)", id="session-cancel")
            if self.unfinished:
                yield Static(Text("Unfinished sessions (enter resumes):", style="bold"))
                yield OptionList(*[Option(unfinished_label(run), id=run["id"]) for run in self.unfinished],
                                 id="session-unfinished")
            yield Static("", id="session-error")

    def on_mount(self) -> None:
        self.query_one("#session-person" if not self.person else "#session-source").focus()

    @property
    def source(self) -> str:
        pressed = self.query_one("#session-source", RadioSet).pressed_button
        return (pressed.id or "src-filter").removeprefix("src-") if pressed is not None else "filter"

    def error(self, text: str) -> None:
        self.query_one("#session-error", Static).update(Text(text, style="bold red"))

    def action_start(self) -> None:
        person = self.query_one("#session-person", Input).value.strip()
        if not person:
            self.error("Give your name: the session is recorded as human:NAME.")
            self.query_one("#session-person", Input).focus()
            return
        try:
            k = int(self.query_one("#session-k", Input).value or DEFAULT_K)
            seed = int(self.query_one("#session-seed", Input).value or 0)
        except ValueError:
            self.error("k and seed are whole numbers.")
            return
        source = self.source
        if not self.counts.get(source):
            self.error("No instance to ask: nothing is marked or the filter is empty.")
            return
        if source == "sample" and k < 1:
            self.error("k is at least 1.")
            return
        stratify = self.query_one("#session-stratify", Select).value
        self.dismiss(SessionChoice(chosen_by=source, person=person, k=k, seed=seed,
                                   stratify=stratify if isinstance(stratify, str) else None,
                                   show_after_each=self.query_one("#session-show", Checkbox).value,
                                   shuffle=self.query_one("#session-shuffle", Checkbox).value))

    @on(Button.Pressed, "#session-start")
    def _start(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#session-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_start()

    @on(OptionList.OptionSelected, "#session-unfinished")
    def _resume(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(SessionChoice(resume=event.option.id))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def unfinished_label(run: dict[str, Any]) -> str:
    done, total = run.get("done") or 0, run.get("total") or 0
    return f"{run['id']} · {run.get('solver', '')} · {done} of {total} · {run.get('snapshot', '')}"
