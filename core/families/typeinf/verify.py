"""Verdicts: the in-process checker decides, the diff shows where, Appendix G names the error.

The error category is decided by rules over the two types (the paper used an LLM judge with Table 4's
definitions; these rules implement the same definitions): see `classify`.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.families.typeinf.check import canonical, equivalent_canonical, is_instance, permutations_match
from core.families.typeinf.corpus import binder
from core.families.typeinf.env import task_synonyms
from core.families.typeinf.extract import TooLong, bound_type_text
from core.families.typeinf.hsparse import HsParseError, bare_classes, parse_type, split_signature
from core.families.typeinf.model import TypeinfInstance
from core.families.typeinf.oracle import GhcJudgement, judge_many, judgeable, tree_reads
from core.families.typeinf.tools import GHC
from core.families.typeinf.types import Pred, Scheme, TAp, TVar, Type, show, show_pred, split_fn, subst
from core.verdict import Answer, DiffRow, Verdict, char_diff_spans

MAX_UNREAD_KEPT = 500  # extract keeps this much of a text it could not read: a longer one was cut
CATEGORIES = ("OverGeneralization", "UnderGeneralization", "ArgOrderMismatch", "ArityMismatch", "ConstraintError",
              "SyntaxError", "InstructionFollowing", "ResponseError", "TypeMismatch")
EXTRACTION_CATEGORY = {"empty": "ResponseError", "too_long": "ResponseError", "syntax": "SyntaxError", "instruction": "InstructionFollowing"}
CATEGORY_TEXT = {
    "OverGeneralization": "the answer is more general than the function's type (it keeps apart type variables "
                          "that must coincide)",
    "UnderGeneralization": "the answer is more specific than the function's type (a variable fixed or unified, "
                           "or an unneeded constraint added)",
    "ArgOrderMismatch": "the answer has the right argument types in the wrong order",
    "ArityMismatch": "the answer has a different number of arguments",
    "ConstraintError": "the answer has the right shape but the wrong class constraints",
    "SyntaxError": "the answer is not a valid Haskell type",
    "InstructionFollowing": "the reply does not give the signature it was asked for",
    "ResponseError": "the reply gives no answer",
    "TypeMismatch": "the answer's type differs in a way none of the paper's categories describes "
                    "(a different type constructor)",
}


def truth_parts(instance: TypeinfInstance) -> tuple[str, str] | None:
    sig = instance.truth_signature()
    if sig is None:
        return None
    name, type_text = split_signature(sig)
    if name is None:
        # snapshots imported before operators kept their parentheses store `$ :: ...`
        head, sep, rest = sig.partition("::")
        if sep and head.strip() == instance.name:
            return instance.name, rest.strip()
    return (name or instance.name), type_text.strip()


def classify(truth: Scheme, answer: Scheme, synonyms: dict) -> str | None:  # type: ignore[type-arg]
    """Appendix G's category of a wrong answer, by rules over the two types (None if equivalent)."""
    ct, ca = canonical(truth, synonyms), canonical(answer, synonyms)
    if equivalent_canonical(ct, ca):
        return None
    args_t, res_t = split_fn(ct.body)
    args_a, res_a = split_fn(ca.body)
    if ca.ambiguous:
        return "ConstraintError"
    if len(args_t) != len(args_a):
        return "ArityMismatch"
    if ct.body == ca.body:
        if ca.context > ct.context:
            return "UnderGeneralization"
        return "ConstraintError"
    if permutations_match(args_t, res_t, args_a, res_a):
        return "ArgOrderMismatch"
    if is_instance(ca.body, ct.body):
        return "OverGeneralization"
    if is_instance(ct.body, ca.body):
        return "UnderGeneralization"
    return "TypeMismatch"


def _correspondence(truth: Type, answer: Type, out: dict[str, Type]) -> None:
    """Rename the answer's variables after the truth's where the two structures line up."""
    if isinstance(answer, TVar) and isinstance(truth, TVar):
        out.setdefault(answer.name, truth)
    elif isinstance(answer, TAp) and isinstance(truth, TAp):
        _correspondence(truth.fun, answer.fun, out)
        _correspondence(truth.arg, answer.arg, out)


def diff_rows(truth: Scheme, answer: Scheme, synonyms: dict) -> list[DiffRow]:  # type: ignore[type-arg]
    from core.families.typeinf.env import expand_synonyms

    t_body = expand_synonyms(truth.body, synonyms)
    a_body = expand_synonyms(answer.body, synonyms)
    mapping: dict[str, Type] = {}
    _correspondence(t_body, a_body, mapping)
    used = {v.name for v in mapping.values() if isinstance(v, TVar)}
    for p in answer.context:
        for a in p.args:
            if isinstance(a, TVar) and a.name not in mapping and a.name not in used:
                mapping[a.name] = a
    a_body = subst(a_body, mapping)
    a_ctx = [Pred(p.cls, tuple(subst(expand_synonyms(x, synonyms), mapping) for x in p.args)) for p in answer.context]
    t_ctx = [Pred(p.cls, tuple(expand_synonyms(x, synonyms) for x in p.args)) for p in truth.context]
    rows: list[DiffRow] = []
    exp_ctx = ", ".join(sorted({show_pred(p) for p in t_ctx}))
    got_ctx = ", ".join(sorted({show_pred(p) for p in a_ctx}))
    if exp_ctx or got_ctx:
        rows.append(_row("constraints", exp_ctx or "(none)", got_ctx or "(none)"))
    args_t, res_t = split_fn(t_body)
    args_a, res_a = split_fn(a_body)
    for i in range(max(len(args_t), len(args_a))):
        exp = show(args_t[i], 1) if i < len(args_t) else "(none)"
        got = show(args_a[i], 1) if i < len(args_a) else "(none)"
        rows.append(_row(f"argument {i + 1}", exp, got))
    rows.append(_row("result", show(res_t), show(res_a)))
    return rows


def _row(label: str, expected: str, got: str) -> DiffRow:
    ok = expected == got
    exp_spans, got_spans = ([], []) if ok else char_diff_spans(expected, got)
    return DiffRow(label=label, expected=expected, got=got, ok=ok, expected_spans=exp_spans, got_spans=got_spans)


def verify(instance: TypeinfInstance, answer: Answer) -> Verdict:
    """Two judgements: `correct` reads the reply as TF-Bench's released post-processing
    does (extract put it in answer.details["released"]; text beyond the signature makes it wrong,
    InstructionFollowing); details["correct_lenient"] is this family's lenient extraction (the answer's
    value). An Answer made elsewhere, without a released reading, is judged once and both agree."""
    lenient = _judge(instance, answer)
    if "released" not in answer.details or truth_parts(instance) is None:
        return lenient.model_copy(update={"details": {**lenient.details, "correct_lenient": lenient.correct}})
    text = answer.details.get("released")
    name = truth_parts(instance)[0]  # type: ignore[index]
    if text is None:
        as_released = Answer.failure("too_long", "as released, the text after the hook is too long to be a type")
    elif not text.strip():
        as_released = Answer.failure("empty", "as released, nothing is left after removing fences and the hook")
    else:
        as_released = Answer.success({"name": None, "type": text, "signature": f"{binder(name)} :: {text}"})
    released = _judge(instance, as_released)
    if not released.correct and not answer.ok:
        released = lenient  # neither reading finds a type: the lenient one says more about why
    elif not released.correct and (lenient.correct or (
            released.details.get("category") in ("SyntaxError", "ResponseError")
            and lenient.status != "extraction_error" and lenient.details.get("category") != "SyntaxError")):
        # the lenient reading found a type (the right one, or the released reading is no type at all): what
        # the released one got wrong is what the reply says beyond the signature
        released = released.model_copy(update={
            "status": "wrong", "details": {**released.details, "category": "InstructionFollowing"},
            "explanation": f"InstructionFollowing: as released, TF-Bench's post-processing keeps "
                           f"'{(text or '')[:80]}' after the hook, which is not only a type (the reply says more "
                           f"than the signature)"})
    details = {**released.details, "correct_lenient": lenient.correct, "judgement": "released"}
    explanation = released.explanation
    if lenient.correct != released.correct:
        details["lenient_explanation"] = lenient.explanation
        explanation += f" (lenient extraction: {'correct' if lenient.correct else lenient.explanation})"
    return released.model_copy(update={"details": details, "explanation": explanation,
                                       "correct": released.correct, "score": 1.0 if released.correct else 0.0})


def _syntax_error(expected: str | None, got_sig: str, truth_text: str, got_text: str, why: str,
                  judged_by: str = "checker") -> Verdict:
    return Verdict(correct=False, score=0.0, status="wrong", expected=expected, got=got_sig,
                   diff=[DiffRow(label="signature", expected=truth_text, got=got_text, ok=False,
                                 got_spans=[(0, len(got_text))])],
                   explanation=f"SyntaxError: {why}", details={"category": "SyntaxError", "judged_by": judged_by})


def _by_ghc(instance: TypeinfInstance, truth_text: str, got_text: str, why: str,
            extraction: Answer | None = None) -> Verdict:
    """The verdict on an answer the in-process parser cannot read (`why`): GHC judges it, as in the
    paper's proof, before it is called wrong; the verdict says which judged. Without GHC the parser's
    word stands, and says so. `extraction`: the reply's extraction failure, whose verdict is kept when
    GHC rejects the text too."""
    expected = instance.truth_signature()
    name = truth_parts(instance)[0]  # type: ignore[index]
    got_sig = f"{binder(name)} :: {got_text}"
    judgement, unasked = ghc_judgement(_truth_for_ghc(truth_text), got_text, instance.dependencies)
    if judgement is None:
        if extraction is not None:
            verdict = _extraction_verdict(expected, truth_text, extraction, f" ({unasked})" if unasked else "")
            return verdict.model_copy(update={"details": {**verdict.details, "judged_by": "checker"}})
        return _syntax_error(expected, got_sig, truth_text, got_text, why + (f" ({unasked})" if unasked else ""))
    said = f"; GHC: {judgement.message}" if judgement.message else ""
    details: dict[str, object] = {"judged_by": "ghc", "checker": "ghc", "unreadable": why}
    if judgement.outcome == "equivalent":
        return Verdict(correct=True, score=1.0, status="correct", expected=expected, got=got_sig,
                       diff=[DiffRow(label="signature", expected=truth_text, got=got_text, ok=True)],
                       explanation=f"GHC proves the answer equal to the ground truth (Refl or mutual subsumption); "
                                   f"the in-process checker cannot read it ({why})", details=details)
    if judgement.outcome == "different":
        return Verdict(correct=False, score=0.0, status="wrong", expected=expected, got=got_sig,
                       diff=[DiffRow(label="signature", expected=truth_text, got=got_text, ok=False,
                                     got_spans=[(0, len(got_text))])],
                       explanation=f"TypeMismatch: GHC accepts the answer as a type but proves it different from the "
                                   f"ground truth (the in-process checker cannot read it: {why}){said}",
                       details={**details, "category": "TypeMismatch"})
    if judgement.outcome == "read":
        return Verdict(correct=False, score=0.0, status="unknown", expected=expected, got=got_sig,
                       diff=[DiffRow(label="signature", expected=truth_text, got=got_text, ok=False)],
                       explanation=f"not judged: GHC parses the answer as a type, but the in-process parser cannot "
                                   f"read it ({why}), so no proof could be written for it{said}", details=details)
    if extraction is not None:
        verdict = _extraction_verdict(expected, truth_text, extraction, f" (GHC rejects it too{said})")
        return verdict.model_copy(update={"details": {**verdict.details, "judged_by": "ghc"}})
    return _syntax_error(expected, got_sig, truth_text, got_text, f"{why} (GHC rejects it too{said})", "ghc")


_GHC_MEMO: dict[tuple[str, str, tuple[str, ...]], GhcJudgement | None] = {}
_GHC_MEMO_SIZE = 4096


def ghc_judgement(truth_text: str, got_text: str, dependencies: list[str]) -> tuple[GhcJudgement | None, str]:
    """(GHC's judgement, "") or (None, why GHC was not asked). GHC missing is not an answer's fault: the
    parser's word stands; GHC present but unable to run is the environment's (EnvironmentFault)."""
    if not judgeable(got_text):
        return None, ""
    if not GHC.available():
        return None, f"GHC, which would judge it, is not installed (Debian package {GHC.package})"
    key = (truth_text, got_text, tuple(dependencies))
    if key not in _GHC_MEMO:
        prejudge([key])
    return _GHC_MEMO.get(key), ""


def prejudge(keys: Sequence[tuple[str, str, tuple[str, ...]]]) -> None:
    """GHC's judgements of many (truth, answer, dependencies) in one GHC run, kept for `ghc_judgement`."""
    todo = list(dict.fromkeys(k for k in keys if k not in _GHC_MEMO and judgeable(k[1])))
    if not todo or not GHC.available():
        return
    results = judge_many([(t, a, list(d)) for t, a, d in todo])
    if len(_GHC_MEMO) + len(todo) > _GHC_MEMO_SIZE:
        _GHC_MEMO.clear()
    _GHC_MEMO.update(zip(todo, results, strict=True))


def _extraction_verdict(expected: str | None, truth_text: str, answer: Answer, note: str = "") -> Verdict:
    category = EXTRACTION_CATEGORY.get(answer.error or "", "ResponseError")
    return Verdict(correct=False, score=0.0, status="extraction_error", expected=expected, got=None,
                   diff=[DiffRow(label="signature", expected=truth_text, got="(no signature)", ok=False,
                                 expected_spans=[(0, len(truth_text))])],
                   explanation=f"{category}: {answer.message or CATEGORY_TEXT[category]}{note}",
                   details={"category": category})


def _unread_text(answer: Answer) -> str | None:
    """The type text of a reply whose `name ::` is followed by something the parser cannot read."""
    text = answer.details.get("text") if answer.error == "syntax" else None
    return text if isinstance(text, str) and text.strip() and len(text) < MAX_UNREAD_KEPT else None


def _judge(instance: TypeinfInstance, answer: Answer) -> Verdict:
    parts = truth_parts(instance)
    expected = instance.truth_signature()
    if parts is None:
        return Verdict(correct=False, score=0.0, status="unknown", expected=None,
                       got=(answer.value or {}).get("signature") if answer.ok else None,
                       explanation="the instance has no ground-truth signature to compare with",
                       diff=[DiffRow(label="signature", expected="(none)", got=str(answer.value), ok=False)])
    name, truth_text = parts
    if not answer.ok:
        unread = _unread_text(answer)
        if unread is not None and _truth_reads(truth_text):
            return _by_ghc(instance, truth_text, unread, answer.message or "it does not parse", extraction=answer)
        return _extraction_verdict(expected, truth_text, answer)
    value = answer.value or {}
    got_text = str(value.get("type", ""))
    got_sig = str(value.get("signature", f"{name} :: {got_text}"))
    synonyms = task_synonyms(instance.dependencies)
    try:
        bound_type_text(got_text)  # answers built elsewhere than extract() are bounded too
    except TooLong as exc:
        return Verdict(correct=False, score=0.0, status="extraction_error", expected=expected, got=None,
                       diff=[DiffRow(label="signature", expected=truth_text, got="(too long)", ok=False)],
                       explanation=f"ResponseError: {exc}", details={"category": "ResponseError"})
    try:
        truth = parse_type(truth_text).scheme
    except HsParseError as exc:
        return Verdict(correct=False, score=0.0, status="unknown", expected=expected, got=got_sig,
                       explanation=f"the ground truth does not parse: {exc}",
                       diff=[DiffRow(label="signature", expected=truth_text, got=got_text, ok=False)])
    bare = bare_classes(got_text)
    if bare:
        # ground truths and dependencies written `C => t` are read as `C a => t` (released slips); an
        # answer is held to Haskell, as GHC holds it in the paper's proof
        return _syntax_error(expected, got_sig, truth_text, got_text,
                             f"a constraint without its type variable ('{bare[0]} =>') is not Haskell")
    try:
        given = parse_type(got_text).scheme
    except HsParseError as exc:
        if not tree_reads(got_text):  # not a type in Haskell's grammar: no proof can be written for it
            return _syntax_error(expected, got_sig, truth_text, got_text, str(exc))
        return _by_ghc(instance, truth_text, got_text, str(exc))
    category = classify(truth, given, synonyms)
    details: dict[str, object] = {"checker": "alpha-equivalence", "judged_by": "checker"}
    if answer.details.get("name_mismatch"):
        details["name_mismatch"] = answer.details["name_mismatch"]
    if category is None:
        return Verdict(correct=True, score=1.0, status="correct", expected=expected, got=got_sig,
                       diff=[DiffRow(label="signature", expected=truth_text, got=got_text, ok=True)],
                       explanation="the answer is alpha-equivalent to the ground truth", details=details)
    details["category"] = category
    rows = diff_rows(truth, given, synonyms)
    bad = [r.label for r in rows if not r.ok]
    where = f" (differs at: {', '.join(bad)})" if bad else ""
    return Verdict(correct=False, score=0.0, status="wrong", expected=expected, got=got_sig, diff=rows,
                   explanation=f"{category}: {CATEGORY_TEXT[category]}{where}", details=details)


def verify_many(items: Sequence[tuple[TypeinfInstance, Answer]]) -> list[Verdict]:
    """Verdicts for many answers: those the in-process parser cannot read go to GHC first, in one run."""
    prejudge([key for instance, answer in items for key in _unreadable_keys(instance, answer)])
    return [verify(instance, answer) for instance, answer in items]


def _truth_for_ghc(truth_text: str) -> str:
    """The truth as GHC is given it: a released `C => t` as the parser reads it, `C a => t`."""
    from core.families.typeinf.types import show_scheme

    return show_scheme(parse_type(truth_text).scheme) if bare_classes(truth_text) else truth_text


def _truth_reads(truth_text: str) -> bool:
    try:
        parse_type(truth_text)
    except HsParseError:
        return False
    return True


def _unreadable_keys(instance: TypeinfInstance, answer: Answer) -> list[tuple[str, str, tuple[str, ...]]]:
    """The (truth, answer text, dependencies) that `verify` will ask GHC about: each reading's type text
    that the parser cannot read (without parsing anything twice: parses are memoised)."""
    parts = truth_parts(instance)
    if parts is None or not _truth_reads(parts[1]):
        return []
    # a reply's hooked text is asked about in any case; a reading that is only a candidate, when the
    # grammar reads it as one type
    hooked = _unread_text(answer) if not answer.ok else None
    released = answer.details.get("released")
    candidates = [str((answer.value or {}).get("type", "")) if answer.ok else None,
                  released if isinstance(released, str) else None]
    texts = ([hooked] if hooked else []) + [t for t in candidates if t and tree_reads(t)]
    keys = []
    for text in texts:
        if not judgeable(text) or bare_classes(text):
            continue
        try:
            parse_type(text)
        except HsParseError:
            keys.append((_truth_for_ghc(parts[1]), text, tuple(instance.dependencies)))
    return keys


__all__ = ["verify", "verify_many", "classify", "CATEGORIES", "truth_parts"]
