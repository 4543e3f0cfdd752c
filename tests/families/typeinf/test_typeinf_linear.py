"""The typeinf family's verification is linear in the answer: the work a check does on a hostile
reply is bounded by counts, not timed here (tests/bench/bench_typeinf_verify_linear.py measures the time
per character): the parser runs a fixed number of times whatever the reply's length, the fast token
bound agrees with a plain token-by-token scan, and the replies that made the extraction's regexes
backtrack quadratically (a run of spaces before a trailing comma: 30,000 spaces took 188 s) finish."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.families.typeinf import hsparse
from core.families.typeinf.check import _equivalent_cached
from core.families.typeinf.extract import MAX_TYPE_DEPTH, MAX_TYPE_TOKENS, TooLong, bound_type_text
from core.family import get_family

REPO = Path(__file__).resolve().parents[3]


def _not_instance():  # type: ignore[no-untyped-def]
    fam = get_family("typeinf")
    return fam, next(i for i in fam.generate(fam.resolve_params("tfbench-base"), 0, 250) if i.name == "not")


def _reference_bound(text: str) -> str | None:
    """The bound as a scan token by token (hsparse's token regex): which bound `text` breaks first."""
    depth = 0
    for count, m in enumerate(hsparse._TYPE_TOKEN.finditer(text), 1):
        if count > MAX_TYPE_TOKENS:
            return "tokens"
        if m.group() in ("(", "["):
            depth += 1
            if depth > MAX_TYPE_DEPTH:
                return "depth"
        elif m.group() in (")", "]"):
            depth -= 1
    return None


def _fast_bound(text: str) -> str | None:
    try:
        bound_type_text(text)
    except TooLong as exc:
        return "depth" if "nests" in str(exc) else "tokens"
    return None


PIECES = ["a", "b'", "Maybe", "->", "=>", "::", "-", ">", "=", ":", "(", ")", "[", "]", ",", " ", "  ", "\t", "\n",
          "'", "x_1", "."]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=700), st.integers(min_value=0, max_value=80))
def test_the_fast_token_bound_agrees_with_a_token_by_token_scan(pieces: list[str], opening: int) -> None:
    text = "(" * opening + "".join(pieces)
    assert _fast_bound(text) == _reference_bound(text)


def test_the_bounds_at_their_edges() -> None:
    at = " -> ".join(["a"] * (MAX_TYPE_TOKENS // 2)) + " b"  # 300 tokens
    assert _fast_bound(at) is None and _fast_bound(at + "  \n") is None and _fast_bound(at + " c") == "tokens"
    assert _fast_bound("(" * MAX_TYPE_DEPTH + "a" + ")" * MAX_TYPE_DEPTH) is None
    assert _fast_bound("(" * (MAX_TYPE_DEPTH + 1) + "a") == "depth"
    assert _fast_bound("[]" * 200) == "tokens" and _fast_bound("(" * 70 + ")" * 70) == "depth"


def _rep(unit: str, chars: int) -> str:
    return (unit * (chars // len(unit) + 1))[:chars]


# Hostile shapes, each as long as asked (characters).
SHAPES = {
    "vars": lambda n: "not :: " + " -> ".join(f"a{i}" for i in range(n // 6)),
    "parens": lambda n: "not :: " + "(" * (n // 2) + "a" + ")" * (n // 2),
    "prose": lambda n: "not :: Bool -> Bool, " + _rep("because the argument is negated ", n),
    "lines": lambda n: "not :: Bool -> Bool\n\n" + _rep("The function negates its argument, as given above.\n", n),
    "fence": lambda n: _rep("Its type is in the block below.\n", n) + "```haskell\nnot :: Bool -> Bool\n```",
    "sigs": lambda n: "".join(f"f{i} :: T{i} -> Int\n" for i in range(n // 20)),
    # a candidate type on every line, none of them one: each was parsed, up to 18 times
    "inline": lambda n: "".join(f"use `A{i} b!` here\n" for i in range(n // 20)),
    "spaces_comma": lambda n: "not :: Bool" + " " * n + "-> Bool ,",
    "letters": lambda n: "a" * n,
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_parser_runs_a_fixed_number_of_times_whatever_the_length(shape: str, monkeypatch) -> None:
    fam, inst = _not_instance()
    real = hsparse.parse_tree
    calls: list[int] = []

    def counted(source: str):  # type: ignore[no-untyped-def]
        calls.append(len(source))
        return real(source)

    monkeypatch.setattr(hsparse, "parse_tree", counted)
    counts, verdicts = [], []
    for size in (10_000, 100_000):
        hsparse._parse_type_cached.cache_clear()  # every check reads its answer afresh, as a run's do
        _equivalent_cached.cache_clear()
        calls.clear()
        answer, verdict = fam.check(inst, SHAPES[shape](size))
        counts.append(len(calls))
        verdicts.append((answer.error, verdict.status))
    # at most 18 parses per type text tried (the whole, the prose cut, the first error, 15 cut points) and
    # 16 candidates in a reply without a signature: a constant, whatever the length
    assert counts[0] == counts[1] and counts[1] <= 18 * 16, (shape, counts)
    assert verdicts[0] == verdicts[1], (shape, verdicts)


def test_the_names_of_other_signatures_are_bounded() -> None:
    fam, inst = _not_instance()
    answer, verdict = fam.check(inst, SHAPES["sigs"](300_000))
    assert answer.error == "instruction" and "and 14,990 more" in answer.message and len(answer.message) < 400
    assert len(answer.details["names"]) == 100


HOSTILE = """
import sys
from core.family import get_family
fam = get_family("typeinf")
inst = next(i for i in fam.generate(fam.resolve_params("tfbench-base"), 0, 250) if i.name == "not")
for reply in ("not :: Bool" + " " * 300_000 + "-> Bool ,", "a" * 300_000, "x y z .\\n" + "  \\n" * 100_000 + "x y ."):
    answer, verdict = fam.check(inst, reply)
    print(answer.error, verdict.status)
"""


def test_replies_that_made_the_regexes_backtrack_quadratically_finish() -> None:
    """A guard against a hang, not a timing: before, the first reply alone took hours (k² regex steps for
    a run of k spaces); the timeout is minutes where the check takes milliseconds."""
    done = subprocess.run([sys.executable, "-c", HOSTILE], capture_output=True, text=True, timeout=300, cwd=REPO,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["syntax", "extraction_error"] * 3
