"""Minimisation (paper §6, Algorithm 2): ddmin over the snippet's tokens against any solver.

The property kept is the paper's (Algorithm 2, line 11: `expected_imports == actual_imports`): a reduced
snippet is kept while the solver's answer on it EQUALS the imports it inferred for the whole snippet
(compared as sets). `prop="superset"` keeps a reduced snippet while the answer still contains every
expected import (extra ones allowed), the looser check this module used before; it is an option
(`sembench ddmin --property superset`). Algorithm 2 first runs Perses (a syntax-preserving reducer)
and then ddmin on its output; Perses is not run here: ddmin works on the whole snippet, so results
may differ from the paper's where Perses would have removed syntax first. Tokens are tree-sitter leaves and
the whitespace between them, so the four categories of Table 4 can be counted: control and structural
(keywords, separators, operators), whitespace, inferred simple names (the simple names of the imports
the solver inferred), other. Solver answers are cached by text; the number of solver calls is bounded by
`budget` (the result says whether ddmin finished, i.e. the result is 1-minimal).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from core.families.imports.snippet import JAVA_KEYWORDS, parse

Infer = Callable[[str], list[str]]  # snippet text -> predicted import entries
CONTROL_WORDS = frozenset(JAVA_KEYWORDS) | {"var", "record", "yield", "sealed", "permits", "true", "false", "null"}
SYMBOLS = frozenset("( ) { } [ ] ; , . ... @ :: = > < ! ~ ? : -> == >= <= != && || ++ -- + - * / & | ^ % << >> >>> "
                    "+= -= *= /= &= |= ^= %= <<= >>= >>>=".split())
CATEGORIES = ("control_structural", "whitespace", "inferred_simple_name", "other")
PROPERTIES = ("equal", "superset")
Property = Literal["equal", "superset"]


def tokenize(code: str) -> list[str]:
    """Leaves of the syntax tree and the whitespace runs between them; joined, they give `code` back."""
    data = code.encode("utf-8", "surrogatepass")
    tree = parse(code)
    tokens: list[str] = []
    last = 0
    stack = [tree.root_node]
    leaves = []
    while stack:
        node = stack.pop()
        if node.child_count == 0 or node.type in ("string_literal", "line_comment", "block_comment", "character_literal"):
            if node.end_byte > node.start_byte:
                leaves.append((node.start_byte, node.end_byte))
            continue
        stack.extend(reversed(node.children))
    for start, end in sorted(leaves):
        if start < last:
            continue
        if start > last:
            tokens.extend(_split_gap(data[last:start].decode("utf-8", "surrogatepass")))
        tokens.append(data[start:end].decode("utf-8", "surrogatepass"))
        last = end
    if last < len(data):
        tokens.extend(_split_gap(data[last:].decode("utf-8", "surrogatepass")))
    return tokens


def _split_gap(text: str) -> list[str]:
    return [t for t in re.findall(r"\s+|\S+", text) if t]


def category(token: str, simple_names: set[str]) -> str:
    if not token.strip():
        return "whitespace"
    if token in CONTROL_WORDS or token in SYMBOLS:
        return "control_structural"
    if token in simple_names:
        return "inferred_simple_name"
    return "other"


@dataclass
class Round:
    index: int
    kept: int  # tokens kept after this round
    granularity: int
    calls: int  # solver calls so far
    text: str


@dataclass
class Minimized:
    original: str
    minimized: str
    expected: list[str]
    tokens_before: int
    tokens_after: int
    calls: int
    cache_hits: int
    finished: bool  # ddmin ran to completion (1-minimal) within the budget
    prop: str = "equal"
    rounds: list[Round] = field(default_factory=list)
    by_category: dict[str, dict[str, Any]] = field(default_factory=dict)
    simple_names_before: list[str] = field(default_factory=list)
    simple_names_after: list[str] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        return {
            "expected": self.expected, "property": self.prop, "tokens_before": self.tokens_before, "tokens_after": self.tokens_after,
            "retained_ratio": self.tokens_after / self.tokens_before if self.tokens_before else 1.0,
            "calls": self.calls, "cache_hits": self.cache_hits, "finished": self.finished,
            "by_category": self.by_category, "simple_names_before": self.simple_names_before,
            "simple_names_after": self.simple_names_after,
            "simple_names_survived": len(self.simple_names_after) == len(self.simple_names_before),
            "simple_name_decrease": (1 - len(self.simple_names_after) / len(self.simple_names_before)
                                     if self.simple_names_before else 0.0),
            "minimized": self.minimized, "rounds": len(self.rounds),
        }


class _Budget(Exception):
    pass


def ddmin(code: str, infer: Infer, budget: int = 2000, expected: list[str] | None = None,
          prop: Property = "equal") -> Minimized:
    """Minimise `code` keeping `set(infer(text)) == set(expected)` (`prop="equal"`, the paper's) or
    `set(expected) <= set(infer(text))` (`prop="superset"`); expected: the solver's own answer."""
    if prop not in PROPERTIES:
        raise ValueError(f"unknown ddmin property '{prop}' (known: {', '.join(PROPERTIES)})")
    cache: dict[str, bool] = {}
    stats = {"calls": 0, "hits": 0}
    if expected is None:
        stats["calls"] += 1
        expected = sorted(set(infer(code)))
    want = set(expected)
    tokens = tokenize(code)

    def test(candidate: list[str]) -> bool:
        text = "".join(candidate)
        if text in cache:
            stats["hits"] += 1
            return cache[text]
        if stats["calls"] >= budget:
            raise _Budget
        stats["calls"] += 1
        try:
            got = set(infer(text))
            ok = got == want if prop == "equal" else want <= got
        except Exception:  # a solver that fails on a broken snippet does not keep the property
            ok = False
        cache[text] = ok
        return ok

    current = list(tokens)
    rounds: list[Round] = []
    finished = False
    n = 2
    try:
        if not want:
            current = []
            finished = True
        while not finished and len(current) >= 2:
            chunks = _split(current, n)
            reduced = False
            for i, chunk in enumerate(chunks):
                if test(chunk):
                    current, n, reduced = chunk, 2, True
                    break
                complement = [t for j, c in enumerate(chunks) if j != i for t in c]
                if n > 2 and test(complement):
                    current, n, reduced = complement, max(n - 1, 2), True
                    break
            if reduced:
                rounds.append(Round(len(rounds) + 1, len(current), n, stats["calls"], "".join(current)))
                continue
            if n >= len(current):
                finished = True
                break
            n = min(2 * n, len(current))
        if len(current) == 1 and not finished:
            finished = True
    except _Budget:
        finished = False
    names = {e.removeprefix("static ").rsplit(".", 1)[-1] for e in expected}
    by_category: dict[str, dict[str, Any]] = {}
    for cat in CATEGORIES:
        before = sum(1 for t in tokens if category(t, names) == cat)
        after = sum(1 for t in current if category(t, names) == cat)
        by_category[cat] = {"before": before, "after": after, "ratio": after / before if before else None}
    before_names = sorted({t for t in tokens if t in names})
    after_names = sorted({t for t in current if t in names})
    return Minimized(original=code, minimized="".join(current), expected=list(expected), tokens_before=len(tokens),
                     tokens_after=len(current), calls=stats["calls"], cache_hits=stats["hits"], finished=finished,
                     prop=prop, rounds=rounds, by_category=by_category, simple_names_before=before_names,
                     simple_names_after=after_names)


def _split(items: list[str], n: int) -> list[list[str]]:
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        if end > start:
            out.append(items[start:end])
        start = end
    return out


def baseline_infer(library: str | None = None) -> Infer:
    from core.families.imports.baseline import solve
    from core.families.imports.kb import load

    kb = load()
    return lambda text: solve(text, kb, library).imports


def response_infer(respond: Callable[[str], str]) -> Infer:
    """A solver that answers in text (a model, the baseline's response): its reply's extracted imports."""
    from core.families.imports.extract import answer_imports, extract

    def infer(text: str) -> list[str]:
        return answer_imports(extract(respond(text))) or []

    return infer
