"""Extract a True/False answer from free model text. Never raises; linear in the text's length.

Cleaning: the reasoning (core.extraction.split_reasoning: `<think>` blocks and the like, an unclosed one
running to the end, the text before a stray closing tag), code-fence markers and Markdown emphasis (`*`,
backticks, `#`, `>`; not `_`, which joins words: `true_value` is an identifier, not an answer) are
removed. A mention of True/False is *negated* when a negation comes just before it ("not True", "isn't
True", "does not print True"). Then, in order:

1. the whole reply is a bare answer (`True`, "false.", "**Answer:** True") -> that;
2. strong evidence: answer statements ("answer is X", "Answer: X", "output: X", "prints X", "result is X",
   `\\boxed{X}`), a reply that starts with X (a Listing 5 completion: " True"), and *standalone* clauses,
   made of X and filler words only ("Actually, False.", "No wait, True", "It is not True", "True False");
   questions ("True or False?") are not evidence;
3. the last sentence's mentions, then all mentions.

At each stage the un-negated values decide: one value (not also negated) is the answer; both, or a value
also negated ("True. Not True."), is contradictory; only negated mentions ("Not True.") are a failure,
"negated", rather than a guess at the opposite. So trailing prose after a leading answer ("True. The call
is_member_1(x[0]) returns False ...") does not count against it, while "True. Actually, False." does.
"""

from __future__ import annotations

import bisect
import re
import string
from collections.abc import Iterable, Iterator

from core.extraction import split_reasoning
from core.verdict import Answer

WORD = r"(true|false)"
_FENCE = re.compile(r"```[A-Za-z0-9_+-]*")
_EMPHASIS = re.compile(r"[*`#>]+")
_VALUE = re.compile(rf"\b{WORD}\b", re.IGNORECASE)
# Stripped around a bare answer; "_" stays, so "true_" is not the bare word.
_PUNCT = string.punctuation.replace("_", "") + string.whitespace
_BARE_PREFIXES = ("final answer", "answer", "output", "result")
_STATEMENTS = [
    re.compile(rf"\b(?:final\s+)?answer\s*(?:is|:|=|would\s+be|will\s+be)\s*['\"(\[]*{WORD}\b", re.IGNORECASE),
    re.compile(rf"\boutputs?\s*(?:is|:|=|would\s+be|will\s+be)?\s*['\"(\[]*{WORD}\b", re.IGNORECASE),
    re.compile(rf"\bprint(?:s|ed)?\s*(?:is|:|=|would\s+be|will\s+be)?\s*['\"(\[]*{WORD}\b", re.IGNORECASE),
    re.compile(rf"\bresult\s*(?:is|:|=|would\s+be|will\s+be)\s*['\"(\[]*{WORD}\b", re.IGNORECASE),
    re.compile(rf"\\boxed\{{\s*(?:\\text\{{)?\s*{WORD}\b", re.IGNORECASE),
]
_LEADING = re.compile(rf"^\W*{WORD}\b(?!\s*(?:or|and|/|\|)\b)", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")

NEGATORS = frozenset({
    "not", "never", "cannot", "isn't", "isnt", "doesn't", "doesnt", "don't", "dont", "won't", "wont",
    "wouldn't", "wouldnt", "can't", "cant", "wasn't", "wasnt", "aren't", "arent", "shouldn't", "mustn't",
})
_NEGATION = re.compile(r"\b(?:not|never|cannot|isnt|doesnt|dont|wont|wouldnt|cant|wasnt|arent)\b|n['’]t\b",
                       re.IGNORECASE)
# A negator this close before a mention negates it: up to two words between ("not be True", "does not
# print True", "is not equal to True"), no clause boundary, only quotes/brackets/spaces otherwise.
_NEGATION_GAP = re.compile(r"(?:\s+[A-Za-z]+){0,2}[\s'\"(\[=:]*")
MAX_NEGATION_GAP = 40
# Words that can surround a standalone answer without saying anything else.
FILLERS = frozenset({
    "a", "actually", "all", "an", "and", "answer", "be", "correct", "correction", "definitely", "evaluates",
    "final", "gives", "hence", "hmm", "i", "is", "it", "it's", "its", "just", "mean", "my", "no", "oh", "ok",
    "okay", "oops", "or", "output", "outputs", "print", "prints", "result", "return", "returns", "say",
    "so", "sorry", "that", "the", "then", "therefore", "think", "this", "thus", "to", "uh", "um", "value",
    "wait", "well", "will", "would", "yes",
} | NEGATORS)
_WORDS = "|".join(re.escape(w).replace("'", "['’]") for w in sorted(FILLERS | {"true", "false"}, key=len,
                                                                          reverse=True))
# A standalone clause: from a clause start to a clause end ("." "!" ";" line break or the end, not "?":
# questions are not answers), only those words in between. Atomic groups and possessive repeats keep it
# linear: nothing is ever re-tried.
_STANDALONE = re.compile(
    rf"(?:(?<=[.!?;\n])|\A)[^\w.!?;\n]*+(?:(?>(?:{_WORDS})(?!\w))[^\w.!?;\n]*+)++(?=[.!;\n]|\Z)",
    re.IGNORECASE,
)

Evidence = tuple[bool, bool]  # (value, negated)


def _as_bool(word: str) -> bool:
    return word.lower() == "true"


def clean(text: str) -> str:
    """Drop reasoning, fences and emphasis; keep the words."""
    text = split_reasoning(text).answer
    text = _FENCE.sub("\n", text)
    return _EMPHASIS.sub(" ", text)


def _bare(body: str) -> bool | None:
    """The reply is just the answer, maybe quoted or after "Answer:" (plain string ops: no backtracking)."""
    core = body.strip(_PUNCT).lower()
    for prefix in _BARE_PREFIXES:
        if core.startswith(prefix):
            core = core[len(prefix):].strip(_PUNCT)
            break
    return {"true": True, "false": False}.get(core)


class _Negation:
    """Which mentions are negated. Negators are found in one pass; each mention then checks only the
    nearest one before it, so the whole test stays linear even for a million mentions."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.ends = [m.end() for m in _NEGATION.finditer(body)]

    def __call__(self, start: int) -> bool:
        i = bisect.bisect_right(self.ends, start) - 1
        if i < 0 or start - self.ends[i] > MAX_NEGATION_GAP:
            return False
        return _NEGATION_GAP.fullmatch(self.body, self.ends[i], start) is not None

    def any_within(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self.ends, start)
        return i < len(self.ends) and self.ends[i] <= end


def _resolve(evidence: Iterable[Evidence]) -> Answer | None:
    """One stage's decision: an answer, a failure, or None (nothing here; ask the next stage).

    Only which (value, negated) pairs occur matters, so it stops as soon as both values are stated."""
    seen: set[Evidence] = set()
    for item in evidence:
        seen.add(item)
        if (True, False) in seen and (False, False) in seen:
            return Answer.failure("contradictory", "the response states both True and False")
    said = {value for value, negated in seen if not negated}
    denied = {value for value, negated in seen if negated}
    if said:
        value = said.pop()
        if value in denied:
            return Answer.failure("contradictory", f"the response both states and negates {value}")
        return Answer.success(value)
    if denied:
        return Answer.failure("negated", "the response only negates a value ('not True'); it states no answer")
    return None


def _standalone(body: str, negated: _Negation) -> Iterator[Evidence]:
    """Mentions in clauses made only of True/False, negations and filler words."""
    for clause in _STANDALONE.finditer(body):
        if negated.any_within(clause.start(), clause.end()):
            yield from ((_as_bool(m.group(1)), negated(clause.start() + m.start()))
                        for m in _VALUE.finditer(clause.group()))
        else:  # the common case: no negation, so the values present are all there is to know
            low = clause.group().lower()
            yield from ((value, False) for value, word in ((True, "true"), (False, "false")) if word in low)


def _strong(body: str, negated: _Negation) -> Iterator[Evidence]:
    leading = _LEADING.match(body)
    if leading:
        yield _as_bool(leading.group(1)), False
    for pattern in _STATEMENTS:
        yield from ((_as_bool(m.group(1)), negated(m.start(1))) for m in pattern.finditer(body))
    yield from _standalone(body, negated)


def _decide(text: str) -> Answer:
    if not isinstance(text, str):
        return Answer.failure("not_text", f"expected text, got {type(text).__name__}")
    body = clean(text).strip()
    if not body:
        return Answer.failure("empty", "the response is empty (after removing reasoning and code fences)")
    if _VALUE.search(body) is None:
        return Answer.failure("missing", "the response says neither True nor False")

    bare = _bare(body)
    if bare is not None:
        return Answer.success(bare, rule="bare")

    negated = _Negation(body)
    decided = _resolve(_strong(body, negated))
    if decided is not None:
        return _with_rule(decided, "strong")

    last_start = 0
    for end in _SENTENCE_END.finditer(body):
        last_start = end.end()
    decided = _resolve((_as_bool(m.group(1)), negated(m.start(1))) for m in _VALUE.finditer(body, last_start))
    if decided is not None and decided.error != "contradictory":  # a mixed last sentence: look at all text
        return _with_rule(decided, "last_sentence")
    decided = _resolve((_as_bool(m.group(1)), negated(m.start(1))) for m in _VALUE.finditer(body))
    if decided is not None:
        return _with_rule(decided, "only_mention")
    return Answer.failure("contradictory", "the response mentions both True and False without a clear answer")


def _with_rule(answer: Answer, rule: str) -> Answer:
    answer.details.setdefault("rule", rule)
    return answer


def extract(text: str, instance: object = None) -> Answer:
    try:
        return _decide(text)
    except Exception as exc:  # extraction must never take a run down; report it as a failed extraction
        return Answer.failure("internal", f"extraction failed: {type(exc).__name__}")
