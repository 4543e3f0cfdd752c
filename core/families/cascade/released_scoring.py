"""The released PBEBench scorer's reading of a response, as its code does it (GitHub cmu-llab/PBEBench,
`src/metrics/functional_correctness.py` and `ProgramBFCCNode.from_string`; reimplemented, not copied).
`verify`/`report --scoring released` use it; the workbench's own scoring (`verify.py`) stays the default.

Where the two differ, this module does what the released code does:
- only ```python fences are read (the regex ```python\\s(.*?)```: an untagged or ```py fence is no
  answer), the first and the last of them; none is the program list "[]";
- every `replace(...)` not already next to a quote is wrapped in double quotes, and the block is read
  with `ast.literal_eval`: a string is a one-element list, anything else that is not a list (or does
  not parse) is the empty list, so `s = s.replace(...)` statements are no answer;
- of the first K elements, a string is parsed as the released parser does (the text after the last
  "replace(", split on commas: the first piece and the second up to ")", each stripped, then every
  quote character removed; each at most 3 characters, and each, stripped, made of the vocabulary), and
  anything else is invalid; an invalid program is the identity, and an empty lhs is valid: Python's
  `"".replace` inserts the rhs between every character;
- Pass@1: every output equal; Edit_Sim: the token-level reward 1 - sum tokdist(pred, out) / sum
  tokdist(in, out), tokens being `str.split()` (`edit_sim_tokens`; the character-level `edit_sim` of the
  same predictions is kept beside it); the verdict's score is that reward, and of several samples the
  one with the highest reward counts (the first of equals).

Where this cannot do what the released code does, the verdict says so in `details.released_notes`: the
released code stops (an exception other than ValueError/SyntaxError from `ast.literal_eval`, a zero
denominator), or a string outgrows the length limit (predictions are cut as in the workbench's scoring).
`ast.literal_eval` reads literals only (no code runs), under Python's own limits on nesting and
recursion; a reply longer than the reply limit is not read at all.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from core.extraction import too_long
from core.families.cascade.metrics import edit_sim_from, levenshtein, token_distance
from core.families.cascade.model import CascadeInstance
from core.families.cascade.verify import BlockResult, Program, diff_rows, length_limit
from core.verdict import Answer, Verdict

SCORING = "released"
DEFAULT_VOCAB = "abcdefghijkuvwxyz"  # the released scorer's --vocab default (Lite's alphabet)
_BLOCK = re.compile(r"```python\s(.*?)```", re.DOTALL)
_WRAP = re.compile(r"""(?<!['"])(replace\([^)]*\))(?!['"])""")


def python_blocks(response: str) -> list[str]:
    return [block.strip() for block in _BLOCK.findall(response)]


def wrapped(block: str) -> str:
    return _WRAP.sub(r'"\1"', block)


def program_list(text: str, notes: list[str]) -> list[Any]:
    """`try_ast_literal_eval`: the block's value as a list, [] when it is not one. Python's own limits
    stay in force (brackets nested deeper than 200 are a SyntaxError, as for the released reader; a
    runaway expression a RecursionError or MemoryError, where the released scorer stops)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return []
    except Exception as exc:  # noqa: BLE001 - the released code does not catch these: it stops
        notes.append(f"ast.literal_eval raised {type(exc).__name__}: the released scorer stops here; read as []")
        return []
    if isinstance(value, str):
        value = [value]
    return value if isinstance(value, list) else []


def parse_program(element: Any, vocab: frozenset[str], max_window: int) -> tuple[str, str] | str:
    """`ProgramBFCCNode.from_string`: (lhs, rhs), or where it raises (an invalid program) the kind of
    error (a key of ERROR_WORDS)."""
    if not isinstance(element, str):
        return "non_string"
    if element.strip() == "" or "replace(" not in element:
        return "not_replace"
    pieces = element.split("replace(")[-1].split(",")
    if len(pieces) < 2:
        return "arity"  # the released parser's IndexError
    lhs = pieces[0].strip().replace("'", "").replace('"', "")
    rhs = pieces[1].split(")")[0].strip().replace("'", "").replace('"', "")
    if len(lhs) > max_window or len(rhs) > max_window:
        return "too_long"
    if not vocab.issuperset(lhs.strip()) or not vocab.issuperset(rhs.strip()):
        return "alphabet"
    return lhs, rhs


def _source(element: Any) -> str:
    return element[:80] if isinstance(element, str) else repr(element)[:80]


def _apply(texts: list[str], lhs: str, rhs: str, limit: int) -> tuple[list[str], bool]:
    """`s.replace(lhs, rhs)` on each string (an empty lhs too), cut at `limit` characters (the strings
    going in are at most `limit` long, so a result is at most 4 * (limit + 1))."""
    out, cut = [], False
    for text in texts:
        text = text.replace(lhs, rhs)
        if len(text) > limit:
            text, cut = text[:limit], True
        out.append(text)
    return out, cut


def evaluate(instance: CascadeInstance, elements: list[Any], notes: list[str]) -> BlockResult:
    """`eval_outputs` plus `reward` on the first K elements."""
    vocab, window = _vocab(instance), instance.max_side()
    limit = max(length_limit(instance), 4096)
    evaluated = elements[: instance.max_programs()]
    predicted = list(instance.inputs)
    programs: list[Program] = []
    overflow = False
    for element in evaluated:
        parsed = parse_program(element, vocab, window)
        if isinstance(parsed, str):
            programs.append(Program(None, None, False, parsed, _source(element)))
            continue
        lhs, rhs = parsed
        programs.append(Program(lhs, rhs, True, None, _source(element)))
        predicted, cut = _apply(predicted, lhs, rhs, limit)
        overflow = overflow or cut
    if overflow:
        notes.append(f"a string grew past {limit} characters and was cut (the released code keeps it whole)")
    outputs = instance.outputs
    passed = predicted == outputs
    lev = [levenshtein(p, o) for p, o in zip(predicted, outputs, strict=True)]
    return BlockResult(programs=programs, given=len(elements), predicted=predicted,
                       overflow=[overflow and len(p) >= limit for p in predicted], lev=lev, passed=passed,
                       edit_sim=edit_sim_from(sum(lev), instance), edit_sim_tokens=reward(instance, predicted, notes),
                       n_valid=sum(p.valid for p in programs))


def reward(instance: CascadeInstance, predicted: list[str], notes: list[str]) -> float:
    outputs_tok = [o.split() for o in instance.outputs]
    distance = sum(token_distance(p.split(), o) for p, o in zip(predicted, outputs_tok, strict=True))
    baseline = sum(token_distance(i.split(), o) for i, o in zip(instance.inputs, outputs_tok, strict=True))
    if baseline == 0:
        notes.append("every input equals its output in tokens: the released reward divides by zero "
                     "(measured against the outputs' token count instead)")
        baseline = max(1, sum(len(o) for o in outputs_tok))
    return 1.0 - distance / baseline


def _vocab(instance: CascadeInstance) -> frozenset[str]:
    alphabet = instance.meta.get("alphabet") if isinstance(instance.meta, dict) else None
    if isinstance(alphabet, str) and alphabet:
        return frozenset(alphabet)
    return instance.allowed_chars() or frozenset(DEFAULT_VOCAB)


def check(instance: CascadeInstance, response: str) -> tuple[Answer, Verdict]:
    """The released scorer's verdict on one raw response (the reply as the model wrote it)."""
    notes: list[str] = []
    long = too_long(response)
    blocks = [] if long is not None else python_blocks(response or "")
    if long is not None:
        notes.append(long.message)
    last_elements = program_list(wrapped(blocks[-1]), notes) if blocks else []
    first_elements = program_list(wrapped(blocks[0]), notes) if len(blocks) > 1 else last_elements
    elements = {"first": first_elements, "last": last_elements}
    last = evaluate(instance, elements["last"], notes)
    first = last if len(blocks) < 2 else evaluate(instance, elements["first"], [])
    if not blocks:
        status = "extraction_error"
    elif last.n_invalid or not last.programs:
        status = "invalid"
    else:
        status = "valid"
    details: dict[str, Any] = {
        "scoring": SCORING,
        "pass@1": float(last.passed), "edit_sim": last.edit_sim, "edit_sim_tokens": last.edit_sim_tokens,
        "valid_rate": last.valid_rate, "n_valid": last.n_valid,
        "pass@1_first": float(first.passed), "edit_sim_first": first.edit_sim,
        "edit_sim_tokens_first": first.edit_sim_tokens, "valid_rate_first": first.valid_rate,
        "n_valid_first": first.n_valid, "n_evaluated_first": len(first.programs),
        "extraction_error": not blocks, "n_python_blocks": len(blocks),
        "max_programs": instance.max_programs(), "n_programs": last.given, "n_evaluated": len(last.programs),
        "n_invalid": last.n_invalid, "truncated": max(0, last.given - len(last.programs)),
        "cascade": [[p.lhs, p.rhs] if p.valid else None for p in last.programs],
        "invalid": [{"rule": i, "source": p.source, "error": p.error}
                    for i, p in enumerate(last.programs, start=1) if not p.valid],
        "lev": last.lev, "predicted_first": first.predicted,
    }
    if notes:
        details["released_notes"] = notes
    answer = Answer.success({"scoring": SCORING, "first": [_source(e) for e in elements["first"]],
                             "last": [_source(e) for e in elements["last"]], "n_python_blocks": len(blocks)})
    verdict = Verdict(correct=last.passed, score=last.edit_sim_tokens, status=status, expected=instance.outputs,
                      got=last.predicted, diff=diff_rows(instance, last),
                      explanation=_explain(instance, last, len(blocks), notes), details=details)
    return answer, verdict


def _explain(instance: CascadeInstance, last: BlockResult, n_blocks: int, notes: list[str]) -> str:
    n = len(instance.inputs)
    lead = "Scored as the released PBEBench scorer does. "
    if not n_blocks:
        lead += "No ```python block (the released scorer reads no other fence): no programs, the identity. "
    else:
        lead += (f"Last ```python block: {len(last.programs)} of {last.given} program(s) evaluated, "
                 f"{last.n_invalid} invalid (the identity). ")
    matched = sum(d == 0 for d in last.lev)
    lead += ("Pass: all outputs match. " if last.passed else f"{matched} of {n} outputs match. ")
    lead += f"Edit_Sim (tokens) {last.edit_sim_tokens:.3f}."
    if notes:
        lead += " " + " ".join(notes)
    return lead


def select(verdicts: list[Verdict]) -> int:
    """`pick_highest_reward_prog_seq`: the sample with the highest reward, the first of equals."""
    return max(range(len(verdicts)), key=lambda i: (verdicts[i].score, -i))
