"""The membership family's data: the structured condition, the probe, the instance and the parameters.

A *condition* (paper §3, §4.1) is I mutually recursive generating families `is_member_0 .. is_member_{I-1}`.
Each maps the length of its list argument to one `and`-conjunction of terms (a branch); a term is a call
`is_member_j(x[k])` or a comparison `x[k] == c` / `x[k] != c`. The structure here is what the evaluator
interprets; `render.py` turns it into the paper's Python text, which is never executed in-process.
"""

from __future__ import annotations

import itertools
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from core.instance import Instance

ENTRY_PREFIX = "is_member_"
# Nesting beyond this is refused when an instance is read: the evaluator recurses once per level and the
# rendered Python (in the differential test) needs one frame per level, so both stay far from their limits.
MAX_PROBE_NESTING = 200
MAX_PROBE_ITEMS = 2_000_000

Probe = list[Any]  # nested lists of ints (validated by `check_probe`)


def function_name(index: int) -> str:
    return f"{ENTRY_PREFIX}{index}"


def function_index(name: str) -> int | None:
    """`is_member_3` -> 3; None for anything else."""
    match = re.fullmatch(rf"{ENTRY_PREFIX}(0|[1-9][0-9]*)", name)
    return int(match.group(1)) if match else None


# ---- the structured condition ------------------------------------------------------------------
class CallTerm(BaseModel):
    """`is_member_{target}(x[index])`."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["call"] = "call"
    index: int = Field(ge=0)
    target: int = Field(ge=0)


class CompareTerm(BaseModel):
    """`x[index] == value` or `x[index] != value`."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["compare"] = "compare"
    index: int = Field(ge=0)
    op: Literal["==", "!="]
    value: int


Term = Annotated[CallTerm | CompareTerm, Field(discriminator="kind")]


class Branch(BaseModel):
    """`if len(x) == length: res = term_0 and term_1 and ...` (terms in evaluation order).

    Two terms may read the same x[k] (files from other tools do that); Python evaluates both, and so do we.
    """

    length: int = Field(ge=1)
    terms: list[Term] = Field(min_length=1)

    @model_validator(mode="after")
    def _indices(self) -> Branch:
        for term in self.terms:
            if term.index >= self.length:
                raise ValueError(f"term reads x[{term.index}] but the branch is for len(x) == {self.length}")
        return self

    @property
    def terminal(self) -> bool:
        """A terminal branch has comparisons only (the paper's Q^T)."""
        return all(term.kind == "compare" for term in self.terms)

    def calls(self) -> list[CallTerm]:
        return [term for term in self.terms if isinstance(term, CallTerm)]


class MemberFunction(BaseModel):
    """One generating family: its branches in `if/elif` order.

    Generated functions have distinct lengths; a file from elsewhere may repeat one, and then, as in
    Python's `if/elif`, the first branch for a length wins and the later one is dead code.
    """

    branches: list[Branch] = Field(min_length=1)

    def branch_for(self, length: int) -> tuple[int, Branch] | None:
        for i, branch in enumerate(self.branches):
            if branch.length == length:
                return i, branch
        return None


class Condition(BaseModel):
    """The generating families; function i is rendered as `is_member_i`."""

    functions: list[MemberFunction] = Field(min_length=1)

    @model_validator(mode="after")
    def _targets(self) -> Condition:
        n = len(self.functions)
        for i, fn in enumerate(self.functions):
            for branch in fn.branches:
                for term in branch.calls():
                    if term.target >= n:
                        raise ValueError(f"{function_name(i)} calls {function_name(term.target)}, which is not defined")
        return self

    def reachable(self, entry: int = 0) -> set[int]:
        """Functions reachable from `entry` through call terms (the entry included)."""
        seen = {entry}
        stack = [entry]
        while stack:
            for branch in self.functions[stack.pop()].branches:
                for term in branch.calls():
                    if term.target not in seen:
                        seen.add(term.target)
                        stack.append(term.target)
        return seen


# ---- probes ------------------------------------------------------------------------------------
def check_probe(value: Any) -> None:
    """Raise ValueError unless `value` is a nested list of (non-bool) ints within the size limits.

    Iterative, so a hostile file cannot exhaust the stack here.
    """
    if not isinstance(value, list):
        raise ValueError("the probe must be a list")
    stack: list[tuple[list[Any], int]] = [(value, 0)]
    items = 0
    while stack:
        current, level = stack.pop()
        if level > MAX_PROBE_NESTING:
            raise ValueError(f"the probe is nested deeper than {MAX_PROBE_NESTING} levels")
        for item in current:
            items += 1
            if items > MAX_PROBE_ITEMS:
                raise ValueError(f"the probe has more than {MAX_PROBE_ITEMS} items")
            if isinstance(item, list):
                stack.append((item, level + 1))
            elif isinstance(item, bool) or not isinstance(item, int):
                # bools would compare equal to 0/1 in Python; the paper's probes hold integers only
                raise ValueError(f"probe items must be integers or lists, not {type(item).__name__}")


def nesting_depth(probe: Any) -> int:
    """The paper's depth d: 0 for a flat list, 1 + the deepest sub-list otherwise (-1 for a non-list)."""
    if not isinstance(probe, list):
        return -1
    depth = 0
    stack: list[tuple[list[Any], int]] = [(probe, 0)]
    while stack:
        current, level = stack.pop()
        depth = max(depth, level)
        stack.extend((item, level + 1) for item in current if isinstance(item, list))
    return depth


def probe_at(probe: Any, path: list[int]) -> Any:
    """The sub-list or integer at an index path inside the probe."""
    node = probe
    for i in path:
        node = node[i]
    return node


def path_text(path: list[int], root: str = "x") -> str:
    return root + "".join(f"[{i}]" for i in path)


# ---- instances ---------------------------------------------------------------------------------
class MembershipInstance(Instance):
    """Fixed JSON names: condition, code, probe, entry; ground_truth.answer; meta I/N_max/b/N_T/depth/label."""

    family: Literal["membership"] = "membership"
    condition: Condition
    code: str
    probe: Probe
    entry: str = "is_member_0"

    # values derived from the fields once per object (the rendering of the condition, whether `code`
    # matches it, the evaluation): verification needs them for every answer (see `derived`)
    _derived: dict[str, Any] | None = PrivateAttr(default=None)

    def derived(self) -> dict[str, Any]:
        """A per-object cache, read through `__pydantic_private__` (pydantic's attribute hook is slow on
        the verification hot path). An instance is not changed after it is read."""
        private = self.__pydantic_private__
        cache = private.get("_derived") if private is not None else None
        # `model_copy` shares the private dict's values with the copy (which may have other fields):
        # the cache belongs to the object that made it
        if cache is None or cache.get("owner") is not self:
            cache = {"owner": self}
            if private is not None:
                private["_derived"] = cache
        return cache

    @field_validator("probe")
    @classmethod
    def _probe_shape(cls, value: Probe) -> Probe:
        check_probe(value)
        return value

    @field_validator("ground_truth")
    @classmethod
    def _answer_shape(cls, value: dict[str, Any]) -> dict[str, Any]:
        if "answer" in value and not isinstance(value["answer"], bool):
            raise ValueError("ground_truth.answer must be true or false")
        return value

    @model_validator(mode="after")
    def _entry_defined(self) -> MembershipInstance:
        index = function_index(self.entry)
        if index is None or index >= len(self.condition.functions):
            raise ValueError(f"entry '{self.entry}' is not one of the condition's functions")
        return self

    def entry_index(self) -> int:
        index = function_index(self.entry)
        assert index is not None  # checked by the validator
        return index

    def expected_answer(self) -> bool | None:
        answer = self.ground_truth.get("answer")
        return answer if isinstance(answer, bool) else None


# ---- parameters --------------------------------------------------------------------------------
GRID_KEYS = ("I", "N_max", "b", "N_T", "depth")
# The number of call-terms of a probe's widest level grows like b**depth; this bounds probe size.
MAX_LEAVES = 65_536
# Branch lengths start at 2 (paper §4.1: "if-blocks, which map inputs starting from length N_i = 2").
MIN_LENGTH = 2
MAX_TERMINAL = 20

IntOrGrid = int | list[int]
# N_T: one terminal length for every function, or "lo..hi": each function draws its own (per function,
# as in the paper's Listings 1 and 6, where is_member_0's terminal block has 2 terms and is_member_1's 3)
TerminalSpec = int | str
TerminalGrid = TerminalSpec | list[TerminalSpec]
_RANGE = re.compile(r"\s*(\d+)\s*\.\.\s*(\d+)\s*")


def terminal_range(spec: TerminalSpec) -> tuple[int, int]:
    """(lo, hi) of an N_T value: a single length is lo == hi."""
    if isinstance(spec, str):
        match = _RANGE.fullmatch(spec)
        if match is None:
            raise ValueError(f"N_T must be a length or a range lo..hi, not '{spec}'")
        return int(match.group(1)), int(match.group(2))
    return spec, spec


def _parse_grid(value: Any, ranges: bool = False) -> Any:
    """Accept `3`, `"3"`, `"1,2,3"`, `"[1, 2, 3]"` and lists (CLI `--param I=1,2,3`); with `ranges`, also
    `"2..3"` entries (N_T). Never evals."""
    if isinstance(value, bool):
        raise ValueError("expected an integer or a list of integers, not a boolean")
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("[") and text.endswith("]"):
            text = text[1:-1]
        parts = [p.strip().strip("'\"") for p in text.split(",")]
        out: list[Any] = []
        for part in parts:
            if re.fullmatch(r"[+-]?[0-9]+", part):
                out.append(int(part))
            elif ranges and _RANGE.fullmatch(part):
                lo, hi = terminal_range(part)
                out.append(f"{lo}..{hi}" if lo != hi else lo)
            else:
                kind = "integers or ranges lo..hi" if ranges else "integers"
                raise ValueError(f"expected an integer or a comma-separated list of {kind}, got '{value}'")
        return out[0] if len(out) == 1 else out
    if isinstance(value, list):
        if any(isinstance(v, bool) for v in value):
            raise ValueError("expected integers, not booleans")
        if ranges:
            value = [_parse_grid(v, True) if isinstance(v, str) else v for v in value]
        return value[0] if len(value) == 1 else value
    return value


class MembershipParams(BaseModel):
    """Generator parameters (paper Table 2). Each is one value or a list of them (a sweep grid).

    - I: number of generating families `is_member_0 .. is_member_{I-1}`; every one of them is reachable
      from is_member_0 through calls, so I > 1 needs N_max >= 2.
    - N_max: number of `if` branches per family (the terminal one included).
    - b: at most this many recursive calls in a non-terminal branch (at least one, so probes can nest);
      b must not exceed the shortest non-terminal branch length (paper: b_i <= N_i).
    - N_T: the list length of a family's terminal branch (comparisons only), at least 2 (branch lengths
      start at 2, §4.1). One length for every family, or a range "lo..hi" from which each family draws
      its own (the paper's N_i^T is per function: Listing 1 has 2 for is_member_0 and 3 for is_member_1).
    - depth: the probe's nesting depth d (0 = a flat list).

    Lists make a grid: the Cartesian product in the order I, N_max, b, N_T, depth. Item `index` belongs to
    combination `(index // 2) % n_combinations`, so any prefix covers the grid; its label is drawn from the
    seed, balanced within every 16 items of a combination and within each parity of the index
    (generator.label_of): any count that is a multiple of 16 * n_combinations is balanced within every
    combination, and the order of the items says nothing of their labels.
    """

    model_config = ConfigDict(extra="forbid")

    I: IntOrGrid = 2  # noqa: E741 -- the paper's name
    N_max: IntOrGrid = 2
    b: IntOrGrid = 1
    N_T: TerminalGrid = 2
    depth: IntOrGrid = 2

    @field_validator("I", "N_max", "b", "depth", mode="before")
    @classmethod
    def _grid(cls, value: Any) -> Any:
        return _parse_grid(value)

    @field_validator("N_T", mode="before")
    @classmethod
    def _terminal_grid(cls, value: Any) -> Any:
        return _parse_grid(value, ranges=True)

    @model_validator(mode="after")
    def _ranges(self) -> MembershipParams:
        bounds = {"I": (1, 50), "N_max": (1, 20), "b": (1, 20), "depth": (0, 64)}
        for key, (lo, hi) in bounds.items():
            values = _as_list(getattr(self, key))
            if len(set(values)) != len(values):
                raise ValueError(f"{key} lists a value twice")
            for v in values:
                if not lo <= v <= hi:
                    raise ValueError(f"{key}={v} is outside {lo}..{hi}")
        terminals = _as_list(self.N_T)
        if len(set(map(str, terminals))) != len(terminals):
            raise ValueError("N_T lists a value twice")
        for spec in terminals:
            lo, hi = terminal_range(spec)
            if not MIN_LENGTH <= lo <= hi <= MAX_TERMINAL:
                raise ValueError(f"N_T={spec} is outside {MIN_LENGTH}..{MAX_TERMINAL} (branch lengths start at 2, "
                                 "paper §4.1)")
        for combo in self.combinations():
            if combo["depth"] > 0 and combo["N_max"] < 2:
                raise ValueError("depth > 0 needs N_max >= 2 (a non-terminal branch to recurse through)")
            if combo["I"] > 1 and combo["N_max"] < 2:
                raise ValueError("I > 1 needs N_max >= 2 (calls, so that every is_member_i is reachable from "
                                 "is_member_0)")
            _check_b(combo)
            leaves = combo["b"] ** combo["depth"]
            if leaves > MAX_LEAVES:
                raise ValueError(f"b={combo['b']}, depth={combo['depth']} could need {leaves} nested calls "
                                 f"(limit {MAX_LEAVES})")
        return self

    def combinations(self) -> list[dict[str, Any]]:
        """The grid in a fixed order (product over I, N_max, b, N_T, depth, each in the order given)."""
        lists = [_as_list(getattr(self, key)) for key in GRID_KEYS]
        return [dict(zip(GRID_KEYS, values, strict=True)) for values in itertools.product(*lists)]


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def branch_lengths(combo: dict[str, Any], terminal: int | None = None) -> tuple[int, list[int]]:
    """(terminal length, non-terminal lengths) of one function: its terminal length (`terminal`, else
    the combination's single N_T), then the first N_max - 1 lengths >= 2 other than it.

    The paper's listings use lengths 2..N_max+1 with the terminal block among them (Listing 1).
    """
    if terminal is None:
        terminal = terminal_range(combo["N_T"])[0]
    others: list[int] = []
    length = MIN_LENGTH
    while len(others) < combo["N_max"] - 1:
        if length != terminal:
            others.append(length)
        length += 1
    return terminal, others


def _check_b(combo: dict[str, Any]) -> None:
    """The paper requires b_i <= N_i: a formula of length N cannot hold more than N calls. We refuse a b that
    some non-terminal branch could not honour (for any terminal length the range allows), rather than
    cap it silently there (then `b` in meta would not describe the instance)."""
    lo, hi = terminal_range(combo["N_T"])
    for terminal in range(lo, hi + 1):
        _, others = branch_lengths(combo, terminal)
        if others and combo["b"] > min(others):
            raise ValueError(f"b={combo['b']} exceeds the shortest non-terminal branch, len(x) == {min(others)} "
                             f"(N_max={combo['N_max']}, N_T={terminal}); the paper requires b_i <= N_i, so use "
                             f"b <= {min(others)}")
