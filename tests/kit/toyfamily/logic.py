"""The toy family's behaviour, as plain functions (the family class names them with hooks)."""

from __future__ import annotations

import os
import re
import signal
import time
from typing import Any

from core.instance import Instance, Preset
from core.seeding import item_rng
from core.trace import Document, Focus, Prompt, StateRow, Trace, TraceStep
from core.verdict import Answer, DiffRow, Verdict
from tests.kit.toyfamily import ToyAnswer, ToyInstance, ToyParams, ToyStep

PRESETS = {
    "toy-small": Preset(name="toy-small", family="toysum", description="lists of 2-6 numbers", params={},
                        count=12, seed=0),
}
ANSWER = re.compile(r"answer\s*:\s*(-?\d{1,30})", re.IGNORECASE)


def presets() -> dict[str, Preset]:
    return PRESETS


def generate_one(params: dict[str, Any], seed: int, index: int) -> ToyInstance:
    p = ToyParams.model_validate(params)
    rng = item_rng("toysum", params, seed, index)
    numbers = [rng.randint(-9, 9) for _ in range(rng.randint(p.length_min, max(p.length_min, p.length_max)))]
    inst = ToyInstance(numbers=numbers, params=params, seed=seed, index=index,
                       ground_truth={"total": sum(numbers)}, meta={"length": len(numbers), "total": sum(numbers)})
    return inst.with_content_id()  # type: ignore[return-value]


def document(instance: ToyInstance) -> str:
    return "\n".join(str(n) for n in instance.numbers)


def prompt(instance: ToyInstance, style: str = "chat") -> Prompt:
    text = f"Add these numbers, one per line, and reply 'Answer: N'.\n\n{document(instance)}"
    return Prompt(style=style, messages=[{"role": "user", "content": text}])


def extract(text: str, instance: Instance | None = None) -> Answer:
    matches = ANSWER.findall(text[-100_000:]) if isinstance(text, str) else []
    if not matches:
        return Answer.failure("no_answer", "no line of the form 'Answer: N'")
    return Answer.success(ToyAnswer(total=int(matches[-1])).model_dump())


def verify(instance: ToyInstance, answer: Answer) -> Verdict:
    if instance.meta.get("kill_verifier"):
        # the cluster tests' poison answer: checking it kills the process that checks it (a Dask worker)
        os.kill(os.getpid(), signal.SIGKILL)
    delay = instance.meta.get("slow_verify_s")
    if isinstance(delay, int | float) and delay > 0:
        time.sleep(float(delay))
    expected = sum(instance.numbers)
    if not answer.ok:
        return Verdict(correct=False, score=0.0, status="extraction_error", expected=expected,
                       explanation=f"no answer: {answer.message}",
                       diff=[DiffRow(label="total", expected=str(expected), got="", ok=False)])
    got = ToyAnswer.model_validate(answer.value).total
    ok = got == expected
    return Verdict(correct=ok, score=float(ok), status="correct" if ok else "wrong", expected=expected, got=got,
                   explanation="the sum matches" if ok else f"the sum is {expected}, not {got}",
                   diff=[DiffRow(label="total", expected=str(expected), got=str(got), ok=ok)])


def trace(instance: ToyInstance, answer: Answer | None = None) -> Trace:
    reference = _trace(instance, None)
    if answer is None:
        return reference
    got = ToyAnswer.model_validate(answer.value).total if answer.ok else None
    mine = _trace(instance, got)
    mine.reference = reference
    mine.divergence = None if got == sum(instance.numbers) else {"note": f"the answer {got} is not the sum"}
    return mine


def _trace(instance: ToyInstance, claimed: int | None) -> Trace:
    doc = Document(name="numbers", language="text", text=document(instance))
    steps = []
    running = 0
    for i, n in enumerate(instance.numbers):
        running += n
        steps.append(TraceStep(
            index=i, kind="add", label=f"add {n}", data=ToyStep(position=i, running=running).model_dump(),
            focus=Focus(document="numbers", line=i + 1, col_start=0, col_end=len(str(n))),
            state=[StateRow(name="running total", value=str(running), status="changed")],
        ))
    title = "the sum" if claimed is None else f"the answer {claimed}"
    return Trace(family="toysum", instance_id=instance.id, title=title, documents=[doc], steps=steps)


def oracle_response(instance: ToyInstance) -> str:
    return f"Answer: {sum(instance.numbers)}"


def baseline_response(instance: ToyInstance, budget_s: float) -> str:
    return f"Adding them up. Answer: {sum(instance.numbers)}"


def summarize(rows: list[tuple[Instance, Verdict]]) -> dict[str, float | None]:
    n = len(rows)
    return {"accuracy": sum(v.correct for _, v in rows) / n if n else None}
