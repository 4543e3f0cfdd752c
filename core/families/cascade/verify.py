"""Verification: run the extracted cascade on the inputs and compare with the outputs (paper §3.2, §4.3).

Both the first and the last code block are evaluated; the verdict's primary result is the LAST block
(the paper uses it for difficulty analysis), the first block's metrics go to `details`. Only the first K
programs count; an invalid program is the identity. No code block is the identity cascade and wrong.

Validity is the released scorer's, per instance: a program is valid when it is a replace call with two
string literals (extraction), its lhs is not empty, neither side is longer than the instance's
`max_side` (3 in every released file) and every character is in the instance's alphabet
(`CascadeInstance.allowed_chars`). The released code accepts an empty lhs (Python's "".replace inserts
between every character); here it stays invalid, as the paper and both prompts say.

Statuses: "valid" (every evaluated program valid), "invalid" (some program invalid, or none at all),
"extraction_error" (no code block), "no_answer_within_budget" (the baseline's work budget ran out).
Metric definitions: see `metrics`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from core.families.cascade.answer import ERROR_WORDS
from core.families.cascade.metrics import edit_sim_from, levenshtein, token_edit_sim
from core.families.cascade.model import CascadeInstance
from core.families.cascade.prompt import py_literal
from core.verdict import Answer, DiffRow, Verdict, char_diff_spans

MAX_EXPLAINED_INVALID = 3


class Program(NamedTuple):
    lhs: str | None
    rhs: str | None
    valid: bool
    error: str | None
    source: str


@dataclass(slots=True)
class BlockResult:
    programs: list[Program]  # the evaluated ones: the first K
    given: int  # programs in the block before truncation to K
    predicted: list[str]
    overflow: list[bool]  # output cut at the length limit (a cascade that keeps growing the string)
    lev: list[int]
    passed: bool
    edit_sim: float
    edit_sim_tokens: float
    n_valid: int

    @property
    def n_invalid(self) -> int:
        return len(self.programs) - self.n_valid

    @property
    def any_overflow(self) -> bool:
        return True in self.overflow

    @property
    def valid_rate(self) -> float:
        return self.n_valid / len(self.programs) if self.programs else 0.0


# ---- running a cascade ---------------------------------------------------------------------------
def length_limit(instance: CascadeInstance) -> int:
    """Strings longer than this cannot match any output; cutting them keeps a model's
    `replace("a", "aaaa")` x 30 from using exponential memory (4^30 characters)."""
    cache = instance.derived()
    limit = cache.get("length_limit")
    if limit is None:
        longest = max((len(s) for s in (*instance.inputs, *instance.outputs)), default=0)
        limit = cache["length_limit"] = 256 + 4 * longest
    return limit


def apply_capped(text: str, lhs: str, rhs: str, limit: int) -> tuple[str, bool]:
    """`text.replace(lhs, rhs)` cut to `limit` characters; True when it was cut. lhs is non-empty."""
    count = text.count(lhs)
    if count == 0:
        return text, False
    if len(text) + count * (len(rhs) - len(lhs)) <= limit:
        return text.replace(lhs, rhs), False
    # build only as much as the limit keeps (rhs itself may be huge)
    pieces: list[str] = []
    size = start = 0
    while size < limit:
        hit = text.find(lhs, start)
        if hit < 0:
            pieces.append(text[start:])
            break
        pieces.append(text[start:hit])
        pieces.append(rhs[: limit - size])
        size += hit - start + len(rhs)
        start = hit + len(lhs)
    return "".join(pieces)[:limit], True


def run(text: str, programs: list[Program], limit: int) -> tuple[str, bool]:
    overflow = False
    for program in programs:
        if program.valid and program.lhs and program.rhs is not None:
            text, cut = apply_capped(text, program.lhs, program.rhs, limit)
            overflow = overflow or cut
    return text, overflow


# ---- reading an Answer ---------------------------------------------------------------------------
def block_programs(answer: Answer, which: str = "last", instance: CascadeInstance | None = None) -> list[Program] | None:
    """The programs of the answer's first/last block, validity re-checked; None = no readable block.

    Accepts the extractor's value and, for hand-built answers, a plain list of [lhs, rhs] pairs. With an
    instance, its side-length and alphabet limits apply too.
    """
    if not isinstance(answer, Answer) or not answer.ok:
        return None
    value = answer.value
    if isinstance(value, list):
        raw: Any = value
    elif isinstance(value, dict) and isinstance(value.get(which), dict):
        raw = value[which].get("programs")
    else:
        return None
    if not isinstance(raw, list):
        return None
    if instance is None:
        return [_read_program(item, None, frozenset()) for item in raw]
    max_side, allowed = instance.max_side(), instance.allowed_chars()
    return [_read_program(item, max_side, allowed) for item in raw]


def _same_block(answer: Answer) -> bool:
    """The first and the last block are one block (the usual single-block reply)."""
    value = answer.value
    if not isinstance(value, dict):
        return True
    first, last = value.get("first"), value.get("last")
    return first is last or (isinstance(first, dict) and isinstance(last, dict)
                             and first.get("index") == last.get("index") and first.get("index") is not None)


def _read_program(item: Any, max_side: int | None, allowed: frozenset[str]) -> Program:
    """One program from the stored answer, its validity re-checked (and, with `max_side`, the instance's
    side length and alphabet applied)."""
    if type(item) is dict:  # the common case first: a valid program as extraction writes it
        lhs, rhs = item.get("lhs"), item.get("rhs")
        if type(lhs) is str and type(rhs) is str and lhs and item.get("valid") is True:
            source = item.get("source")
            if type(source) is not str or not source:
                source = f"replace({py_literal(lhs)}, {py_literal(rhs)})"
            if max_side is not None:
                if len(lhs) > max_side or len(rhs) > max_side:
                    return Program(None, None, False, "too_long", source)
                if not allowed.issuperset(lhs) or (rhs and not allowed.issuperset(rhs)):
                    return Program(None, None, False, "alphabet", source)
            return Program(lhs, rhs, True, None, source)
    if isinstance(item, dict):
        lhs, rhs = item.get("lhs"), item.get("rhs")
        source = item.get("source") or ""
        if not isinstance(source, str):
            source = str(source)
        flagged_invalid = item.get("valid") is False
        error: Any = item.get("error")
    elif isinstance(item, list | tuple) and len(item) == 2:
        lhs, rhs = item
        source, flagged_invalid, error = "", False, None
    else:
        return Program(None, None, False, "not_replace", repr(item)[:80])
    if isinstance(lhs, str) and isinstance(rhs, str):
        source = source or f"replace({py_literal(lhs)}, {py_literal(rhs)})"
        if lhs == "":
            return Program(lhs, rhs, False, "empty_lhs", source)
        if not flagged_invalid:
            if max_side is not None:
                if len(lhs) > max_side or len(rhs) > max_side:
                    return Program(None, None, False, "too_long", source)
                if not allowed.issuperset(lhs) or (rhs and not allowed.issuperset(rhs)):
                    return Program(None, None, False, "alphabet", source)
            return Program(lhs, rhs, True, None, source)
    error = error if isinstance(error, str) and error in ERROR_WORDS else "non_string"
    return Program(None, None, False, error, source or "replace(?)")


# ---- evaluating ----------------------------------------------------------------------------------
def evaluate(instance: CascadeInstance, programs: list[Program] | None) -> BlockResult:
    """Run the first K programs on every input (None = no block: the identity) and score them."""
    given = len(programs) if programs else 0
    evaluated = (programs or [])[: instance.max_programs()]
    inputs, outputs = instance.inputs, instance.outputs
    n_valid = sum(p.valid for p in evaluated)
    if not evaluated:
        predicted, overflow = list(inputs), [False] * len(inputs)
    elif n_valid == len(evaluated) and n_valid <= 64:
        predicted, overflow = _run_all(inputs, evaluated, length_limit(instance))
    else:
        limit = length_limit(instance)
        predicted, overflow = [], []
        for text in inputs:
            out, cut = run(text, evaluated, limit)
            predicted.append(out)
            overflow.append(cut)
    if predicted == outputs and programs is not None:
        # share the expected strings: a correct verdict then holds no copy of them
        return BlockResult(evaluated, given, outputs, overflow, [0] * len(outputs), True, 1.0, 1.0, n_valid)
    lev = [levenshtein(p, o) for p, o in zip(predicted, outputs, strict=True)]
    return BlockResult(
        programs=evaluated,
        given=given,
        predicted=predicted,
        overflow=overflow,
        lev=lev,
        passed=False,
        edit_sim=edit_sim_from(sum(lev), instance),
        edit_sim_tokens=token_edit_sim(instance, predicted),
        n_valid=n_valid,
    )


def _run_all(inputs: list[str], programs: list[Program], limit: int) -> tuple[list[str], list[bool]]:
    """All valid programs over all inputs, one program at a time over the whole list (fewer Python calls
    than one input at a time); falls back to the capped run when a string outgrows the limit."""
    current = list(inputs)
    for p in programs:
        lhs, rhs = p.lhs, p.rhs
        current = [s.replace(lhs, rhs) for s in current]  # type: ignore[arg-type]
        if len(rhs) > len(lhs) and max(map(len, current)) > limit:  # type: ignore[arg-type]
            predicted, overflow = [], []
            for text in inputs:
                out, cut = run(text, programs, limit)
                predicted.append(out)
                overflow.append(cut)
            return predicted, overflow
    return current, [False] * len(current)


def verify(instance: CascadeInstance, answer: Answer) -> Verdict:
    no_budget = isinstance(answer, Answer) and not answer.ok and answer.error == "no_answer_within_budget"
    last_programs = block_programs(answer, "last", instance)
    extraction_error = last_programs is None
    last = evaluate(instance, last_programs)
    # one code block (the usual case) is both first and last: read and evaluate it once
    first_programs = None if extraction_error or _same_block(answer) else block_programs(answer, "first", instance)
    first = last if first_programs is None or first_programs == last_programs else evaluate(instance, first_programs)
    if no_budget:
        status = "no_answer_within_budget"
    elif extraction_error:
        status = "extraction_error"
    elif last.n_invalid or not last.programs:
        status = "invalid"
    else:
        status = "valid"
    details = {
        "pass@1": float(last.passed),
        "edit_sim": last.edit_sim,
        "edit_sim_tokens": last.edit_sim_tokens,
        "valid_rate": last.valid_rate,
        "n_valid": last.n_valid,
        "pass@1_first": float(first.passed),
        "edit_sim_first": first.edit_sim,
        "edit_sim_tokens_first": first.edit_sim_tokens,
        "valid_rate_first": first.valid_rate,
        "n_valid_first": first.n_valid,
        "n_evaluated_first": len(first.programs),
        "extraction_error": extraction_error,
        "max_programs": instance.max_programs(),
        "n_programs": last.given,
        "n_evaluated": len(last.programs),
        "n_invalid": last.n_invalid,
        "truncated": max(0, last.given - len(last.programs)),
        "cascade": [[p.lhs, p.rhs] if p.valid else None for p in last.programs],
        "invalid": [
            {"rule": i, "source": p.source, "error": p.error}
            for i, p in enumerate(last.programs, start=1)
            if not p.valid
        ] if last.n_invalid else [],
        "lev": last.lev,
        "overflow": [i for i, cut in enumerate(last.overflow) if cut] if last.any_overflow else [],
        "predicted_first": first.predicted,
    }
    if no_budget:
        details["no_answer_within_budget"] = True
    return Verdict(
        correct=last.passed,
        score=last.edit_sim,
        status=status,
        expected=instance.outputs,
        got=last.predicted,
        diff=diff_rows(instance, last),
        explanation=explain(instance, answer, last, first, extraction_error),
        details=details,
    )


# ---- explaining ----------------------------------------------------------------------------------
def diff_rows(instance: CascadeInstance, result: BlockResult) -> list[DiffRow]:
    """One row per example, input as the label, expected vs predicted with differing characters marked.

    A correct answer gets one summary row: every output matches, and a row per example would only repeat
    the problem (and cost memory in a 50-example run).
    """
    n = len(instance.inputs)
    if result.passed:
        return [DiffRow(label=f"all {n} examples", expected=f"{n} outputs", got=f"{n} outputs", ok=True,
                        note=f"every output matches ({len(result.programs)} programs)")]
    rows: list[DiffRow] = []
    for i, (src, want, got) in enumerate(zip(instance.inputs, instance.outputs, result.predicted, strict=True)):
        ok = want == got
        want_spans, got_spans = ([], []) if ok else char_diff_spans(want, got)
        note = f"example {i + 1}: " + ("exact" if ok else f"lev {result.lev[i]}")
        if result.overflow[i]:
            note += f" (output grew past {len(got)} characters and was cut)"
        rows.append(DiffRow(label=src, expected=want, got=got, ok=ok, expected_spans=want_spans,
                            got_spans=got_spans, note=note))
    return rows


def explain(
    instance: CascadeInstance, answer: Answer, last: BlockResult, first: BlockResult, extraction_error: bool
) -> str:
    n = len(instance.inputs)
    if last.passed and first is last and last.given == len(last.programs):
        return f"Correct: all {n} outputs match ({len(last.programs)} programs, all valid). Edit_Sim 1.000."
    matched = sum(d == 0 for d in last.lev)
    if extraction_error:
        why = answer.message if isinstance(answer, Answer) and answer.message else "no code block"
        parts = [f"No cascade could be read ({why}), so the identity cascade was used and the answer is wrong: "
                 f"{matched} of {n} outputs equal their inputs."]
    else:
        parts = [f"{matched} of {n} outputs match (last code block: {len(last.programs)} programs, "
                 f"{last.n_invalid} invalid)."]
        if not last.programs:
            parts.append("The code block holds no replace program.")
        if last.given > len(last.programs):
            parts.append(f"The block has {last.given} programs; only the first {len(last.programs)} (K) count.")
    for i, d in enumerate(last.lev):
        if d:
            parts.append(f"Example {i + 1} {py_literal(instance.inputs[i])}: expected "
                         f"{py_literal(instance.outputs[i])}, got {py_literal(last.predicted[i])} (lev {d}).")
            break
    invalid = [(i, p) for i, p in enumerate(last.programs, start=1) if not p.valid]
    for i, p in invalid[:MAX_EXPLAINED_INVALID]:
        reason = _reason(instance, p.error)
        parts.append(f"Rule {i} `{p.source}` was invalid ({reason}) and replaced by the identity.")
    if len(invalid) > MAX_EXPLAINED_INVALID:
        parts.append(f"{len(invalid) - MAX_EXPLAINED_INVALID} more invalid rules were replaced by the identity.")
    parts.append(f"Edit_Sim {last.edit_sim:.3f}.")
    if not extraction_error and (first.predicted != last.predicted or first.valid_rate != last.valid_rate):
        first_matched = sum(d == 0 for d in first.lev)
        parts.append(f"First code block: {first_matched} of {n} match, Edit_Sim {first.edit_sim:.3f}.")
    return " ".join(parts)


def _reason(instance: CascadeInstance, error: str | None) -> str:
    if error == "too_long":
        return f"a side is longer than {instance.max_side()} characters"
    if error == "alphabet":
        shown = "".join(sorted(instance.allowed_chars()))
        return f"a character outside the alphabet {shown[:60]}{'…' if len(shown) > 60 else ''}"
    return ERROR_WORDS.get(error or "", "invalid")
