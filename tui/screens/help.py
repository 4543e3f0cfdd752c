"""The help screen: what each screen does and its keys."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# Sembench workbench

**Browser** — snapshots on the left (bundled, and those in your log database), instances on the right.

| key | action |
|---|---|
| ↑ ↓ enter | move, open the instance (or double-click) |
| `/` | search: free words (ids and the visible features), `feature=value`, `feature>=3`, `feature!=x`; `bookmarked`, `tag:NAME`, `note:WORD`; `failed_by:A solved_by:B` (A tried and never solved, B solved) |
| `f` | cycle the filter: all, unsolved, solved, attempted, unattempted, bookmarked, solved by none, solved by exactly one |
| `m` | bookmark the row (★ in the `#` column) or remove the bookmark |
| `N` | the note and tags of the row's instance (ctrl+s saves) |
| `space` | mark the row (● in the `#` column) and move down; again unmarks |
| `A` | act on the marked rows: tag them, export them (instances JSONL), send them to a solver as a run, unmark |
| `s` / `S` | sort by the next column / reverse (or click a column header); the `solvers` column (k/m: solved by k of the m solvers that tried it) sorts hardest first; it and `status` count the same solvers, those of the solver menu (default: models and people; never the oracle) |
| `j` / `k` | down / up (as the arrow keys), in every list |
| `O` | sort menu: every column at once (enter ascending, `r` descending); the palette has "Sort by …" too |
| `o` | the snapshot list |
| `b` | fold the snapshot pane away (or back) |
| `r` | runs |

Solved and attempted count models and people by default: never the oracle (it replays the ground truth)
nor the family's own baseline. The solver menu beside the filter counts one solver only ("solved by
baseline") or every solver but the oracle. Search never sees features that give the answer away
(membership's label); a comparison with a value that is not a number (`depth>=abc`) says so.

**Instance** — tabs `1` Problem, `2` Step, `3` Solve, `4` Verdict, `5` History (from anywhere but a text
field); `escape` leaves a text field (the footer says "Leave editor"); straight after that, going back
to the browser takes `escape` twice (the footer says "Back: esc again"), so a reflexive second press stays
here; from anywhere else one `escape` goes back. Leaving while a request runs asks first; an answer
you typed and did not send is kept, with its clock, for when you come back.

| key | action |
|---|---|
| `n` `p` (or → ←) | next / previous step |
| `g` `G` | first / last step |
| `space` | play / pause |
| `a` | switch between the ground truth and the opened attempt's answer (beside the ground truth) |
| `s` | the solver picker (Solve tab) |
| `e` | type: the answer editor or the model name (Solve tab) |
| `ctrl+s` | send to the chosen solver (Solve tab) |
| `ctrl+x` | cancel the running request (while it streams or while its answer is checked) |
| `]` `[` | the next / previous instance of the browser's list (filtered, sorted), on the same tab; the header shows "k of n" |
| `m` | bookmark this instance (or remove the bookmark) |
| `N` | its note and tags (shown on the Problem tab; ctrl+s saves) |
| `y` | copy to the clipboard (a menu): the prompt, the raw reply, the extracted answer or the verdict |
| `E` | export this instance, its attempts and its notes as JSONL (asks for the path) |
| `R` | re-ask (History tab): the highlighted attempt's solver again, with its options; a new attempt |

The Step tab shows the family's own stepper, or the generic one: the focused source document highlighted
with the focus marked, the state table and the steps.

*Solve*: pick `baseline` (the family's own solver), `human` (type the answer), a configured model endpoint
(`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`, `OLLAMA_HOST` or the config file: give the model name and
sampling options, kept for the session; the models the endpoint reports are offered beside the name,
which stays free text) or, last, `oracle` (it shows the answer). The reply streams in;
the verdict, the diff and the model's reasoning appear in Verdict; every attempt is written to the log
database and listed in History, where `enter` re-opens it in Verdict and Step.

*Human mode*: the editor starts with the answer's format; above it, the problem and the prompt exactly
as a model gets it (`ctrl+up` `ctrl+down` scroll it, from the editor too). The editor grows with your
answer. The clock starts when the problem is shown and runs only while the Solve tab is on screen; that
time (shown to sent, pauses left out) and the time to your first keystroke are recorded. Until you send
(or pick another solver), Step and Verdict stay hidden, and so do the hint features (what gives the
answer's shape away, which a model is not told: a cascade's length, a type's polymorphism); `h` shows
them, recorded on your answer. After sending, your answer stays in the editor: edit it to make a new
attempt.

*Comparing* (History tab): `space` marks the attempt under the cursor (two at most), `c` compares the two
marked attempts side by side, or, with fewer marks, the one under the cursor with the latest attempt of
another solver: the two verdicts, a diff of the two answers, and the two answers' traces, stepped together
with `n` `p` `g` `G`; `escape` goes back.

The answer is checked (extracted and verified) in the background: a slow verifier never freezes the
workbench, and `ctrl+x` cancels it.

**Human-baseline sessions** (`H` in the browser, or the command palette) — answer a list of instances
one after another: the marked rows, the current filter, or a seeded random sample of the snapshot
(stratified by a feature if asked). The session is one run (solver `human:NAME`; your name is asked once
and remembered); each answer is recorded as it is sent, so `sembench report RUN` and `sembench compare`
read it like any run. Step's ground truth, Verdict and History stay hidden until the session ends, unless
you chose "show the verdict after each". The header says how far you are ("3 of 5").

| key | action |
|---|---|
| `H` | start a session, or resume an unfinished one (browser) |
| `ctrl+s` | send the answer (recorded with your time); one the family cannot read asks "send anyway?" (enter sends, escape goes back) |
| `ctrl+t` | pause / resume (the problem is covered, the clock stands still) |
| `ctrl+g` | skip the instance (counted as not solved) |
| `ctrl+n` | next instance (after the verdict, with "show after each") |
| `h` | show the hint features (recorded on your answer) |
| `ctrl+up` `ctrl+down` | scroll the problem and the prompt above the editor |
| `escape` | leave the session; `H` resumes it where it stopped |

At the end: accuracy with its 95% Wilson interval, time per instance, both by feature; `enter` on an
answer opens it with its verdict.

**Runs** (`r`) — batch runs in the log database (`sembench run …`), their state (running, stale when the
process is gone, finished) and live progress while another process writes them; the highlighted run's
metrics by difficulty feature and a plot. `enter` lists the run's attempts (instance, sample, verdict,
status, latency, tokens, finish reason, cost at the configured prices); `enter` on one opens its instance
with that attempt in Verdict and Step (the header shows the breadcrumb: Runs › run › instance). A run that
stopped before its end shows its resume command, and `R` resumes it here. `f5` refreshes, `escape` or `q`
goes back.

Anywhere: `ctrl+p` command palette, `?` (or `f1`) this help, `q` quit (it asks first while a request runs
or an answer typed by hand is unsent).
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("q", "dismiss", "Close", show=False),
        Binding("question_mark", "dismiss", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Markdown(HELP, id="help")

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
