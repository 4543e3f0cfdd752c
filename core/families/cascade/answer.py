"""The shapes of what the cascade family stores: an extracted answer (`Answer.value`) and a trace step's
`data`. Both are stored as plain JSON objects of these shapes (the family's `answer_model` and
`step_model`), so an attempt written today reads back the same way tomorrow.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ERROR_WORDS = {
    "empty_lhs": "empty lhs",
    "non_string": "an argument is not a string literal",
    "arity": "replace needs exactly two positional arguments",
    "not_replace": "not a str.replace call",
    "unparsable": "not parsable Python",
    "too_long": "a side is longer than the allowed number of characters",
    "alphabet": "a character outside the instance's alphabet",
}


class Program(BaseModel):
    """One program as read from the answer. `valid` here is syntax only (two string literals, a
    non-empty lhs); the verifier also checks the instance's side length and alphabet."""

    model_config = ConfigDict(extra="allow")

    lhs: str | None = None
    rhs: str | None = None
    valid: bool
    error: str | None = None  # a key of ERROR_WORDS when not valid
    source: str = ""  # a short rendering for people
    line: int = 0  # line within the code block (1-based; 0 = unknown)


class Block(BaseModel):
    """One fenced code block and the programs read from it, in Python's evaluation order."""

    model_config = ConfigDict(extra="allow")

    index: int  # 0-based among all fenced blocks of the reply (after <think> removal)
    lang: str = ""
    line: int = 0  # first code line in the reply (1-based)
    closed: bool = True
    # "block": read as a whole; "lines": the block does not tokenize as Python, read line by line
    mode: Literal["block", "lines"] = "block"
    # "statements": `s = s.replace(...)` calls; "list": the released format, a list of "replace('a', 'b')"
    # strings; "mixed": both; "none": no program at all
    format: Literal["statements", "list", "mixed", "none"] = "none"
    capped: bool = False
    programs: list[Program] = Field(default_factory=list)


class CascadeAnswer(BaseModel):
    """`Answer.value` of a successful extraction: the first and the last answer block (one object when
    the reply has one)."""

    model_config = ConfigDict(extra="allow")

    first: Block
    last: Block
    n_blocks: int
    n_candidates: int


class RuleStep(BaseModel):
    """`TraceStep.data` of the cascade trace (see trace.py): the strings before and after one rule.

    Step 0 (kind "start") has no rule: `index`, `rule`, `source`, `valid` and `error` are absent there.
    """

    model_config = ConfigDict(extra="allow")

    index: int | None = None  # 0-based rule index
    rule: list[str] | None = None  # [lhs, rhs], None for an invalid program (the identity)
    source: str | None = None
    valid: bool | None = None
    error: str | None = None
    before: list[str]
    after: list[str]
    changed: list[bool]
    spans: list[list[list[int]]]  # per example, [start, end) where the rhs was written in `after`
    match: list[bool] | None = None  # last step: each output equals its expected output
    all_match: bool | None = None
