"""What a verdict was given without, added later and stored in place: a family's `complete_verdict`
(specs: a verified contract's completeness rate) for attempts recorded without it.

`sembench report RUN` (completeness on, the default) completes the run's verdicts before reporting: a
run made with `--completeness off` gets its CR then, once. The workbench completes the answer a person or
a model just gave, after showing its verdict (tui.screens.instance)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from core.attempts import verdict_column
from core.family import Family
from core.instance import Instance
from core.verdict import Answer, Verdict

if TYPE_CHECKING:
    from core.report import RunData

THREADS = 4  # answers completed at once; the family bounds its own tool processes (specs: one per core)


def completes(family: Family) -> bool:
    """Whether the family has anything to add to a verdict later."""
    from core.runner.verifying import overrides

    return overrides(family, "complete_verdict")


def complete_one(family: Family, instance: Instance, answer_json: str | None,
                 verdict_json: str | None) -> Verdict | None:
    """The stored verdict completed (None: nothing to add, or a row this version cannot read)."""
    if not answer_json or not verdict_json:
        return None
    try:
        answer = Answer.model_validate_json(answer_json)
        verdict = Verdict.model_validate_json(verdict_json)
    except ValueError:
        return None
    return family.complete_verdict(family.cast(instance), answer, verdict)


def complete_run(data: RunData, progress: Callable[[int, int], None] | None = None) -> int:
    """Complete the verdicts of a run's correct answers that lack what the family adds; returns how many
    were completed (each stored as it is done, so an interrupted report keeps them)."""
    family = data.family
    if not completes(family):
        return 0
    rows = data.db.execute("select id, instance_id, answer, verdict from attempts where run_id = ? and correct = 1 "
                           "and error is null order by id", [data.run_id]).fetchall()
    if not rows:
        return 0
    instances = data.instances_for(row[1] for row in rows)
    todo = [row for row in rows if row[1] in instances]
    completed = 0

    def one(row: tuple[Any, ...]) -> Verdict | None:
        return complete_one(family, instances[row[1]], row[2], row[3])

    with ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="complete") as pool:
        # written here, in the caller's thread (the database's), in order as they finish
        for k, (row, verdict) in enumerate(zip(todo, pool.map(one, todo), strict=True)):
            if verdict is not None:
                data.ws.log.complete_verdict(int(row[0]), verdict_column(verdict))
                completed += 1
            if progress is not None:
                progress(k + 1, len(todo))
    return completed
