"""The step views of the newer families (an attempt stepped beside the truth)."""

from __future__ import annotations

from conftest import MEMBERSHIP_SNAPSHOT, SIZE, render_text, settle, write_snapshot
from textual.widgets import DataTable

from core.attempts import AttemptRecord
from core.family import get_family
from core.store import LogStore
from tui.data import AttemptView


def add_attempt(log, family, instance, snapshot: str, response: str) -> None:
    answer, verdict = family.check(instance, response)
    store = LogStore(log)
    try:
        store.add_attempt(AttemptRecord(snapshot=snapshot, instance_id=instance.id, family=family.id, solver="human",
                                        source="run", response=response, answer=answer, verdict=verdict,
                                        correct=verdict.correct, score=verdict.score, status=verdict.status).row())
    finally:
        store.close()


async def test_membership_attempt_shows_the_answer_and_where_it_disagrees(make_app, workbench) -> None:
    """One call tree (not the same one twice), the submitted answer, and the disagreeing step."""
    family = get_family("membership")
    instance = workbench.membership[0]
    truth = family.oracle_response(instance).strip().endswith("True")
    wrong = "False" if truth else "True"
    add_attempt(workbench.log, family, instance, MEMBERSHIP_SNAPSHOT, wrong)
    decisive = family.trace(instance, family.extract(wrong, instance)).divergence["step"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(MEMBERSHIP_SNAPSHOT, instance.id, tab="history")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#history-table", DataTable).focus()
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert screen.showing == "answer"
        text = render_text(app)
        assert text.count("call tree (evaluation order)") == 1
        assert f"submitted answer  {wrong}" in text and f"the execution gives  {truth}" in text
        assert f"they disagree at step {decisive + 1}" in text
        assert "disagrees here" not in text  # not reached yet: stepping does not give it away
        screen.stepper.go(decisive)
        await settle(pilot)
        text = render_text(app)
        marked = next(line for line in text.splitlines() if "disagrees here" in line)
        assert f"the answer {wrong} disagrees here" in marked


def typeinf_id_instance():
    """TF-Bench's `id x = x` (generated, seed 7): a polymorphic type to name two ways."""
    family = get_family("typeinf")
    made = list(family.generate(family.resolve_params("tfbench-base"), 7, 58))
    return family, next(i for i in made if i.ground_truth["signature"] == "id :: a -> a")


def test_typeinf_answer_trace_uses_the_derivations_names() -> None:
    """The answer's `q` (and the checker's fresh variables) read as the derivation's names."""
    family, instance = typeinf_id_instance()
    answered = family.trace(instance, family.extract("id :: q -> Int"))
    reference = answered.reference
    assert reference is not None and answered.divergence is not None
    bind = next(s.label for s in answered.steps if s.kind == "bind")
    assert bind == next(s.label for s in reference.steps if s.kind == "bind")  # `x : t2` on both sides
    shared = [s.label for s in answered.steps if s.kind == "unify"][0]
    assert shared == [s.label for s in reference.steps if s.kind == "unify"][0]


async def test_typeinf_step_marks_the_first_disagreement(make_app, workbench) -> None:
    """The step where the answer and the derivation first part is marked in the step list."""
    family, instance = typeinf_id_instance()
    LogStore(workbench.log).close()
    write_snapshot(workbench.log, "typeinf-id", "typeinf", "tfbench-base", [instance])
    answer = family.extract("id :: q -> Int")
    step = family.trace(instance, answer).divergence["step"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance("typeinf-id", instance.id, tab="step")
        await settle(pilot)
        screen = app.screen
        view = AttemptView(id=None, instance_id=instance.id, solver="human", answer=answer)
        screen.show_attempt(view, None)  # as opening it from History does: the verdict, then its trace
        screen.load_attempt(view)
        await settle(pilot)
        await pilot.press("2")
        screen.stepper.go(step)
        await settle(pilot)
        text = render_text(app)
        line = next(line for line in text.splitlines() if "first disagreement" in line)
        assert "equation of id" in line  # the failing unification, named on that row
        assert text.count("first disagreement with the reference") == 1
        # the code once, across the width (the same document on both sides), the two sides' steps below
        assert text.count("code  (haskell)") == 1 and "Submitted" in text and "Reference" in text
        assert sum("id x = x" in line for line in text.splitlines()) == 1
