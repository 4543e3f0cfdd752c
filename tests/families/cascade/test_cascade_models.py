"""The declared shapes of Answer.value and TraceStep.data, and extraction of the released answer format."""

from __future__ import annotations

import pytest

from core.families.cascade import CascadeFamily
from core.families.cascade.answer import CascadeAnswer, RuleStep
from core.families.cascade.extract import extract
from core.families.membership import MembershipFamily
from core.families.membership.answer import MembershipAnswer, MembershipStep
from core.family import get_family

CASCADE = get_family("cascade")


def test_families_declare_their_models() -> None:
    assert CascadeFamily.answer_model is CascadeAnswer and CascadeFamily.step_model is RuleStep
    assert MembershipFamily.answer_model is MembershipAnswer and MembershipFamily.step_model is MembershipStep


def test_answer_values_and_step_data_follow_the_models() -> None:
    instance = CASCADE.generate_one(CASCADE.resolve_params("cascade-demo"), 0, 5)
    answer = CASCADE.extract(CASCADE.oracle_response(instance), instance)
    value = CascadeAnswer.model_validate(answer.value)
    assert value.model_dump() == answer.value  # the stored JSON object is exactly the model's
    trace = CASCADE.trace(instance, answer)
    for step in [*trace.steps, *trace.reference.steps]:
        RuleStep.model_validate(step.data)
        assert step.focus is not None and trace.document(step.focus.document) is not None
    member = get_family("membership")
    probe = member.generate_one(member.resolve_params("pag-default"), 0, 1)
    assert MembershipAnswer.model_validate(member.extract("False", probe).value).root is False
    for step in member.trace(probe).steps:
        MembershipStep.model_validate(step.data)


@pytest.mark.parametrize(
    ("code", "fmt"),
    [
        ('["replace(\'ab\', \'c\')", "replace(\'c\', \'d\')"]', "list"),
        ("[replace('ab', 'c'), replace('c', 'd')]", "list"),
        ('"programs": ["replace(\\"ab\\", \\"c\\")", "replace(\\"c\\", \\"d\\")"]', "list"),
        ('s = s.replace("ab", "c")\nprograms = ["replace(\'c\', \'d\')"]', "mixed"),
        ('s = s.replace("ab", "c").replace("c", "d")', "statements"),
    ],
)
def test_the_released_list_format_is_read(code: str, fmt: str) -> None:
    answer = extract(f"```python\n{code}\n```")
    block = answer.value["last"]
    assert [(p["lhs"], p["rhs"], p["valid"]) for p in block["programs"]] == [("ab", "c", True), ("c", "d", True)]
    assert block["format"] == fmt


def test_list_elements_that_are_not_programs_are_invalid_programs() -> None:
    answer = extract("```python\n[\"replace('ab', 'c')\", 3, \"hello\", b\"replace('a','b')\"]\n```")
    got = [(p["valid"], p["error"]) for p in answer.value["last"]["programs"]]
    assert got == [(True, None), (False, "non_string"), (False, "not_replace"), (False, "non_string")]


def test_derived_values_follow_a_copy_with_other_fields() -> None:
    # K, the limits and the metrics' denominators are cached per instance object; a copy made with other
    # meta must not read the original's cache
    instance = CASCADE.generate_one(CASCADE.resolve_params("cascade-demo"), 0, 0)
    assert instance.max_programs() == 4 and instance.max_side() == 3
    copy = instance.model_copy(update={"meta": {**instance.meta, "max_programs": 9, "max_side": 5}})
    assert (copy.max_programs(), copy.max_side()) == (9, 5)
    assert (instance.max_programs(), instance.max_side()) == (4, 3)
