"""The specs trace (WP goals, the counterexample search) is computed once per
(program, answer); tracing the same attempt again reuses it, and what a caller changes on its copy never
leaks into the next one."""

from __future__ import annotations

import pytest

from core.family import get_family

pytestmark = pytest.mark.framac


def test_trace_is_cached_per_program_and_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    import core.families.specs.verify as verify

    family = get_family("specs")
    preset = next(iter(family.presets().values()))
    instance = family.generate_one(family.resolve_params(preset.name), preset.seed, 1)
    calls: list[str] = []
    real = verify.consistency

    def counting(inst, annotated, **kwargs):  # a spy: the real WP runs
        calls.append(annotated)
        return real(inst, annotated, **kwargs)

    monkeypatch.setattr(verify, "consistency", counting)
    answer = family.extract(family.oracle_response(instance), instance)
    first = family.trace(instance, answer)
    made = len(calls)
    assert made >= 1 and first.steps and first.reference is not None
    first.steps.clear()  # a caller's change stays on its copy
    again = family.trace(instance, answer)
    assert len(calls) == made  # nothing recomputed
    assert again.steps and again.model_dump() == family.trace(instance, answer).model_dump()
    other = family.extract(family.oracle_response(instance).replace("ensures", "ensures \\true;\n    ensures", 1),
                           instance)
    family.trace(instance, other)
    assert len(calls) > made  # another answer is traced anew
