"""Answers (what extraction pulls out of a response) and verdicts (what the verifier says of it)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Answer(BaseModel):
    """The result of `extract`: a family-specific value, or a typed extraction error. Never raised."""

    model_config = ConfigDict(defer_build=True)

    ok: bool
    value: Any = None
    error: str | None = None  # short kind, e.g. "no_code_block", "contradictory", "empty"
    message: str = ""  # one human sentence about the error or the extraction
    details: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def success(cls, value: Any, **details: Any) -> Answer:
        return cls(ok=True, value=value, details=details)

    @classmethod
    def failure(cls, error: str, message: str, **details: Any) -> Answer:
        return cls(ok=False, error=error, message=message, details=details)


class DiffRow(BaseModel):
    """One renderable comparison line: spans are [start, end) character ranges that differ."""

    model_config = ConfigDict(defer_build=True)

    label: str
    expected: str
    got: str
    ok: bool
    expected_spans: list[tuple[int, int]] = Field(default_factory=list)
    got_spans: list[tuple[int, int]] = Field(default_factory=list)
    note: str = ""


class Verdict(BaseModel):
    """What the verifier says. It explains itself: `explanation` in words, `diff` row by row."""

    model_config = ConfigDict(defer_build=True)

    correct: bool
    score: float
    status: str  # family-specific, e.g. "valid", "invalid", "extraction_error", "unknown"
    expected: Any = None
    got: Any = None
    diff: list[DiffRow] = Field(default_factory=list)
    explanation: str = ""
    details: dict[str, Any] = Field(default_factory=dict)


def char_diff_spans(expected: str, got: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character spans that differ between two strings (difflib opcodes), for highlighting."""
    import difflib

    exp_spans: list[tuple[int, int]] = []
    got_spans: list[tuple[int, int]] = []
    matcher = difflib.SequenceMatcher(a=expected, b=got, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            exp_spans.append((i1, i2))
        if j2 > j1:
            got_spans.append((j1, j2))
    return exp_spans, got_spans
