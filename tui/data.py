"""What the workbench reads from core, shaped for tables: plain tuples, no pydantic model per row.

Filtering and sorting happen here, in Python, on the row tuples, so the browser stays instant on
10,000 instances and all of it is testable without a terminal.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from core.store import SnapshotStore

STATUSES = ("all", "unsolved", "solved", "attempted", "unattempted", "bookmarked", "solved by none",
            "solved by exactly one")
MARK = "●"  # a row marked with space (for a batch action)
BOOKMARK = "★"
SOLVERS_COLUMN = "solvers"  # k/m: k of the m solvers that tried it solved it (the solver menu's scope, as `status`)


class Row:
    """One instance in the browser table (slots, no model: 10,000 of them load in a blink)."""

    __slots__ = ("idx", "id", "features", "attempts", "solved", "by", "scoped", "_haystack")

    def __init__(self, idx: int, id: str, features: dict[str, Any], attempts: int = 0, solved: bool = False) -> None:
        self.idx = idx
        self.id = id
        self.features = features
        self.attempts = attempts
        self.solved = solved
        self.by: dict[str, tuple[int, bool]] = {}  # solver -> (attempts, solved), the oracle left out
        # (solvers that solved it, solvers that tried it) among those the scope counts: the same solvers
        # as `attempts` and `solved` (the status column), so the two columns never disagree
        self.scoped: tuple[int, int] = (0, 0)
        self._haystack: str | None = None

    @property
    def n_solvers(self) -> int:
        """How many solvers of the scope solved it at least once."""
        return self.scoped[0]

    @property
    def n_tried(self) -> int:
        """How many solvers of the scope tried it."""
        return self.scoped[1]

    @property
    def haystack(self) -> str:
        """Lower-case id and the row's (visible) feature values, for free-text search (built on first use)."""
        if self._haystack is None:
            self._haystack = " ".join([self.id, *(fmt_value(v) for v in self.features.values())]).lower()
        return self._haystack

    def __repr__(self) -> str:
        return f"Row({self.idx}, {self.id!r}, attempts={self.attempts}, solved={self.solved})"


@dataclass
class SnapshotTable:
    """A snapshot's instances, ready for the browser."""

    snapshot: str
    family: str
    features: tuple[str, ...]
    rows: list[Row] = field(default_factory=list)
    marked: set[str] = field(default_factory=set)  # the browser's space-marked ids
    notes: dict[str, Any] = field(default_factory=dict)  # instance id -> core.store.notes.Note
    _formatted: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)  # id -> feature cells

    @property
    def columns(self) -> list[str]:
        return ["#", "id", "status", *self.features, SOLVERS_COLUMN]

    def cells(self, row: Row) -> tuple[str, ...]:
        status = "✓ solved" if row.solved else (f"✗ {row.attempts} tried" if row.attempts else "")
        note = self.notes.get(row.id)
        # the marks lead the "#" cell: space-marked, bookmarked
        mark = (MARK if row.id in self.marked else "") + (BOOKMARK if note is not None and note.bookmarked else "")
        solvers = f"{row.n_solvers}/{row.n_tried}" if row.n_tried else ""
        features = self._formatted.get(row.id)
        if features is None:  # formatted once per row: a list is shown again after each sort and filter
            features = self._formatted[row.id] = tuple(fmt_value(row.features.get(f)) for f in self.features)
        return (f"{mark} {row.idx}" if mark else str(row.idx), row.id, status, *features, solvers)

    def update_summary(self, summary: dict[str, tuple[int, bool]], full: SolverSummary | None = None,
                       scope: str = "") -> None:
        for row in self.rows:
            row.attempts, row.solved = summary.get(row.id, (0, False))
            if full is not None:
                row.by = {s: v for s, v in full.get(row.id, {}).items() if s != ORACLE}
            row.scoped = scoped_counts(row.by, scope)


class Cells(Sequence[tuple[str, ...]]):
    """The table's cells for a list of rows, formatted only when a row is drawn."""

    def __init__(self, table: SnapshotTable, rows: list[Row]) -> None:
        self.table = table
        self.rows = rows
        self._cache: dict[int, tuple[str, ...]] = {}

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self.rows)))]
        cells = self._cache.get(index)
        if cells is None:
            cells = self._cache[index] = self.table.cells(self.rows[index])
        return cells


def fmt_value(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, list | dict):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def load_table(store: SnapshotStore, snapshot: str, family: str, features: tuple[str, ...] | None,
               summary: dict[str, tuple[int, bool]], full: SolverSummary | None = None,
               label: str | None = None, scope: str = "") -> SnapshotTable:
    """The snapshot's rows. With `features` (the family's visible ones, or fewer: none of cascade's
    while a person answers), a row keeps only those: a spoiler feature (membership's `label`) never
    reaches the browser, so no search or sort can use it. With None (a family this version does not
    know), rows keep what the file carries."""
    rows: list[Row] = []
    append = rows.append
    get = summary.get
    # `label` (Family.label_field): a payload field shown as a display column where ids are hashes
    if features is not None and label in features:
        label = None  # a family that already shows it as a feature
    labels = store.payload_field(snapshot, label) if label else {}
    for idx, iid, feats in store.feature_rows(snapshot):
        if features is not None:
            feats = {key: feats.get(key) for key in features}
        if label:
            feats = {label: labels.get(iid), **feats}
        n, solved = get(iid, (0, False))
        row = Row(idx, iid, feats, n, solved)
        if full is not None:
            row.by = {s: v for s, v in full.get(iid, {}).items() if s != ORACLE}
            row.scoped = scoped_counts(row.by, scope)
        append(row)
    if label and features is not None:
        features = (label, *features)
    return SnapshotTable(snapshot, family, features or (), rows)


# instance id -> solver -> (attempts, solved at least once): `LogStore.solver_summary()`
SolverSummary = dict[str, dict[str, tuple[int, bool]]]
# Whose attempts the solved/attempted marks count: models and people (the default), every solver but the
# oracle, or one solver by name. The oracle (the ground truth replayed) never counts unless named.
PEOPLE_AND_MODELS = ""
ANY_BUT_ORACLE = "*"
ORACLE = "oracle"
SCOPE_LABELS = {PEOPLE_AND_MODELS: "models & people", ANY_BUT_ORACLE: "any solver but the oracle"}


@functools.cache
def machine_solvers() -> frozenset[str]:
    """The families' own in-process solvers (baseline, oracle, extras such as random): not a model, not a
    person. Their names come from the families' summary cache (core.family_summary, what `sembench
    families` lists): resolving the solvers would import every family's solver modules (tree-sitter
    grammars, the imports knowledge base's code) right after the first paint, on every start. On a cache
    miss the summary is computed, which does import them: call this off the UI thread."""
    from core import family_summary
    from core.family import all_families

    names = {"baseline", ORACLE}
    families = list(all_families().values())
    try:
        for entry in family_summary.summaries(families):
            names.update(entry.get("solvers") or ())
    except Exception:  # a family whose summary fails: ask each one (the defaults still hold)
        for family in families:
            try:
                names.update(family.local_solvers())
            except Exception:
                continue
    return frozenset(names)


def counts(solver: str, scope: str) -> bool:
    if scope == PEOPLE_AND_MODELS:
        return solver not in machine_solvers()
    if scope == ANY_BUT_ORACLE:
        return solver != ORACLE
    return solver == scope


def scoped_counts(by: dict[str, tuple[int, bool]], scope: str) -> tuple[int, int]:
    """(solvers that solved, solvers that tried) among `by`'s solvers that `scope` counts."""
    solved = tried = 0
    for name, (_n, ok) in by.items():
        if counts(name, scope):
            tried += 1
            solved += ok
    return solved, tried


def summary_for(summary: SolverSummary, solver: str = PEOPLE_AND_MODELS) -> dict[str, tuple[int, bool]]:
    """instance id -> (attempts, solved) by the solvers `solver` (a scope or a solver's name) counts."""
    out: dict[str, tuple[int, bool]] = {}
    for iid, by in summary.items():
        mine = [(n, ok) for name, (n, ok) in by.items() if counts(name, solver)]
        if mine:
            out[iid] = (sum(n for n, _ in mine), any(ok for _, ok in mine))
    return out


def solvers_in(summary: SolverSummary) -> list[str]:
    return sorted({solver for by in summary.values() for solver in by})


def scope_label(scope: str) -> str:
    return SCOPE_LABELS.get(scope, scope)


def read_summary(log_path: Path, known_marker: int | None,
                 known: SolverSummary | None = None) -> tuple[int, SolverSummary | None]:
    """(attempts marker, the per-solver summary), or (marker, None) when nothing was written since
    `known_marker`. With `known` (the summary up to `known_marker`), only the attempts written since are
    read and added to a copy of it: a run writing in another process is followed every second without
    reading the whole log each time. Opens its own connection: it runs in a worker thread."""
    from core.store import LogStore

    machine_solvers()  # resolved here, in the worker, so the UI thread finds it cached
    store = LogStore(log_path)
    try:
        marker = store.change_marker()[0]
        if known_marker is not None and marker == known_marker:
            return marker, None
        if known is None or known_marker is None or marker < known_marker:
            return marker, store.solver_summary()
        summary = dict(known)  # the UI thread reads `known`: never changed in place
        for iid, by in store.solver_summary(since_id=known_marker).items():
            merged = dict(summary.get(iid, {}))
            for solver, (n, solved) in by.items():
                had_n, had_solved = merged.get(solver, (0, False))
                merged[solver] = (had_n + n, had_solved or solved)
            summary[iid] = merged
        return marker, summary
    finally:
        store.close()


def unknown_keys(query: Query, features: tuple[str, ...]) -> list[str]:
    """Condition keys that are not (visible) features: they match nothing."""
    return [key for key, _op, _value in query.conditions if key not in features and key not in SPECIAL_KEYS]


def non_numbers(query: Query) -> list[str]:
    """Comparisons (`<`, `>`, `<=`, `>=`) whose value is not a number: they match nothing."""
    return [f"{key}{op}{value}" for key, op, value in query.conditions
            if op in ("<", ">", "<=", ">=") and _num(value) is None]


# ---- filtering ------------------------------------------------------------------------------------
_COND = re.compile(r"^([A-Za-z_][\w.]*)(<=|>=|!=|=|<|>|:)(.*)$")


class Query(NamedTuple):
    conditions: list[tuple[str, str, str]]
    words: list[str]


def parse_query(text: str) -> Query:
    """`feature=value`, `feature>=3`, `feature!=x` and free words (matched against id and values)."""
    conditions: list[tuple[str, str, str]] = []
    words: list[str] = []
    for token in text.split():
        match = _COND.match(token)
        if match and match.group(3):
            key, op, value = match.groups()
            conditions.append((key, "=" if op == ":" else op, value))
        else:
            words.append(token.lower())
    return Query(conditions, words)


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value))
    except (TypeError, ValueError):
        return None


def _holds(actual: Any, op: str, wanted: str) -> bool:
    if op in ("=", "!="):
        text = fmt_value(actual).lower()
        equal = text == wanted.lower() or (str(actual).lower() == wanted.lower())
        return equal if op == "=" else not equal
    a, w = _num(actual), _num(wanted)
    if a is None or w is None:
        return False
    return {"<": a < w, ">": a > w, "<=": a <= w, ">=": a >= w}[op]


# Search keys that are not features: the researcher's notes (core.store.notes.matches) and who solved what.
NOTE_KEYS = ("tag", "note")
SOLVED_BY, FAILED_BY = "solved_by", "failed_by"
SPECIAL_KEYS = (*NOTE_KEYS, SOLVED_BY, FAILED_BY)


def _status_ok(row: Row, status: str) -> bool:
    if status == "solved by none":
        return row.n_solvers == 0
    if status == "solved by exactly one":
        return row.n_solvers == 1
    if status == "solved":
        return row.solved
    if status == "unsolved":
        return not row.solved
    if status == "attempted":
        return row.attempts > 0
    if status == "unattempted":
        return row.attempts == 0
    return True


def _by(row: Row, solver: str) -> tuple[int, bool]:
    return row.by.get(solver, (0, False))


def filter_rows(rows: list[Row], query: Query | str = "", status: str = "all",
                notes: dict[str, Any] | None = None) -> list[Row]:
    """Rows matching the status filter and every search term. `notes` (instance id -> Note) serves the
    terms `bookmarked`, `tag:NAME`, `note:WORD`; `solved_by:B` and `failed_by:A` (attempted, never
    solved) read each row's per-solver summary: `failed_by:A solved_by:B` is "failed by A, solved by B"."""
    from core.store.notes import matches

    if isinstance(query, str):
        query = parse_query(query)
    notes = notes or {}
    out = rows
    if status == "bookmarked":
        out = [r for r in out if matches(notes.get(r.id), "bookmarked")]
    elif status != "all":
        out = [r for r in out if _status_ok(r, status)]
    for key, op, value in query.conditions:
        if key in NOTE_KEYS:
            out = [r for r in out if matches(notes.get(r.id), f"{key}:{value}")]
        elif key == SOLVED_BY:
            out = [r for r in out if _by(r, value)[1]]
        elif key == FAILED_BY:
            out = [r for r in out if _by(r, value)[0] > 0 and not _by(r, value)[1]]
        else:
            out = [r for r in out if _holds(r.features.get(key), op, value)]
    for word in query.words:
        if word == "bookmarked":
            out = [r for r in out if matches(notes.get(r.id), word)]
        else:
            out = [r for r in out if word in r.haystack]
    return out


def sort_key_for(column: str):
    """A key function on rows for a table column name; None/missing values sort last."""

    def by_value(value: Any) -> tuple[int, float | str]:
        if value is None:
            return (2, "")
        number = _num(value)
        return (0, number) if number is not None else (1, str(value))

    if column == "#":
        return lambda r: r.idx
    if column == "id":
        return lambda r: r.id
    if column == "status":
        return lambda r: (not r.solved, -r.attempts, r.idx)
    if column == SOLVERS_COLUMN:  # hardest first: solved by the fewest solvers, then by the most tried
        return lambda r: (r.n_solvers, -r.n_tried, r.idx)
    return lambda r: by_value(r.features.get(column))


def sort_rows(rows: list[Row], column: str | None, reverse: bool = False) -> list[Row]:
    if column is None:
        return rows
    ordered = sorted(rows, key=sort_key_for(column))
    if reverse:
        # keep missing values last when reversing
        present = [r for r in ordered if column in ("#", "id", "status", SOLVERS_COLUMN) or r.features.get(column) is not None]
        missing = ordered[len(present):]
        ordered = present[::-1] + missing
    return ordered


# ---- runs ------------------------------------------------------------------------------------------
LIVE_STATES = ("running",)


@dataclass
class RunsPoll:
    """What one poll of the log database found: `runs` is None when nothing changed since the last one."""

    marker: tuple[int, int, str]
    runs: list[dict[str, Any]] | None = None
    counts: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    cluster: dict[str, dict[str, Any]] = field(default_factory=dict)  # running run id -> its cluster counts


def poll_runs(log_path: Path, marker: tuple[int, int, str] | None, counts: dict[str, tuple[int, int, int]],
              states: dict[str, str], force: bool = False) -> RunsPoll:
    """Runs with their live state, and fresh (done, correct, errors) only for the runs that can have
    moved: new ones, running or stale ones when attempts were written, ones whose state changed.

    Cheap when nothing runs: one index lookup and a pass over `runs` (the change marker). It opens its
    own connection: it runs in a worker thread, never on the UI thread."""
    from core.store import LogStore

    store = LogStore(log_path)
    try:
        with read_snapshot(store.db.conn):
            return read_runs(store, marker, counts, states, force)
    finally:
        store.close()


@contextmanager
def read_snapshot(conn: Any) -> Iterator[None]:
    """One read transaction: what is read inside it is one moment of the log (WAL readers see the last
    commit before their first read), e.g. the runs' states with their counts, and a run's report with
    them. Nothing is written in it; a write made inside (a report's cache) ends it early, harmlessly."""
    conn.execute("begin")
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.rollback()


def read_runs(store: Any, marker: tuple[int, int, str] | None, counts: dict[str, tuple[int, int, int]],
              states: dict[str, str], force: bool = False) -> RunsPoll:
    """`poll_runs` on an open `LogStore` (inside the caller's `read_snapshot`)."""
    from core.runner import list_runs

    now = store.change_marker()
    live = any(state in LIVE_STATES for state in states.values())
    if not force and not live and marker is not None and now == marker:
        return RunsPoll(now)
    runs = list_runs(store)
    moved = marker is None or now[0] != marker[0]
    need = [r["id"] for r in runs
            if r["id"] not in counts or states.get(r["id"]) != r.get("state")
            or (moved and r.get("state") in ("running", "stale"))]
    fresh = store.run_counts(need) if need else {}
    for run_id in need:
        fresh.setdefault(run_id, (0, 0, 0))
    runs.reverse()  # newest first
    from core.cluster.progress import read_progress

    cluster = read_progress(store.db, [r["id"] for r in runs if r.get("state") in LIVE_STATES])
    return RunsPoll(now, runs, fresh, cluster)


def parse_json(value: Any) -> Any:
    if value is None or not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return None


# ---- attempts --------------------------------------------------------------------------------------
@dataclass
class AttemptView:
    """One attempt as the Verdict, Step and History tabs show it (fresh from a solve, or from the log)."""

    id: int | None
    instance_id: str
    solver: str
    source: str | None = None
    started: str | None = None
    elapsed_s: float | None = None
    human_time_s: float | None = None
    response: str = ""
    reasoning: str | None = None
    answer: Any = None  # core.verdict.Answer
    verdict: Any = None  # core.verdict.Verdict
    error: str | None = None
    error_kind: str | None = None
    correct: bool | None = None
    score: float | None = None
    status: str | None = None
    family: str | None = None
    pending: str | None = None  # what is still being computed for this verdict, in the background

    @classmethod
    def from_record(cls, record: Any, attempt_id: int | None) -> AttemptView:
        return cls(
            id=attempt_id, instance_id=record.instance_id, solver=record.solver, source=record.source,
            started=record.started, elapsed_s=record.elapsed_s, human_time_s=record.human_time_s,
            response=record.response or "", reasoning=record.reasoning, answer=record.answer,
            verdict=record.verdict, error=record.error, error_kind=record.error_kind, correct=record.correct,
            score=record.score, status=record.status, family=record.family,
        )

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> AttemptView:
        from core.verdict import Answer, Verdict

        answer = verdict = None
        raw_answer, raw_verdict = parse_json(row.get("answer")), parse_json(row.get("verdict"))
        try:
            answer = Answer.model_validate(raw_answer) if isinstance(raw_answer, dict) else None
        except ValueError:
            answer = None
        try:
            verdict = Verdict.model_validate(raw_verdict) if isinstance(raw_verdict, dict) else None
        except ValueError:
            verdict = None
        correct = row.get("correct")
        return cls(
            id=row.get("id"), instance_id=row.get("instance_id") or "", solver=row.get("solver") or "?",
            source=row.get("source"), started=row.get("started"), elapsed_s=row.get("elapsed_s"),
            human_time_s=row.get("human_time_s"), response=row.get("response") or "",
            reasoning=row.get("reasoning"), answer=answer, verdict=verdict, error=row.get("error"),
            error_kind=row.get("error_kind"), correct=None if correct is None else bool(correct),
            score=row.get("score"), status=row.get("status"), family=row.get("family"),
        )

    @property
    def title(self) -> str:
        number = f"#{self.id} " if self.id is not None else ""
        return f"attempt {number}({self.solver})"


def short_time(iso: str | None) -> str:
    """`2026-11-21T10:33:22.123+00:00` -> `2026-11-21 10:33:22`."""
    if not iso:
        return ""
    return iso.replace("T", " ")[:19]


def fmt_seconds(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes}m{secs:02d}s"
