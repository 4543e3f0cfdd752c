"""Local solvers: the exact evaluator (baseline), the ground truth (oracle) and a Bernoulli coin (random)."""

from __future__ import annotations

import random
from collections.abc import Callable

from core.canonical import derive_seed
from core.families.membership.evaluate import PythonError, evaluate
from core.families.membership.model import MembershipInstance
from core.families.membership.prompt import format_response
from core.instance import Instance


def exact_response(instance: MembershipInstance) -> str:
    try:
        return format_response(evaluate(instance.condition, instance.probe, instance.entry_index()))
    except PythonError as exc:
        return f"The code raises {exc}."


def oracle_response(instance: MembershipInstance) -> str:
    answer = instance.expected_answer()
    return format_response(answer) if answer is not None else exact_response(instance)


def baseline_response(instance: MembershipInstance, budget_s: float) -> str:
    return exact_response(instance)


def random_response(instance: MembershipInstance, p_true: float = 0.5) -> str:
    """The paper's Bernoulli baseline, deterministic per instance id (same answer on every run)."""
    rng = random.Random(derive_seed("membership", "random-baseline", instance.id))
    return format_response(rng.random() < p_true)


def extra_solvers() -> dict[str, Callable[[Instance, float], str]]:
    """`random`: the paper's Bernoulli baseline."""
    from core.families.membership import MembershipFamily

    family = MembershipFamily()
    return {"random": lambda instance, _budget: random_response(family.cast(instance))}  # type: ignore[arg-type]
