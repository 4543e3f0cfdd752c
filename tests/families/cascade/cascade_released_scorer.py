"""The released PBEBench scoring rules, reimplemented for the parity tests from their documented behaviour
(GitHub cmu-llab/PBEBench, src/metrics/functional_correctness.py and the program parser it uses); written
here, not copied, and kept apart from the family's code so that the parity test compares two independent
readings.

What the released scorer does with one response, as described in its code:
1. take the text of the first or the last ```python block (the tag is required; the text after the tag's
   whitespace up to the next ```); no such block means the program list "[]";
2. wrap every `replace(...)` not already inside quotes in double quotes;
3. read the result with `ast.literal_eval`: a string becomes a one-element list, anything that is not a
   list (or does not parse) becomes the empty list;
4. for each of the first K elements: a string is parsed as a program (below), anything else is invalid;
   an invalid program is the identity; valid and invalid programs are counted (Valid_Rate pools them);
5. Pass@1: every output equal; Edit_Sim ("reward"): 1 - token edit distance(pred, out) / token edit
   distance(in, out), tokens being `str.split()`.
A program string is valid when it contains "replace(" and, taking the text after the last "replace(",
splitting it on commas: the first piece and the second piece up to ")" (each stripped, then with every
quote character removed) are at most 3 characters long and use only characters of the vocabulary
(the test strips outer whitespace). An empty first piece is accepted.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_BLOCK = re.compile(r"```python\s(.*?)```", re.DOTALL)
_WRAP = re.compile(r"""(?<!['"])(replace\([^)]*\))(?!['"])""")


@dataclass
class Scored:
    passed: bool
    valid: int
    invalid: int
    predicted: list[str]
    reward: float


def program_list(response: str, which: str = "last") -> list[object]:
    blocks = [b.strip() for b in _BLOCK.findall(response)]
    text = (blocks[0] if which == "first" else blocks[-1]) if blocks else "[]"
    text = _WRAP.sub(r'"\1"', text)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return []
    if isinstance(value, str):
        value = [value]
    return value if isinstance(value, list) else []


def parse_program(element: object, vocab: str, max_window: int = 3) -> tuple[str, str] | None:
    if not isinstance(element, str) or not element.strip() or "replace(" not in element:
        return None
    pieces = element.split("replace(")[-1].split(",")
    if len(pieces) < 2:
        return None
    lhs = pieces[0].strip().replace("'", "").replace('"', "")
    rhs = pieces[1].split(")")[0].strip().replace("'", "").replace('"', "")
    if len(lhs) > max_window or len(rhs) > max_window:
        return None
    if not set(lhs.strip()) <= set(vocab) or not set(rhs.strip()) <= set(vocab):
        return None
    return lhs, rhs


def token_distance(a: list[str], b: list[str]) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        cur = [i]
        for j, y in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def score(inputs: list[str], outputs: list[str], response: str, vocab: str, k: int, which: str = "last") -> Scored:
    predicted = list(inputs)
    valid = invalid = 0
    for element in program_list(response, which)[:k]:
        program = parse_program(element, vocab)
        if program is None:
            invalid += 1
            continue
        valid += 1
        predicted = [s.replace(program[0], program[1]) for s in predicted]
    pred_dist = sum(token_distance(p.split(), o.split()) for p, o in zip(predicted, outputs, strict=True))
    in_dist = sum(token_distance(i.split(), o.split()) for i, o in zip(inputs, outputs, strict=True))
    return Scored(predicted == outputs, valid, invalid, predicted, 1 - pred_dist / in_dist)
