"""One attempt: prompt → solver → extract → verify → one row in the log database.

Shared by the batch runner, the CLI and the TUI so that every path records the same fields.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import to_jsonable_python

from core.canonical import INT64_MAX, INT64_MIN, canonical_json, safe_text, storable
from core.family import Family
from core.instance import Instance
from core.solver_base import DeltaCallback, Solver, SolveResult
from core.store import LogStore, now_iso
from core.verdict import Answer, Verdict

HUMAN_PREFIX = "human:"  # a person's answers are recorded as `human:NAME` (`human` when no name is known)


def is_person(solver: str | None) -> bool:
    """A hand answer: `human` (no name known) or `human:NAME`."""
    return solver == "human" or str(solver or "").startswith(HUMAN_PREFIX)


@dataclass(frozen=True)
class HumanTiming:
    """A person's clock on one answer. `active_s` runs from the moment the problem was shown (the Solve
    tab on screen, human chosen) to the moment the answer was sent, the pauses left out; `first_key_s` is
    the active time before the first keystroke (reading and thinking); `pauses` counts the times the
    clock stood still (the pause key, another tab, a screen on top) and `paused_s` sums them."""

    active_s: float
    first_key_s: float | None = None
    pauses: int = 0
    paused_s: float = 0.0


class AttemptRecord(BaseModel):
    """Everything recorded for one attempt (the `attempts` table's columns, typed)."""

    model_config = ConfigDict(defer_build=True)

    run_id: str | None = None
    snapshot: str | None = None
    instance_id: str
    family: str
    sample: int = 0
    solver: str
    source: str = "cli"  # "run", "tui", "cli", "import"
    prompt: dict[str, Any] = Field(default_factory=dict)
    response: str = ""
    reasoning: str | None = None
    answer: Answer | None = None
    verdict: Verdict | None = None
    correct: bool | None = None
    score: float | None = None
    status: str | None = None
    error: str | None = None
    error_kind: str | None = None
    started: str = Field(default_factory=now_iso)
    elapsed_s: float = 0.0
    human_time_s: float | None = None  # a person's: shown to sent, pauses left out (HumanTiming.active_s)
    first_key_s: float | None = None
    paused_s: float | None = None
    pauses: int | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    usage: dict[str, Any] = Field(default_factory=dict)
    cached: bool = False

    def row(self, exclude: set[str] | None = None) -> dict[str, Any]:
        """Column values; nested models and dicts become JSON text in the store.

        What is stored is made safe here, for every path that records an attempt (runs, the TUI, the
        CLI, imports): lone surrogates become U+FFFD, integers beyond 64 bits become text, and secrets
        (core.models.secrets) are redacted in every field. The verdict was computed before, from the
        reply exactly as received; when the stored reply or reasoning had to be redacted, `usage`
        says which fields were (`"redacted": [...]`)."""
        from core.models.config import known_secrets
        from core.models.secrets import scrub

        data = {name: stored_value(value) for name, value in self.__dict__.items()
                if not exclude or name not in exclude}
        keys = known_secrets()
        if keys:
            clean = scrub(data, keys)
            plain = all(map(_plain, keys))
            for name, value in data.items():
                # JSON text the scrub changed (a key, or a piece of one, in it), or that a key JSON
                # escapes could hide in: made safe and scrubbed value by value instead
                if type(value) is JsonText and (clean[name] is not value or not plain):
                    clean[name] = scrub(stored_value(getattr(self, name), as_text=False), keys)
            changed = sorted(k for k in ("response", "reasoning") if clean.get(k) != data.get(k))
            if changed:
                clean["usage"] = {**(clean.get("usage") or {}), "redacted": changed}
            data = clean
        return data


    def columns(self, prompt_json: str | None = None) -> dict[str, Any]:
        """The attempt's stored column values: exactly `attempt_columns(self.row(exclude={"prompt"}),
        prompt_json)` (without `prompt_json`: of `self.row()`), made in one pass when no secret is known.

        Why: a run stores an attempt per request, and row() then attempt_columns() walk every field
        twice, building two dicts (~50 µs per cascade attempt on the 2-core VM, ~5% of a request's
        CPU). With a secret known, the redaction of row() decides, so that path is taken as it is."""
        from core.models.config import known_secrets
        from core.store.log import _to_column, attempt_columns

        if known_secrets():
            return attempt_columns(self.row(exclude={"prompt"} if prompt_json is not None else None), prompt_json)
        out: dict[str, Any] = {}
        for name, value in self.__dict__.items():
            kind = type(value)
            if kind is str:  # stored_value, then _to_column, for the commonest kinds
                out[name] = value if value.isascii() else safe_text(value)
            elif value is None or kind is float:
                out[name] = value
            elif kind is bool:
                out[name] = int(value)
            elif kind is dict and _flat(value):  # usage, as a rule: already JSON values that are safe
                out[name] = canonical_json(value)
            elif name != "prompt" or prompt_json is None:
                out[name] = _to_column(stored_value(value))
        if prompt_json is not None:
            out.pop("prompt", None)  # attempt_columns puts the shared text last, as row(exclude=...) left it out
            out["prompt"] = prompt_json
        if not out.get("started"):
            out["started"] = now_iso()
        return out


def _flat(value: dict[Any, Any]) -> bool:
    """A dict of ASCII keys and JSON scalars that need no making safe (no float: pydantic and the JSON
    encoder disagree on infinities; no integer beyond 64 bits; no non-ASCII text), stored as it is."""
    for key, item in value.items():
        if type(key) is not str or not key.isascii():
            return False
        kind = type(item)
        if kind is str:
            if not item.isascii():
                return False
        elif kind is int:
            if not INT64_MIN <= item <= INT64_MAX:
                return False
        elif item is not None and kind is not bool:
            return False
    return True


class JsonText(str):
    """A model field already written as JSON by pydantic's serialiser (in Rust), safe to store as it is:
    no lone surrogate (pydantic refuses to write one) and no integer beyond 64 bits (no run of 19
    digits). ~10x cheaper than walking the model's dump in Python and encoding it again: a cascade
    verdict and answer cost ~65 µs per attempt that way. Keys come in field order, not sorted; every
    reader parses the JSON."""


@functools.lru_cache(maxsize=64)
def _plain(key: str) -> bool:
    """Whether JSON writes the key as it is: a `"`, a backslash or a control character is escaped, which
    would hide the key from a search of JSON text."""
    return key.isprintable() and '"' not in key and "\\" not in key


# Every digit becomes "0", every other byte a space: a run of 19 digits (INT64_MAX has 19; shorter
# integers always fit) is then one search of the bytes (~0.7 µs per KB, where a regex takes ~10).
_DIGITS_AS_ZERO = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_NINETEEN_DIGITS = b"0" * 19


def _long_digit_run(text: str) -> bool:
    return _NINETEEN_DIGITS in text.encode("utf-8", "surrogatepass").translate(_DIGITS_AS_ZERO)


def stored_value(value: Any, *, as_text: bool = True) -> Any:
    """One field as it is stored: JSON types only (models as model_dump(mode="json") makes them), lone
    surrogates as U+FFFD (dict keys too, which pydantic cannot write as JSON at all), integers beyond 64
    bits as text. A model is returned as JsonText when pydantic can write it as it must be stored
    (`as_text`), else as JSON values made safe."""
    kind = type(value)
    if kind is str:
        return value if value.isascii() else safe_text(value)
    if value is None or kind is float or kind is bool:
        return value
    if kind is int:
        return value if INT64_MIN <= value <= INT64_MAX else str(value)
    if as_text and isinstance(value, BaseModel):
        try:
            text = value.model_dump_json()
        except ValueError:  # a lone surrogate (PydanticSerializationError): made safe below
            pass
        else:
            if not _long_digit_run(text):
                return JsonText(text)
    try:
        return storable(value.model_dump(mode="json") if isinstance(value, BaseModel) else to_jsonable_python(value))
    except UnicodeEncodeError:  # pydantic writes no lone surrogate: made safe first
        return storable(to_jsonable_python(storable(value.model_dump() if isinstance(value, BaseModel) else value)))


def verdict_column(verdict: Verdict) -> str:
    """A verdict as `AttemptRecord.row()` stores it (made safe, secrets redacted), for a verdict
    completed after its attempt was recorded (LogStore.complete_verdict)."""
    from core.models.config import known_secrets
    from core.models.secrets import scrub
    from core.store.log import _to_column

    keys = known_secrets()
    value = scrub(stored_value(verdict, as_text=False), keys) if keys else stored_value(verdict)
    return str(_to_column(value))


def record_from(
    family: Family, instance: Instance, solver_spec: str, result: SolveResult, *, prompt: dict[str, Any],
    run_id: str | None = None, snapshot: str | None = None, sample: int = 0, source: str = "cli",
    human_time_s: float | None = None, started: str | None = None, checked: tuple[Answer, Verdict] | None = None,
    timing: HumanTiming | None = None,
) -> AttemptRecord:
    """Extract and verify a solver's result (unless `checked` already holds that), one record. A solver
    error still yields a (wrong) verdict row. `timing`, a person's clock, gives `human_time_s` and the
    columns beside it."""
    answer: Answer | None = None
    verdict: Verdict | None = None
    if result.error is None:
        answer, verdict = checked if checked is not None else family.check(instance, result.response)
    usage = result.usage if isinstance(result.usage, dict) else {}
    return AttemptRecord(
        run_id=run_id, snapshot=snapshot, instance_id=instance.id, family=family.id, sample=sample,
        solver=solver_spec, source=source, prompt=prompt, response=result.response, reasoning=result.reasoning,
        answer=answer, verdict=verdict, correct=verdict.correct if verdict else False,
        score=verdict.score if verdict else None, status=verdict.status if verdict else "error",
        error=result.error, error_kind=result.error_kind, started=started or now_iso(),
        elapsed_s=seconds(result.elapsed_s) or 0.0,
        human_time_s=seconds(timing.active_s if timing is not None else human_time_s),
        first_key_s=seconds(timing.first_key_s) if timing is not None else None,
        paused_s=seconds(timing.paused_s) if timing is not None else None,
        pauses=count(timing.pauses) if timing is not None else None,
        tokens_in=count(usage.get("prompt_tokens")), tokens_out=count(usage.get("completion_tokens")), usage=usage,
        cached=result.cached,
    )


def count(value: Any) -> int | None:
    """A token count as recorded: a non-negative integer SQLite can hold, else unknown (None). Usage
    comes from servers and imported files, which may send anything."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= INT64_MAX:
        return value
    return None


def seconds(value: Any) -> float | None:
    """A duration as recorded: a finite, non-negative number of seconds, else unknown (None)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        value = float(value)
    except OverflowError:  # an integer too large for a float
        return None
    return value if math.isfinite(value) and value >= 0 else None


async def attempt(
    family: Family, instance: Instance, solver: Solver, store: LogStore | None = None, *, style: str | None = None,
    run_id: str | None = None, snapshot: str | None = None, sample: int = 0, source: str = "cli",
    on_delta: DeltaCallback | None = None, human_time_s: float | None = None,
) -> AttemptRecord:
    """Run one attempt end to end and (when a store is given) write it as it completes."""
    started = now_iso()
    prompt = family.prompt(instance, style or family.prompt_styles[0])
    t0 = time.perf_counter()
    result = await solver.solve(instance, prompt, on_delta=on_delta)
    if not result.elapsed_s:
        result.elapsed_s = time.perf_counter() - t0
    record = record_from(
        family, instance, solver.spec, result, prompt=prompt.model_dump(), run_id=run_id, snapshot=snapshot,
        sample=sample, source=source, human_time_s=human_time_s, started=started,
    )
    if store is not None:
        store.add_attempt(record.row())
    return record
