"""The family kit: every registered family (the toy family of the tests included) keeps the platform's
promises. Adding a family adds it here with no edit; a family that breaks a promise fails here by name.

Instances come from each family's first preset (items 0..KIT_ITEMS-1): a small generated set, so tool-backed
families stay within the suite's time budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.family import Family, all_families
from core.instance import Instance
from core.store import REPO_ROOT

# verdicts only: tool results shared with the session's other such tests (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("shared_tool_cache")
KIT_ITEMS = 6
FAMILIES = sorted(all_families())
BASE_FIELDS = {"id", "family", "params", "seed", "index", "ground_truth", "meta"}


def family(family_id: str) -> Family:
    return all_families()[family_id]


def first_preset(fam: Family) -> tuple[str, dict[str, Any], int]:
    name, preset = next(iter(fam.presets().items()))
    return name, fam.resolve_params(name), preset.seed


@cache
def items(family_id: str) -> tuple[Instance, ...]:
    fam = family(family_id)
    name, params, seed = first_preset(fam)
    count = min(KIT_ITEMS, fam.presets()[name].count)
    return tuple(fam.generate(params, seed, count))


GENERATE = """
import json, sys
from core.family import all_families
import tests.kit.toyfamily
out = {}
for fid, fam in all_families().items():
    name, preset = next(iter(fam.presets().items()))
    params = fam.resolve_params(name)
    out[fid] = [fam.generate_one(params, preset.seed, i).to_json_dict() for i in (0, 2)]
print(json.dumps(out, sort_keys=True))
"""


@cache
def generated_elsewhere(hash_seed: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([sys.executable, "-c", GENERATE], capture_output=True, text=True, env=env,
                          cwd=REPO_ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("family_id", FAMILIES)
def test_deterministic_across_processes_and_hash_seeds(family_id: str) -> None:
    fam = family(family_id)
    name, params, seed = first_preset(fam)
    here = [fam.generate_one(params, seed, i).to_json_dict() for i in (0, 2)]
    assert generated_elsewhere("0")[family_id] == here
    assert generated_elsewhere("12345")[family_id] == here


@pytest.mark.parametrize("family_id", FAMILIES)
def test_item_i_is_generable_alone(family_id: str) -> None:
    fam = family(family_id)
    _, params, seed = first_preset(fam)
    batch = items(family_id)
    last = len(batch) - 1
    assert fam.generate_one(params, seed, last).to_json_dict() == batch[last].to_json_dict()
    assert len({inst.id for inst in batch}) == len(batch), "ids are content-derived and distinct"


@pytest.mark.parametrize("family_id", FAMILIES)
def test_the_oracle_verifies_on_every_item(family_id: str) -> None:
    fam = family(family_id)
    for inst in items(family_id):
        answer, verdict = fam.check(inst, fam.oracle_response(inst))
        assert answer.ok, f"{inst.id}: the oracle's response does not extract: {answer.message}"
        assert verdict.correct, f"{inst.id}: the oracle is rejected: {verdict.explanation}"


@pytest.mark.parametrize("family_id", FAMILIES)
def test_the_baseline_answers_verify(family_id: str) -> None:
    fam = family(family_id)
    batch = items(family_id)
    right = sum(fam.check(inst, fam.baseline_response(inst, 30.0))[1].correct for inst in batch)
    if fam.baseline_complete:
        assert right == len(batch), f"the baseline solved {right} of {len(batch)}"
    else:
        assert right / len(batch) >= fam.baseline_floor, f"the baseline solved {right} of {len(batch)}"


@pytest.mark.parametrize("family_id", FAMILIES)
def test_empty_garbage_and_perturbed_answers_are_rejected_with_reasons(family_id: str) -> None:
    fam = family(family_id)
    for inst in items(family_id)[:3]:
        wrong = ["", "I am not sure.", "\x00\ufffd" * 20, *fam.wrong_responses(inst)]
        for response in wrong:
            answer, verdict = fam.check(inst, response)
            assert not verdict.correct, f"{inst.id}: accepted {response[:80]!r}"
            assert verdict.explanation.strip(), f"{inst.id}: no explanation for {response[:80]!r}"
            assert verdict.diff, f"{inst.id}: no diff for {response[:80]!r}"


@pytest.mark.parametrize("family_id", FAMILIES)
def test_traces_have_steps_and_an_answer_trace_has_a_reference(family_id: str) -> None:
    fam = family(family_id)
    inst = items(family_id)[0]
    reference = fam.trace(inst)
    assert reference.steps and reference.instance_id == inst.id
    wrong = fam.wrong_responses(inst)[0]
    for response in (fam.oracle_response(inst), wrong):
        traced = fam.trace(inst, fam.extract(response, inst))
        assert traced.reference is not None, "an answer's trace carries the ground truth's beside it"
    for trace in (reference, traced):
        names = {d.name: d for d in trace.documents}
        for step in trace.steps:
            if step.focus is None:
                continue
            assert step.focus.document in names, f"step {step.index} focuses a missing document"
            lines = names[step.focus.document].text.count("\n") + 1
            assert step.focus.line <= lines, f"step {step.index} focuses line {step.focus.line} of {lines}"


@pytest.mark.parametrize("family_id", FAMILIES)
def test_feature_values_are_the_declared_features(family_id: str) -> None:
    fam = family(family_id)
    assert set(fam.spoiler_features) <= set(fam.features)
    assert set(fam.hint_features) <= set(fam.features) and not set(fam.hint_features) & set(fam.spoiler_features)
    for inst in items(family_id):
        assert list(fam.feature_values(inst)) == list(fam.features)


@pytest.mark.parametrize("family_id", FAMILIES)
def test_spoiler_features_never_reach_the_prompt(family_id: str) -> None:
    """Neither the spoilers nor the hints (a person answering does not see them: a model must not either)."""
    fam = family(family_id)
    for inst in items(family_id):
        for style in fam.prompt_styles:
            plain = fam.prompt(inst, style)
            scrambled = inst.model_copy(deep=True)
            for key in (*fam.spoiler_features, *fam.hint_features):
                scrambled.meta[key] = "SPOILER-SCRAMBLED"
            assert fam.prompt(scrambled, style) == plain, f"the {style} prompt depends on a spoiler feature"
            text = json.dumps(plain.model_dump())
            assert "SPOILER" not in text


def foreign(fam: Family, inst: Instance, number: int) -> Instance:
    """The instance as another tool would write it: the fixed fields only, unknown meta, its own id."""
    data = {k: v for k, v in inst.to_json_dict().items() if k not in {"params", "seed", "index", "meta", "id"}}
    data["id"] = f"elsewhere-{number}"
    data["meta"] = {"source": "another harness", "unknown": [1, {"nested": None}]}
    return fam.parse_instance(json.loads(json.dumps(data)))


@pytest.mark.parametrize("family_id", FAMILIES)
def test_a_foreign_instance_verifies_solves_and_traces(family_id: str) -> None:
    fam = family(family_id)
    for number, inst in enumerate(items(family_id)[:2]):
        other = foreign(fam, inst, number)
        assert other.id == f"elsewhere-{number}"
        assert fam.check(other, fam.oracle_response(other))[1].correct
        verdict = fam.check(other, fam.baseline_response(other, 30.0))[1]
        assert verdict.correct or not fam.baseline_complete
        assert fam.trace(other).steps
        assert set(fam.feature_values(other)) == set(fam.features)


@pytest.mark.parametrize("family_id", FAMILIES)
def test_extraction_never_raises(family_id: str) -> None:
    fam = family(family_id)
    inst = items(family_id)[0]
    right = fam.oracle_response(inst)

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.text(max_size=400), st.integers(min_value=0, max_value=400), st.text(max_size=20))
    def check(noise: str, at: int, insert: str) -> None:
        for text in (noise, right[:at] + insert + right[at:]):
            answer = fam.extract(text, inst)
            assert answer.ok or answer.error
            fam.extract(text)  # without the instance too

    check()
