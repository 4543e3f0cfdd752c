"""Fresh tasks: random well-typed functions over a pool of Prelude dependencies.

Item i draws (deterministically from family, params, seed, i) a few pool functions, builds candidate
bodies from them — application, infix operators, sections, composition, lambdas, `if`, guards, `case`,
`where`, and several equations pattern-matching on lists, Maybe or Bool — and keeps the first candidate
that the project's inference types (without defaulting) in the wanted category. The ground truth is
that inferred type; the tests compile every generated task with GHC and compare GHC's type.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from core.families.typeinf.corpus import CorpusTask, binder, is_operator, poly_type, solve_dependencies
from core.families.typeinf.env import base_env
from core.families.typeinf.infer import infer_code, rename_scheme
from core.families.typeinf.model import CATEGORIES, TypeinfInstance, TypeinfParams
from core.families.typeinf.types import show_scheme
from core.seeding import item_rng

if TYPE_CHECKING:
    from core.families.typeinf.syntax import Decl

POOL = ("map", "filter", "foldr", "foldl", "length", "reverse", "concat", "concatMap", "zip", "zipWith", "head",
        "tail", "null", "take", "drop", "replicate", "elem", "sum", "product", "maximum", "lookup", "fromMaybe",
        "maybe", "either", "fst", "snd", "not", "show", "even", "odd", "succ", "fromIntegral", "words", "unwords",
        "lines", "isDigit", "isSpace", "toUpper", "ord", "chr", "id", "const", "flip", "max", "min", "abs",
        "negate", "compare", "mconcat", "fmap", "pure", "+", "-", "*", "==", "<", "<=", "++", ".", "&&", "||",
        "div", "mod", ":", "uncurry", "curry", "takeWhile", "dropWhile", "span", "any", "all", "iterate",
        "filter", "catMaybes", "mapMaybe", "isJust", "concat", "and", "or", "last", "init", "splitAt")
LITERALS = ("0", "1", "2", "'a'", "\"x\"", "True", "False", "[]", "Nothing")
MAX_ATTEMPTS = 3000
# Pool members by the kind of type they have, so that each category is reachable in few attempts.
MONO = ("not", "words", "unwords", "lines", "isDigit", "isSpace", "toUpper", "ord", "chr", "&&", "||", "and",
        "or", "show", "length", "even", "odd")
CONSTRAINED = ("elem", "sum", "product", "maximum", "lookup", "show", "even", "odd", "succ", "fromIntegral", "max",
               "min", "abs", "negate", "compare", "mconcat", "fmap", "pure", "+", "-", "*", "==", "<", "<=", "div",
               "mod")


class _Builder:
    def __init__(self, rng: random.Random, funcs: list[str], params: list[str], depth: int) -> None:
        self.rng = rng
        self.funcs = funcs
        self.params = params
        self.depth = depth
        self.lambda_vars = 0

    def leaf(self, scope: list[str]) -> str:
        r = self.rng.random()
        if scope and r < 0.55:
            return self.rng.choice(scope)
        if r < 0.8:
            f = self.rng.choice(self.funcs)
            return f"({f})" if is_operator(f) else f
        return self.rng.choice(LITERALS)

    def expr(self, depth: int, scope: list[str]) -> str:
        if depth <= 0:
            return self.leaf(scope)
        kind = self.rng.choices(["app", "infix", "section", "compose", "lambda", "if", "leaf"],
                                weights=[5, 3, 1, 1, 1, 1, 1])[0]
        ops = [f for f in self.funcs if is_operator(f)]
        fns = [f for f in self.funcs if not is_operator(f)]
        if kind == "app" and fns:
            f = self.rng.choice(fns)
            n = self.rng.choice([1, 1, 2])
            args = " ".join(self._arg(depth - 1, scope) for _ in range(n))
            return f"{f} {args}"
        if kind == "infix" and ops:
            op = self.rng.choice(ops)
            return f"{self._arg(depth - 1, scope)} {op} {self._arg(depth - 1, scope)}"
        if kind == "section" and ops:
            op = self.rng.choice(ops)
            side = self._arg(depth - 1, scope)
            return f"({op} {side})" if self.rng.random() < 0.5 else f"({side} {op})"
        if kind == "compose" and len(fns) >= 2:
            f, g = self.rng.sample(fns, 2)
            return f"({f} . {g}) {self._arg(depth - 1, scope)}"
        if kind == "lambda" and fns:
            self.lambda_vars += 1
            v = f"v{self.lambda_vars}"
            return f"(\\{v} -> {self.expr(depth - 1, [*scope, v])})"
        if kind == "if":
            return (f"if {self.expr(depth - 1, scope)} then {self.expr(depth - 1, scope)} "
                    f"else {self.expr(depth - 1, scope)}")
        return self.leaf(scope)

    def _arg(self, depth: int, scope: list[str]) -> str:
        e = self.expr(depth, scope)
        return e if " " not in e or e.startswith("(") and e.endswith(")") and e.count("(") == 1 else f"({e})"


def _candidate(rng: random.Random, p: TypeinfParams, name: str, target: str) -> str:
    if target == "monomorphic":
        pool = sorted(set(MONO) | set(rng.sample(sorted(set(POOL)), 4)))
    elif target == "parametric":
        pool = sorted(set(POOL) - set(CONSTRAINED))
    else:
        pool = sorted(set(POOL))
    funcs = rng.sample(pool, min(p.deps, len(pool)))
    if target == "ad-hoc" and not set(funcs) & set(CONSTRAINED):
        funcs[0] = rng.choice(sorted(CONSTRAINED))
    params = ["x", "y", "z"][: 1 if target == "monomorphic" else rng.choice([1, 1, 2, 2, 3])]
    b = _Builder(rng, funcs, params, p.depth)
    head = " ".join([name, *params])
    style = rng.random()
    if p.equations >= 2 and rng.random() < 0.7:
        kind = rng.choice(["list", "maybe", "bool"])
        rest = params[1:]
        if kind == "list":
            pats = [("[]", []), ("(h:t)", ["h", "t"])]
        elif kind == "maybe":
            pats = [("Nothing", []), ("(Just v)", ["v"])]
        else:
            pats = [("True", []), ("False", [])]
        lines = [" ".join([name, pat, *rest]) + " = " + b.expr(p.depth, [*rest, *bound]) for pat, bound in pats]
        if p.equations >= 3 and rng.random() < 0.5:
            lines[-1] += f"\n  where w = {b.expr(max(1, p.depth - 1), rest)}"
        return "\n".join(lines)
    if style < 0.25:
        return (f"{head}\n  | {b.expr(p.depth - 1, params)} = {b.expr(p.depth, params)}\n"
                f"  | otherwise = {b.expr(p.depth, params)}")
    if style < 0.45:
        scrut = params[0]
        return (f"{head} = case {scrut} of\n  [] -> {b.expr(p.depth, params)}\n"
                f"  (h:t) -> {b.expr(p.depth, [*params, 'h', 't'])}")
    if style < 0.65:
        return f"{head} = {b.expr(p.depth, [*params, 'w'])}\n  where w = {b.expr(max(1, p.depth - 1), params)}"
    return f"{head} = {b.expr(p.depth, params)}"


def _substantial(code: str, name: str, p: TypeinfParams) -> list[Decl] | None:
    """At least two dependencies used (or all, when fewer are asked) and every parameter used: the
    parsed declarations (for inference, which would parse them again), or None."""
    from core.families.typeinf import syntax as S
    from core.families.typeinf.hsparse import HsParseError, parse_code
    from core.families.typeinf.names import free_names, pattern_vars

    try:
        decls = parse_code(code, base_env().fixities)
    except HsParseError:
        return None
    free, _ = free_names(decls)
    if len([f for f in free if f != name]) < min(2, p.deps):
        return None
    fun = next((d for d in decls if isinstance(d, S.FunBind)), None)
    if fun is None:
        return None
    for m in fun.matches:
        bound = [v for pat in m.pats for v in pattern_vars(pat)]
        body = S.Match([], m.rhs)
        used, _ = free_names([S.FunBind("__body", [body])])
        if any(v not in used for v in bound if v not in ("h", "t", "v")):
            return None
    return decls


def generate_task(p: TypeinfParams, seed: int, index: int) -> TypeinfInstance:
    rng = item_rng("typeinf", p.model_dump(mode="json"), seed, index)
    target = p.category if p.category != "any" else CATEGORIES[index % 3]
    name = f"fun{index}"
    env = base_env()
    for attempt in range(MAX_ATTEMPTS):
        code = _candidate(rng, p, name, target)
        decls = _substantial(code, name, p)
        if decls is None:
            continue
        result = infer_code(code, env, name, max_steps=50_000, decls=decls)
        if result.scheme is None or result.defaulted:
            continue
        if poly_type(result.scheme) != target:
            continue
        if "Char?" in code:  # never: generated names are plain
            continue
        truth = show_scheme(rename_scheme(result.scheme))
        task = CorpusTask(key=name, name=name, signature=f"{binder(name)} :: {truth}", code=code)
        try:
            deps = solve_dependencies(task)
        except ValueError:
            continue
        return TypeinfInstance(code=code, dependencies=deps, name=name, variant="base",
                               ground_truth={"signature": task.signature},
                               meta={"poly_type": target, "source": "generated", "attempts": attempt + 1,
                                     "equations": code.count(f"\n{name} ") + 1, "n_deps": len(deps),
                                     "depth": p.depth}).with_content_id()
    # Patience exhausted (never seen in the bundled presets): the smallest task of the category, marked.
    fallback = {"monomorphic": ("not (isDigit x)", "Char -> Bool"), "parametric": ("map fst x", "[(a, b)] -> [a]"),
                "ad-hoc": ("x == x", "Eq a => a -> Bool")}[target]
    code = f"{name} x = {fallback[0]}"
    task = CorpusTask(key=name, name=name, signature=f"{name} :: {fallback[1]}", code=code)
    deps = solve_dependencies(task)
    return TypeinfInstance(code=code, dependencies=deps, name=name, variant="base",
                           ground_truth={"signature": task.signature},
                           meta={"poly_type": target, "source": "generated", "attempts": MAX_ATTEMPTS, "relaxed": True,
                                 "equations": 1, "n_deps": len(deps), "depth": 1}).with_content_id()
