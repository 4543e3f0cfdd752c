"""Every registered family keeps the contract (like reasoning-gym: every ground truth verifies).

Runs over whatever families exist, so a family that lands later is checked without new tests.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.family import all_families
from core.instance import Instance

# verdicts only: tool results shared with the session's other such tests (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("shared_tool_cache")
FAMILIES = sorted(all_families())


def _sample(family_id: str, per_preset: int = 3) -> list[Instance]:
    """A few instances from every preset, from different places in the preset's index range."""
    fam = all_families()[family_id]
    out: list[Instance] = []
    for name, preset in sorted(fam.presets().items()):
        params = fam.resolve_params(name)
        indices = sorted({0, preset.count // 2, max(preset.count - 1, 0)})[:per_preset]
        out.extend(fam.generate_one(params, preset.seed, i) for i in indices)
    return out


@pytest.mark.parametrize("family_id", FAMILIES)
def test_family_declares_what_the_ui_needs(family_id: str) -> None:
    fam = all_families()[family_id]
    assert fam.id == family_id and fam.title and fam.citation.url.startswith("https://")
    assert fam.features, "difficulty features drive tables and breakdowns"
    assert fam.presets(), "at least one preset"
    assert {"baseline", "oracle"} <= set(fam.local_solvers())
    for preset in fam.presets().values():
        assert preset.family == family_id and preset.count > 0


@pytest.mark.parametrize("family_id", FAMILIES)
def test_ground_truth_and_oracle_verify(family_id: str) -> None:
    fam = all_families()[family_id]
    for inst in _sample(family_id):
        answer, verdict = fam.check(inst, fam.oracle_response(inst))
        assert answer.ok, (inst.id, answer)
        assert verdict.correct and verdict.score == 1.0, (inst.id, verdict.explanation)
        # the instance survives a JSON round trip unchanged (files written elsewhere are accepted)
        again = fam.parse_instance(json.loads(json.dumps(inst.to_json_dict())))
        assert again.to_json_dict() == inst.to_json_dict()


@pytest.mark.parametrize("family_id", FAMILIES)
def test_generation_is_deterministic_and_item_wise(family_id: str) -> None:
    fam = all_families()[family_id]
    name, preset = sorted(fam.presets().items())[0]
    params = fam.resolve_params(name)
    batch = [i.to_json_dict() for i in fam.generate(params, 11, 4)]
    assert batch == [fam.generate_one(params, 11, i).to_json_dict() for i in range(4)]
    assert fam.generate_one(params, 11, 3).to_json_dict() == batch[3]
    assert len({b["id"] for b in batch}) == 4, "distinct items get distinct content ids"
    assert [i.to_json_dict() for i in fam.generate(params, 11, 2, start=2)] == batch[2:]


@pytest.mark.parametrize("family_id", FAMILIES)
def test_trace_and_prompt_render(family_id: str) -> None:
    fam = all_families()[family_id]
    inst = _sample(family_id, 1)[0]
    trace = fam.trace(inst)
    assert trace.steps and trace.to_text()
    answered = fam.trace(inst, fam.extract(fam.oracle_response(inst), inst))
    assert answered.steps
    for style in fam.prompt_styles:
        prompt = fam.prompt(inst, style)
        assert prompt.messages and all(m["content"] for m in prompt.messages)


@pytest.mark.parametrize("family_id", FAMILIES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=400) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_extract_and_verify_never_raise(family_id: str, text: str) -> None:
    fam = all_families()[family_id]
    inst = _cached_instance(family_id)
    answer = fam.extract(text, inst)
    verdict = fam.verify(inst, answer)
    assert isinstance(verdict.correct, bool)
    if not answer.ok:
        assert not verdict.correct and answer.error


_CACHE: dict[str, Instance] = {}


def _cached_instance(family_id: str) -> Instance:
    if family_id not in _CACHE:
        _CACHE[family_id] = _sample(family_id, 1)[0]
    return _CACHE[family_id]
