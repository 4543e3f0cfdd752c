"""Test inputs for a C function: the instance's own tests plus random inputs, rendered as C harness cases.

A parameter is a scalar (`int`, `char`, ...) or a pointer, which the harness backs with an array whose
length is an expression over the scalars (`"n"`, `"m"`, `"3"`) — given by the instance (`arrays`) or
guessed from the signature (the next integer parameter, else 1). Values come from `ranges` (per scalar,
and per array for its elements), else from small defaults. Random inputs are seeded by the instance, so
the same instance always gets the same inputs.
"""

from __future__ import annotations

import random
import re
from typing import Any

from pydantic import BaseModel, Field

from core.canonical import derive_seed
from core.families.specs.csyntax import Param, Signature

INT_TYPES = ("int", "long", "short", "long long", "signed", "unsigned", "unsigned int", "long int", "size_t",
             "_Bool", "bool")
CHAR_TYPES = ("char", "signed char", "unsigned char")
LENGTH_NAMES = ("n", "len", "length", "size", "count", "m", "num", "k", "cnt")
DEFAULT_LENGTH = (0, 6)
DEFAULT_INT = (-20, 20)
DEFAULT_CHAR = (97, 101)  # 'a'..'e'
RANDOM_INPUTS = 40
# Every E-ACSL run and differential test runs each input as a process of its own: an answer is checked
# on at most MAX_INPUTS inputs, the instance's own tests first (at most MAX_TESTS of them), then random
# ones, so that its run's time limit (core.families.specs.runtime.run_limit_s) is bounded too.
MAX_INPUTS = 64
MAX_TESTS = MAX_INPUTS - 16


class HarnessSpec(BaseModel):
    """How to call the function: array lengths and value ranges (all optional)."""

    arrays: dict[str, str] = Field(default_factory=dict)
    ranges: dict[str, list[Any]] = Field(default_factory=dict)


def supported(sig: Signature | None) -> str:
    """'' when the harness can call this function, else why not."""
    if sig is None:
        return "the function's definition was not found"
    for p in sig.params:
        if p.base not in INT_TYPES + CHAR_TYPES:
            return f"parameter '{p.name}' has type {p.base}, which the harness does not build"
    if sig.returns not in INT_TYPES + CHAR_TYPES + ("void",):
        return f"the function returns {sig.returns}, which the harness does not print"
    return ""


def is_char(p: Param) -> bool:
    return p.base in CHAR_TYPES


def length_exprs(sig: Signature, spec: HarnessSpec) -> dict[str, str]:
    """Array parameter -> C length expression over scalar parameters."""
    scalars = [p.name for p in sig.params if not p.pointer]
    out = {}
    for i, p in enumerate(sig.params):
        if not p.pointer:
            continue
        if p.name in spec.arrays:
            out[p.name] = spec.arrays[p.name]
            continue
        later = [q.name for q in sig.params[i + 1:] if not q.pointer and not is_char(q)]
        named = [s for s in later if s.lower() in LENGTH_NAMES]
        out[p.name] = named[0] if named else (later[0] if later else "1")
    del scalars
    return out


def _eval_len(expr: str, values: dict[str, int]) -> int:
    """Evaluate a length expression of names, integers, + - * (no eval: a tiny fold)."""
    tokens = re.findall(r"[A-Za-z_]\w*|\d+|[+*-]", expr)
    total, sign, term = 0, 1, 1
    expect_value = True
    for tok in tokens:
        if tok in "+-" and not expect_value:
            total += sign * term
            sign, term, expect_value = (1 if tok == "+" else -1), 1, True
        elif tok == "*":
            expect_value = True
        else:
            term *= int(tok) if tok.isdigit() else int(values.get(tok, 0))
            expect_value = False
    total += sign * term
    return max(0, total)


def _as_code(value: Any) -> int:
    if isinstance(value, str):
        return ord(value[0]) if value else 0
    if isinstance(value, bool):
        return int(value)
    return int(value)


def _range(spec: HarnessSpec, name: str, default: tuple[int, int]) -> tuple[int, int]:
    r = spec.ranges.get(name)
    if isinstance(r, list) and len(r) == 2:
        lo, hi = _as_code(r[0]), _as_code(r[1])
        return (lo, hi) if lo <= hi else (hi, lo)
    return default


def normalise(sig: Signature, spec: HarnessSpec, case: dict[str, Any]) -> dict[str, Any] | None:
    """A test case as integers (chars as codes, strings as code lists), or None if it does not fit."""
    lengths = length_exprs(sig, spec)
    out: dict[str, Any] = {}
    try:
        for p in sig.params:
            if p.pointer:
                continue
            value = case.get(p.name, 0)
            out[p.name] = _as_code(value)
        for p in sig.params:
            if not p.pointer:
                continue
            value = case.get(p.name, [])
            items = [ord(ch) for ch in value] if isinstance(value, str) else [_as_code(v) for v in value]
            need = _eval_len(lengths[p.name], out)
            items = (items + [0] * need)[:max(need, len(items))]
            out[p.name] = items
    except (TypeError, ValueError):
        return None
    return out


def random_inputs(sig: Signature, spec: HarnessSpec, seed_key: str, count: int = RANDOM_INPUTS) -> list[dict[str, Any]]:
    rng = random.Random(derive_seed("specs", "inputs", seed_key))
    lengths = length_exprs(sig, spec)
    length_params = {re.sub(r"\W", "", e) for e in lengths.values()}
    cases = []
    for _ in range(count):
        case: dict[str, Any] = {}
        for p in sig.params:
            if p.pointer:
                continue
            default = DEFAULT_CHAR if is_char(p) else (DEFAULT_LENGTH if p.name in length_params else DEFAULT_INT)
            lo, hi = _range(spec, p.name, default)
            if p.name in length_params and p.name not in spec.ranges:
                lo, hi = DEFAULT_LENGTH
            case[p.name] = rng.randint(lo, hi)
        for p in sig.params:
            if not p.pointer:
                continue
            lo, hi = _range(spec, p.name, DEFAULT_CHAR if is_char(p) else DEFAULT_INT)
            need = _eval_len(lengths[p.name], case)
            case[p.name] = [rng.randint(lo, hi) for _ in range(need)]
        cases.append(case)
    return cases


def c_int(value: int) -> str:
    if value == -2147483648:
        return "(-2147483647 - 1)"
    return str(int(value))


def c_type(p: Param) -> str:
    return "char" if is_char(p) else ("int" if p.base in ("_Bool", "bool") else p.base)


def call_case(sig: Signature, case: dict[str, Any], callee: str, *, output: bool) -> str:
    """C statements that build one input, call `callee` and (with `output`) print the results."""
    lines = []
    args = []
    for p in sig.params:
        if p.pointer:
            items = case.get(p.name, [])
            size = max(1, len(items))
            init = ", ".join(c_int(v) for v in items) or "0"
            lines.append(f"{c_type(p)} {p.name}[{size}] = {{{init}}};")
            args.append(p.name)
        else:
            lines.append(f"{c_type(p)} {p.name} = {c_int(case.get(p.name, 0))};")
            args.append(p.name)
    call = f"{callee}({', '.join(args)})"
    if sig.returns == "void":
        lines.append(f"{call};")
        ret = None
    else:
        lines.append(f"long long sembench_r = (long long){call};")
        ret = "sembench_r"
    if output:
        lines.append(f'printf("%lld", {ret});' if ret else 'printf("void");')
        for p in sig.params:
            if p.pointer and not p.const:
                n = max(1, len(case.get(p.name, [])))
                lines.append(f'printf(" {p.name}=");')
                lines.append(f'for (int sembench_k = 0; sembench_k < {n}; sembench_k++) printf("%lld,", '
                             f"(long long){p.name}[sembench_k]);")
    return "\n      ".join(lines)
