"""Instance files written elsewhere: any meta values, integer ids, and errors that name the field to fix.

DESIGN: such files are accepted by prompt, solve, verify and trace when they carry the fixed fields
(inputs, outputs); unknown meta keys or values are allowed, ids are kept as given.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from core.errors import UserError
from core.family import get_family
from core.jsonl import load_instances

FAMILY = get_family("cascade")
RELATION_KEYS = ("feeding", "bleeding", "counter_feeding", "counter_bleeding")

# meta shapes a converter script or another harness might write
FOREIGN_META: list[dict[str, Any]] = [
    {"relations": "feeding,bleeding", "category": 1010, "cascade_length": "2", "max_programs": "lots"},
    {"relations": ["feeding"], "category": None, "cascade_length": 2.5, "max_programs": True},
    {"relations": None, "category": ["1", "0"], "cascade_length": -1, "max_programs": -3},
    {"relations": {"feeding": "yes", "bleeding": [1]}, "category": {"bits": "1000"}, "cascade_length": True,
     "max_programs": {"k": 2}},
    {"relations": 7, "max_programs": float("nan"), "source": {"dataset": "elsewhere"}},
    {},
]


def foreign(meta: dict[str, Any], **fields: Any) -> dict[str, Any]:
    data = {"id": "ext-1", "family": "cascade", "inputs": ["abab", "cab"], "outputs": ["dd", "dd"],
            "ground_truth": {"cascade": [["ab", "c"], ["c", "d"]]}, "meta": meta}
    data.update(fields)
    return data


@pytest.mark.parametrize("meta", FOREIGN_META, ids=range(len(FOREIGN_META)))
def test_foreign_meta_never_breaks_the_family(meta: dict[str, Any]) -> None:
    instance = FAMILY.parse_instance(foreign(meta))
    values = FAMILY.feature_values(instance)
    assert set(values) == {"cascade_length", "category", "category_exact", *RELATION_KEYS}
    assert all(v is None for v in values.values())  # none of these values has the type the feature needs
    # K falls back to the ground-truth length when max_programs is not a positive whole number
    assert instance.max_programs() == 2
    assert "Use at most 2 programs." in FAMILY.prompt(instance).messages[-1]["content"]
    answer, verdict = FAMILY.check(instance, FAMILY.oracle_response(instance))
    assert answer.ok and verdict.correct
    assert FAMILY.trace(instance, answer).meta["correct"] is True
    report = FAMILY.metrics([(instance, verdict)])
    assert report["n"] == 1 and report["by"]["category"] == {"—": {"n": 1, **report["overall"]}}
    assert FAMILY.check(instance, FAMILY.baseline_response(instance, 5.0))[1].correct


def test_well_typed_meta_is_read_and_0_1_flags_mean_booleans() -> None:
    meta = {"relations": {"feeding": 1, "bleeding": 0, "counter_feeding": True}, "category": "1010",
            "cascade_length": 2, "max_programs": 3.0}
    instance = FAMILY.parse_instance(foreign(meta))
    assert FAMILY.feature_values(instance) == {
        "cascade_length": 2, "category": "1010", "category_exact": None, "feeding": True, "bleeding": False,
        "counter_feeding": True, "counter_bleeding": None,
    }
    assert instance.max_programs() == 3  # a whole float from a JSON writer without integers


def test_a_huge_k_does_not_stall_the_baseline() -> None:
    # the search stops when its frontiers run dry instead of counting up to K
    instance = FAMILY.parse_instance(foreign({"max_programs": 10**12}, inputs=["ab"], outputs=["ba"]))
    assert instance.max_programs() == 10**12
    answer, verdict = FAMILY.check(instance, FAMILY.baseline_response(instance, 5.0))
    assert answer.ok and verdict.correct


def test_integer_ids_are_kept_as_their_text() -> None:
    instance = FAMILY.parse_instance(foreign({}, id=17))
    assert instance.id == "17"
    assert FAMILY.parse_instance(foreign({}, id=0)).id == "0"  # 0 is an id, not a missing one
    assert FAMILY.trace(instance).instance_id == "17"


def test_length_mismatch_points_at_outputs(tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as caught:
        FAMILY.parse_instance(foreign({}, outputs=["dd"]))
    error = caught.value.errors()[0]
    assert error["loc"] == ("outputs",) and "2 inputs but 1 outputs" in error["msg"]
    # and through the instance-file loader, the one-line error names file, line and field
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(foreign({})) + "\n" + json.dumps(foreign({}, outputs=["dd"])) + "\n")
    with pytest.raises(UserError) as user_error:
        load_instances(FAMILY, path)
    assert (user_error.value.field, user_error.value.line) == ("outputs", 2)
    assert str(user_error.value).startswith(f"{path}:2: field 'outputs': ")


def test_invalid_inputs_are_reported_once_not_as_a_length_mismatch() -> None:
    with pytest.raises(ValidationError) as caught:
        FAMILY.parse_instance(foreign({}, inputs="abab"))
    assert [e["loc"][0] for e in caught.value.errors()] == ["inputs"]
