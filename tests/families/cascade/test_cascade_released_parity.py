"""Both answer formats, both directions: answers scored by this workbench and by the released rules agree.

The cases are built on the first 29 released PBEBench-Lite records (fixtures/released): their ground truth
and perturbations of it, written in the released format (a list of "replace('a', 'b')" strings) and in
ours. For every case the released rules (released_scorer.py, reimplemented from their description) and
ours give the same Pass@1, the same numbers of valid and invalid programs among the first K and the
same token-level Edit_Sim; ours also scores our own format of the same cascade identically. The one
documented difference (an empty lhs) has its own test.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cascade_released_scorer as released_scorer
import pytest

from core.families.cascade.metrics import summarize
from core.families.cascade.model import CascadeInstance
from core.families.cascade.prompt import format_released_response, format_response
from core.families.cascade.released import LITE_ALPHABET
from core.family import get_family

FIXTURES = Path(__file__).parent / "fixtures" / "released"
FAMILY = get_family("cascade")
K = 5


def _instances() -> list[CascadeInstance]:
    found = FAMILY.import_files(FIXTURES / "adaptive_balanced_1008_complete.head29.jsonl")
    assert found is not None and len(found) == 29
    return found


INSTANCES = _instances()


def released_list(items: list[str]) -> str:
    return "Here is my answer.\n\n```python\n[" + ", ".join(items) + "]\n```\n"


def rule_strings(cascade: list[tuple[str, str]], quote: str = "'") -> list[str]:
    inner = "'" if quote == '"' else '"'
    return [f'{inner}replace({quote}{a}{quote}, {quote}{b}{quote}){inner}' for a, b in cascade]


# Each case: a name and a function of the ground-truth cascade giving a released-format reply.
CASES: dict[str, Callable[[list[tuple[str, str]]], str]] = {
    "ground truth": lambda c: released_list(rule_strings(c)),
    "ground truth, double quotes inside": lambda c: released_list(rule_strings(c, '"')),
    "as format_released_response writes it": lambda c: format_released_response(c),
    "bare calls in the list": lambda c: released_list([f"replace('{a}', '{b}')" for a, b in c]),
    "reversed order": lambda c: released_list(rule_strings(c[::-1])),
    "first rule dropped": lambda c: released_list(rule_strings(c[1:])),
    "a side of four characters": lambda c: released_list(rule_strings([(c[0][0] * 4, c[0][1]), *c[1:]])),
    "an upper-case temporary symbol": lambda c: released_list(rule_strings([(c[0][0], "X"), ("X", c[0][1]), *c[1:]])),
    "a letter outside the alphabet": lambda c: released_list(rule_strings([(c[0][0], "q"), *c[1:]])),
    "more than K programs": lambda c: released_list(rule_strings([*c, ("a", "b"), ("b", "c"), ("c", "d")])),
    "an empty list": lambda c: released_list([]),
    "a non-string element": lambda c: released_list(["1", *rule_strings(c)]),
    "a string that is not a program": lambda c: released_list(['"hello"', *rule_strings(c)]),
    "a wrong block then the right one": lambda c: released_list(rule_strings(c[::-1])) + released_list(rule_strings(c)),
    "no code block": lambda c: "I could not find the cascade.",
}


def _ours(instance: CascadeInstance, response: str) -> tuple[bool, int, int, float]:
    _answer, verdict = FAMILY.check(instance, response)
    d = verdict.details
    return verdict.correct, d["n_valid"], d["n_evaluated"] - d["n_valid"], d["edit_sim_tokens"]


def _released(instance: CascadeInstance, response: str) -> tuple[bool, int, int, float]:
    s = released_scorer.score(instance.inputs, instance.outputs, response, LITE_ALPHABET, K)
    return s.passed, s.valid, s.invalid, s.reward


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_pass_validity_and_token_edit_sim_agree_with_the_released_rules(case: str) -> None:
    for instance in INSTANCES:
        response = CASES[case](instance.cascade())
        ours, theirs = _ours(instance, response), _released(instance, response)
        assert ours[:3] == theirs[:3], (case, instance.meta["released_line"], response)
        assert ours[3] == pytest.approx(theirs[3]), (case, instance.meta["released_line"])


def test_the_released_ground_truth_passes_both_scorers_29_of_29() -> None:
    ours = [_ours(i, CASES["ground truth"](i.cascade()))[0] for i in INSTANCES]
    theirs = [_released(i, CASES["ground truth"](i.cascade()))[0] for i in INSTANCES]
    assert sum(ours) == sum(theirs) == 29


def test_our_format_of_the_same_cascade_scores_the_same_here() -> None:
    for instance in INSTANCES:
        for variant in (instance.cascade(), instance.cascade()[::-1], instance.cascade()[1:]):
            ours_format = _ours(instance, format_response(variant))
            released_format = _ours(instance, released_list(rule_strings(variant)))
            assert ours_format == released_format


def test_pooled_valid_rate_equals_the_released_one() -> None:
    rows, valid, total = [], 0, 0
    for instance in INSTANCES:
        for case in ("ground truth", "a side of four characters", "more than K programs", "no code block"):
            response = CASES[case](instance.cascade())
            rows.append((instance, FAMILY.check(instance, response)[1]))
            theirs = _released(instance, response)
            valid, total = valid + theirs[1], total + theirs[1] + theirs[2]
    summary = summarize(rows)
    assert summary["valid_rate"] == pytest.approx(valid / total)
    assert summary["valid_rate_lo"] < summary["valid_rate"] < summary["valid_rate_hi"]


def test_an_empty_lhs_is_where_the_two_differ() -> None:
    # the released parser accepts replace('', 'x') (Python's "".replace inserts between every
    # character); the paper and both prompts require a non-empty lhs, and so does this verifier
    instance = INSTANCES[0]
    response = released_list(rule_strings([("", "a"), *instance.cascade()]))
    assert _released(instance, response)[1:3] == (len(instance.cascade()) + 1, 0)
    assert _ours(instance, response)[1:3] == (len(instance.cascade()), 1)


def test_a_list_after_an_assignment_is_read_here_only() -> None:
    # `programs = [...]` is not a literal, so the released reader sees no program; this one reads the list
    instance = INSTANCES[0]
    response = "```python\nprograms = [" + ", ".join(rule_strings(instance.cascade())) + "]\n```"
    assert _released(instance, response)[:3] == (False, 0, 0)
    assert _ours(instance, response)[:3] == (True, len(instance.cascade()), 0)


def test_the_released_scorer_cannot_read_our_format() -> None:
    # why the prompt styles differ in their answer format: ours is one statement per line
    instance = INSTANCES[0]
    assert _released(instance, format_response(instance.cascade()))[:3] == (False, 0, 0)
    assert _ours(instance, format_response(instance.cascade()))[0] is True
