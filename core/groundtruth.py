"""Does an instance's ground truth verify? Checked for every instance `sembench snapshot import` reads.

An instance file from elsewhere can claim anything: a cascade whose outputs do not follow from its
rules, a rule with an empty left-hand side. The generic test is the family's own pipeline: render the
ground truth as a response (`oracle_response`) and `check` it. A family without a reference for an
instance (real data with no known answer) says so, either by raising from `oracle_response` or with a
verdict whose status is NO_REFERENCE; such instances are counted apart, not refused.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.errors import EnvironmentFault
from core.family import Family
from core.instance import Instance

NO_REFERENCE = "no_reference"


@dataclass
class Unverified:
    where: str  # "line 12" (instance JSONL) or "item 12" (a released format), 1-based
    instance_id: str
    reason: str


_CHECKING: contextvars.ContextVar[bool] = contextvars.ContextVar("sembench_ground_truth_check", default=False)


def checking_ground_truth() -> bool:
    """True while `check_ground_truth` runs: a verifier may skip what measures an answer's quality beyond
    correct or not (specs' completeness: 8 more WP runs per reference, a third of an import's time)."""
    return _CHECKING.get()


BATCH = 16  # instances per `check_many`: a tool start amortised, progress and interruption between batches


def check_ground_truth(family: Family, items: Sequence[tuple[str, Instance]],
                       progress: Callable[[int, int], None] | None = None) -> tuple[list[Unverified], int]:
    """(instances whose ground truth does not verify, number without a reference). `items` pairs each
    instance with where it came from. Checks in batches of BATCH (`check_many`, so a tool-backed verifier
    starts once per batch), calling `progress(done, total)` and stopping on SIGINT/SIGTERM between them."""
    from core.runner.stop import checkpoint

    pending: list[tuple[str, Instance, str]] = []
    no_reference = 0
    for where, inst in items:
        try:
            pending.append((where, inst, family.oracle_response(inst)))
        except Exception:  # noqa: BLE001 - no reference for this instance: nothing to check it against
            no_reference += 1
    results: list[tuple[object, object]] = []
    for start in range(0, len(pending), BATCH):
        checkpoint()
        if progress is not None:
            progress(start, len(pending))
        batch = [(inst, response) for _, inst, response in pending[start:start + BATCH]]
        token = _CHECKING.set(True)
        try:
            results.extend(family.check_many(batch))
        except EnvironmentFault:
            raise  # a tool that cannot run says nothing about the references: the import stops, saying why
        except Exception:  # noqa: BLE001 - a batch that fails is checked one by one, to name the culprit
            results.extend(_check_one(family, inst, response) for inst, response in batch)
        finally:
            _CHECKING.reset(token)
    if progress is not None:
        progress(len(pending), len(pending))
    bad: list[Unverified] = []
    for (where, inst, _), (_answer, verdict) in zip(pending, results, strict=True):
        if verdict is None:
            bad.append(Unverified(where, inst.id, "the verifier failed on it"))
        elif verdict.status == NO_REFERENCE:
            no_reference += 1
        elif not verdict.correct:
            reason = " ".join((verdict.explanation or verdict.status or "rejected").split())
            bad.append(Unverified(where, inst.id, reason[:200] + ("..." if len(reason) > 200 else "")))
    return bad, no_reference


def _check_one(family: Family, inst: Instance, response: str) -> tuple[object, object]:
    try:
        return family.check(inst, response)
    except EnvironmentFault:
        raise
    except Exception:  # noqa: BLE001
        return None, None
