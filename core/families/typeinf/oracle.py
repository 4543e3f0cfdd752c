"""The GHC-backed equivalence oracle (TF-Bench Appendix F), independent of the in-process checker.

For a (truth, answer) pair it writes two modules, both with `import Prelude ()` and every type and class
name the two signatures mention declared afresh (the paper's static analyzer, Algorithm 1: a tree-sitter
walk that records each constructor's applied arity and each class's), the synonyms of the task's
dependencies and of base declared as written:

* `Refl`: the paper's proof. `type SembenchTruth vs = ctx => body`, the same for the answer, and
  `proof :: SembenchTruth vs :~: SembenchAnswer vs; proof = Refl` (ImpredicativeTypes). The variables are
  passed in order of first appearance in the BODY, then the context (ordering by the whole text, or
  sorting constraints as strings, is the trap that makes a naive proof reject equal types). Constraint
  order still matters to `:~:`, so a failed proof is not the last word:
* `Sub`: mutual subsumption, `answer = truth` and `truth = answer` under the two signatures. With
  empty classes (no superclasses, no instances) entailment is exactly set inclusion, so two-way
  subsumption holds iff a renaming makes the bodies equal and the constraint sets equal.

Equivalent iff either module compiles. All modules of a batch go to one GHC run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.families.typeinf.hsparse import HsParseError, parse_tree
from core.families.typeinf.tools import GHC

PRAGMAS = ("{-# LANGUAGE TypeOperators, RankNTypes, PolyKinds, FlexibleContexts, AllowAmbiguousTypes, "
           "ConstraintKinds, ImpredicativeTypes, MultiParamTypeClasses, KindSignatures, ExplicitForAll #-}\n"
           "{-# OPTIONS_GHC -w #-}")
BASE_SYNONYM_TEXT = {
    "String": "type String = [Char]",
    "ShowS": "type ShowS = String -> String",
    "ReadS": "type ReadS a = String -> [(a, String)]",
    "FilePath": "type FilePath = String",
    "Rational": "type Rational = Ratio Integer",
}


@dataclass
class Signature:
    """What the static analyzer reads from one type: its text split into constraints and body, its
    variables (body first) and the constructor/class names with the arities they are applied at."""

    constraints: list[str]
    body: str
    variables: list[str]
    types: dict[str, int]
    classes: dict[str, int]


@dataclass
class OracleResult:
    equivalent: bool
    refl: bool
    subsumption: bool
    error: str = ""


def _text(node) -> str:  # noqa: ANN001
    return node.text.decode("utf-8", "replace")


def analyze(type_text: str) -> Signature:
    """Static analysis of `x :: <type_text>` (raises HsParseError when it does not parse)."""
    root = parse_tree("x__ :: " + " ".join(type_text.split()))
    if root.has_error:
        raise HsParseError("the type does not parse")
    sig = root.named_children[0].named_children[0]
    node = sig.child_by_field_name("type")
    constraints: list[str] = []
    classes: dict[str, int] = {}
    while node is not None and node.type in ("forall", "context"):
        if node.type == "context":
            ctx = node.child_by_field_name("context")
            items = [ctx]
            while len(items) == 1 and items[0].type in ("tuple", "parens"):
                items = [c for c in items[0].named_children]
            for item in items:
                if item.type == "unit":
                    continue
                constraints.append(_text(item))
                head, arity = _peel(item)
                if head is not None:
                    classes[_text(head)] = max(classes.get(_text(head), 0), arity)
        node = node.child_by_field_name("type")
    if node is None:
        raise HsParseError("no type")
    body = _text(node)
    variables: list[str] = []
    types: dict[str, int] = {}
    _walk(node, variables, types)
    # context-only variables come after the body's (they make the type ambiguous)
    for c in constraints:
        croot = parse_tree("x__ :: " + c)
        _walk(croot, variables, {}, skip_heads=True)
    for c in constraints:
        croot = parse_tree("x__ :: " + c + " => ()")
        csig = croot.named_children[0].named_children[0]
        ctx = csig.child_by_field_name("type").child_by_field_name("context")
        _walk_args(ctx, types)
    return Signature(constraints, body, variables, types, classes)


def _peel(node):  # noqa: ANN001, ANN202
    """Algorithm 1's PeelApplyChain: the head of an `apply` chain and the number of arguments."""
    arity = 0
    cur = node
    while cur.type == "apply":
        arity += 1
        nxt = cur.child_by_field_name("constructor")
        if nxt is None:
            break
        cur = nxt
    if cur.type == "parens" and cur.named_children:
        return _peel(cur.named_children[0])[0], arity
    return (cur if cur.type in ("name", "qualified") else None), arity


def _walk(node, variables: list[str], types: dict[str, int], skip_heads: bool = False) -> None:  # noqa: ANN001
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type == "variable":
            name = _text(cur)
            if name not in variables and name != "x__":
                variables.append(name)
            continue
        if cur.type == "apply" and not (cur.parent is not None and cur.parent.type == "apply"
                                         and cur.parent.child_by_field_name("constructor") == cur):
            head, arity = _peel(cur)
            if head is not None and not skip_heads:
                types[_text(head)] = max(types.get(_text(head), 0), arity)
        elif cur.type in ("name", "qualified") and not skip_heads:
            parent = cur.parent
            if not (parent is not None and parent.type == "apply" and parent.child_by_field_name("constructor") == cur):
                types.setdefault(_text(cur), 0)
        stack.extend(reversed(cur.named_children))


def _walk_args(ctx, types: dict[str, int]) -> None:  # noqa: ANN001
    """Type names inside constraints' arguments (not the class heads)."""
    items = [ctx]
    while len(items) == 1 and items[0].type in ("tuple", "parens"):
        items = list(items[0].named_children)
    for item in items:
        if item.type not in ("apply", "name", "qualified", "parens"):  # `a ~ Bool`: every name is a type
            _walk(item, [], types)
            continue
        cur = item
        args = []
        while cur.type == "apply":
            args.append(cur.child_by_field_name("argument"))
            cur = cur.child_by_field_name("constructor")
        for a in args:
            if a is not None:
                _walk(a, [], types)


def _synonyms(dependencies: list[str]) -> dict[str, str]:
    out = dict(BASE_SYNONYM_TEXT)
    for dep in dependencies:
        for line in _top_level(dep):
            stripped = line.strip()
            if stripped.startswith("type ") and "=" in stripped and not stripped.startswith("type family"):
                name = stripped[5:].split()[0]
                out[name] = " ".join(stripped.split())
    return out


def _top_level(text: str) -> list[str]:
    chunks: list[str] = []
    for line in text.splitlines():
        if chunks and line[:1].isspace():
            chunks[-1] += " " + line.strip()
        else:
            chunks.append(line)
    return chunks


def _declarations(sigs: list[Signature], synonyms: dict[str, str]) -> list[str]:
    types: dict[str, int] = {}
    classes: dict[str, int] = {}
    for s in sigs:
        for k, v in s.types.items():
            types[k] = max(types.get(k, 0), v)
        for k, v in s.classes.items():
            classes[k] = max(classes.get(k, 0), v)
    used_synonyms: list[str] = []
    pending = [n for n in types if n in synonyms]
    while pending:
        name = pending.pop(0)
        if name in used_synonyms:
            continue
        used_synonyms.append(name)
        text = synonyms[name]
        rhs = text.split("=", 1)[1]
        inner = analyze(rhs)
        for k, v in inner.types.items():
            if k in synonyms and k not in used_synonyms:
                pending.append(k)
            elif k not in synonyms:
                types[k] = max(types.get(k, 0), v)
    lines = [synonyms[n] for n in used_synonyms]
    for name, arity in sorted(types.items()):
        if name in synonyms or name.startswith("(") or name in ("[]", "->"):
            continue
        lines.append("data " + " ".join([name, *(f"p{i}" for i in range(arity))]))
    for name, arity in sorted(classes.items()):
        lines.append("class " + " ".join([name, *(f"p{i}" for i in range(max(arity, 1)))]))
    return lines


def _qualified(sig: Signature) -> str:
    ctx = ", ".join(sig.constraints)
    return f"({ctx}) => {sig.body}" if sig.constraints else sig.body


def modules_for(truth: str, answer: str, dependencies: list[str], tag: str) -> dict[str, str]:
    t = analyze(truth)
    a = analyze(answer)
    decls = _declarations([t, a], _synonyms(dependencies))
    def header(name: str, imports: str = "") -> str:
        return f"{PRAGMAS}\nmodule {name} where\nimport Prelude ()\n{imports}" + "\n".join(decls) + "\n"

    tv, av = " ".join(t.variables), " ".join(a.variables)
    refl = header(f"Refl{tag}", "import Data.Type.Equality ((:~:)(Refl))\n")
    refl += (f"type SembenchTruth {tv} = {_qualified(t)}\n"
             f"type SembenchAnswer {av} = {_qualified(a)}\n"
             f"sembenchProof :: SembenchTruth {tv} :~: SembenchAnswer {tv}\n"
             "sembenchProof = Refl\n")
    t_all = " ".join(t.variables)
    a_all = " ".join(a.variables)
    sub = header(f"Sub{tag}")
    sub += (f"sembenchTruth :: forall {t_all}. {_qualified(t)}\n" if t_all else f"sembenchTruth :: {_qualified(t)}\n")
    sub += "sembenchTruth = sembenchTruth\n"
    sub += (f"sembenchAnswer :: forall {a_all}. {_qualified(a)}\n" if a_all else f"sembenchAnswer :: {_qualified(a)}\n")
    sub += "sembenchAnswer = sembenchTruth\n"
    sub += (f"sembenchBack :: forall {t_all}. {_qualified(t)}\n" if t_all else f"sembenchBack :: {_qualified(t)}\n")
    sub += "sembenchBack = sembenchAnswer\n"
    return {f"Refl{tag}": refl, f"Sub{tag}": sub}


def oracle_many(items: list[tuple[str, str, list[str]]], timeout_s: float = 900.0,
                cache: bool = True) -> list[OracleResult]:
    """Decide many (truth type, answer type, dependencies) comparisons in one GHC run."""
    from core.families.typeinf.ghc import run_modules_chunked

    modules: dict[str, str] = {}
    failed: dict[int, str] = {}
    for i, (truth, answer, deps) in enumerate(items):
        try:
            modules.update(modules_for(truth, answer, deps, str(i)))
        except HsParseError as exc:
            failed[i] = f"does not parse: {exc}"
    errors: dict[str, str] = {}
    if modules:
        GHC.require()
        errors, _ = run_modules_chunked(modules, timeout_s=timeout_s, cache=cache)
    out = []
    for i in range(len(items)):
        if i in failed:
            out.append(OracleResult(False, False, False, failed[i]))
            continue
        refl = f"Refl{i}" not in errors
        sub = f"Sub{i}" not in errors
        out.append(OracleResult(refl or sub, refl, sub, "" if sub else errors.get(f"Sub{i}", "")[:2000]))
    return out


def oracle(truth: str, answer: str, dependencies: list[str]) -> OracleResult:
    return oracle_many([(truth, answer, dependencies)])[0]


# ---- GHC as the judge of an answer the in-process checker cannot read --------------------------------
@dataclass
class GhcJudgement:
    """GHC's word on an answer the checker's parser could not read: `equivalent` (Refl or subsumption
    compiles), `different` (the answer is a type GHC accepts, not equivalent to the truth), `rejected`
    (GHC does not accept the answer as a type; `message` is its first error line), or `read` (GHC
    parses the text, which the tree-sitter grammar cannot: no proof could be written for it)."""

    outcome: str
    message: str = ""


JUDGE_PRAGMAS = PRAGMAS.replace("ExplicitForAll", "ExplicitForAll, TypeFamilies, DataKinds")


UNICODE_SYNTAX = frozenset("→∀⇒∷★←")


def judgeable(answer: str) -> bool:
    """Whether a text may be handed to GHC as one type: a single line of it cannot start another
    declaration (`;`, braces, `=` other than in `=>`), it stays within the checker's bounds, and it is
    written in ASCII (with GHC's Unicode syntax) and names something: a type in any answer is and does,
    random text is not and a lone literal does not, so no GHC run is spent on them."""
    from core.families.typeinf.hsparse import too_many_tokens

    flat = " ".join(answer.split())
    plain = all(c.isascii() or c in UNICODE_SYNTAX for c in flat) and flat.isprintable()
    one_declaration = not any(c in flat for c in ";{}") and "=" not in flat.replace("=>", "")
    return plain and one_declaration and any(c.isalpha() for c in flat) and not too_many_tokens(flat)


def tree_reads(answer: str) -> bool:
    """Whether the Haskell grammar (tree-sitter) reads `x :: answer` as exactly one signature, without
    error: then a proof can be written for it even where the checker's conversion cannot read it."""
    if not judgeable(answer):
        return False
    root = parse_tree("x__ :: " + " ".join(answer.split()))
    decls = root.named_children[0].named_children if root.named_children else []
    return not root.has_error and len(decls) == 1 and decls[0].type == "signature"


def _answer_module(tag: str, answer: Signature, truth: Signature, dependencies: list[str]) -> str:
    """The answer alone, declared as the proof modules declare it: does GHC accept it as a type?"""
    decls = _declarations([truth, answer], _synonyms(dependencies))
    variables = " ".join(answer.variables)
    quantified = f"forall {variables}. " if variables else ""
    return (f"{JUDGE_PRAGMAS}\nmodule Ans{tag} where\nimport Prelude ()\n" + "\n".join(decls) + "\n"
            f"sembenchAnswer :: {quantified}{_qualified(answer)}\nsembenchAnswer = sembenchAnswer\n")


def _first_error_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        if ": error:" in line:
            rest = line.split(": error:", 1)[1].strip()
            return rest or (lines[i + 1] if i + 1 < len(lines) else "")
    return lines[0] if lines else ""


def judge_many(items: list[tuple[str, str, list[str]]], cache: bool = True) -> list[GhcJudgement | None]:
    """GHC's judgement of each (truth type, answer type, dependencies), all in one GHC run; None for an
    answer that is not one judgeable type (`judgeable`) or a truth GHC is not given. A type tree-sitter
    reads gets the paper's proof (Refl, then subsumption) and, when neither compiles, a module with the
    answer alone says whether GHC accepts it as a type; one it cannot read is given to GHC's parser."""
    from core.families.typeinf.ghc import run_modules_chunked

    modules: dict[str, str] = {}
    kinds: dict[int, str] = {}
    for i, (truth, answer, deps) in enumerate(items):
        flat = " ".join(answer.split())
        if not judgeable(flat):
            continue
        try:
            if tree_reads(flat):
                t, a = analyze(truth), analyze(flat)
                proofs = modules_for(truth, flat, deps, str(i))
                modules.update({name: text.replace(PRAGMAS, JUDGE_PRAGMAS, 1) for name, text in proofs.items()})
                modules[f"Ans{i}"] = _answer_module(str(i), a, t, deps)
                kinds[i] = "proof"
                continue
        except HsParseError:
            pass
        modules[f"Parse{i}"] = (f"{JUDGE_PRAGMAS}\nmodule Parse{i} where\n"
                                f"sembenchAnswer :: {flat}\nsembenchAnswer = sembenchAnswer\n")
        kinds[i] = "parse"
    if not modules:
        return [None] * len(items)
    GHC.require()
    errors, _ = run_modules_chunked(modules, cache=cache)
    out: list[GhcJudgement | None] = []
    for i in range(len(items)):
        kind = kinds.get(i)
        if kind is None:
            out.append(None)
        elif kind == "proof":
            if f"Refl{i}" not in errors or f"Sub{i}" not in errors:
                out.append(GhcJudgement("equivalent"))
            elif f"Ans{i}" not in errors:
                out.append(GhcJudgement("different", _first_error_line(errors[f"Sub{i}"])))
            else:
                out.append(GhcJudgement("rejected", _first_error_line(errors[f"Ans{i}"])))
        else:
            error = errors.get(f"Parse{i}", "")
            if re.search(r"parse error|lexical error", error):
                out.append(GhcJudgement("rejected", _first_error_line(error)))
            else:
                out.append(GhcJudgement("read", _first_error_line(error)))
    return out
