"""The structured condition, the instance JSON, the params (grid) and the rendering to the paper's text."""

from __future__ import annotations

import json

import pytest
from membership_listings import LISTING_6, LISTING_6_TEXT, listing6_instance
from pydantic import ValidationError

from core.errors import UserError
from core.families.membership.model import (
    MAX_PROBE_NESTING,
    Condition,
    MembershipInstance,
    MembershipParams,
    branch_lengths,
    nesting_depth,
)
from core.families.membership.render import render, render_code, render_probe
from core.family import get_family


def test_render_reproduces_listing_6() -> None:
    code = render_code(LISTING_6)
    assert code.replace("\n\n", "\n") == LISTING_6_TEXT
    assert code.count("\n\n") == 1  # one blank line between the two functions


def test_layout_points_at_the_right_lines_and_terms() -> None:
    rendered = render(LISTING_6)
    lines = rendered.code.splitlines()
    fn1 = rendered.functions[1]
    assert lines[fn1.def_line - 1] == "def is_member_1(x):"
    assert lines[fn1.branches[1].if_line - 1] == "    elif len(x) == 3:"
    assert lines[fn1.else_line - 1] == "    else:"
    assert lines[fn1.return_false_line - 1] == "        return False"
    assert lines[fn1.return_res_line - 1] == "    return res"
    res = lines[fn1.branches[0].res_line - 1]
    spans = fn1.branches[0].term_spans
    assert [res[a:b] for a, b in spans] == ["(x[0] == 65)", "(is_member_0(x[1]))"]


def test_probe_literal_matches_python_repr() -> None:
    probe = [[3, -44], [[1], []], -7]
    assert render_probe(probe) == repr(probe)


def test_instance_json_round_trip_and_fixed_names() -> None:
    inst = listing6_instance([3, -44], answer=True)
    data = json.loads(inst.model_dump_json())
    assert {"condition", "code", "probe", "entry", "ground_truth", "meta"} <= set(data)
    assert data["entry"] == "is_member_0" and data["ground_truth"] == {"answer": True}
    again = get_family("membership").parse_instance(data)
    assert again == inst


@pytest.mark.parametrize(
    "bad",
    [
        {"probe": [True, 1]},  # bools would compare equal to 1 in Python
        {"probe": [1.5, 2]},
        {"probe": 5},
        {"probe": ["a"]},
        {"entry": "is_member_7"},
        {"entry": "print"},
        {"ground_truth": {"answer": "yes"}},
    ],
)
def test_instance_validation_rejects(bad: dict) -> None:
    data = {"condition": LISTING_6.model_dump(), "code": render_code(LISTING_6), "probe": [3, -44], **bad}
    with pytest.raises(ValidationError):
        MembershipInstance.model_validate(data)


def test_probe_nesting_is_bounded() -> None:
    deep: list = [1, 2]
    for _ in range(MAX_PROBE_NESTING + 1):
        deep = [deep, 0]
    data = {"condition": LISTING_6.model_dump(), "code": "", "probe": deep}
    with pytest.raises(ValidationError, match="nested deeper"):
        MembershipInstance.model_validate(data)


@pytest.mark.parametrize(
    "condition, message",
    [
        ({"functions": [{"branches": [{"length": 2, "terms": [{"kind": "compare", "index": 2, "op": "==",
                                                               "value": 1}]}]}]}, "reads x\\[2\\]"),
        ({"functions": [{"branches": [{"length": 1, "terms": [{"kind": "call", "index": 0, "target": 3}]}]}]},
         "not defined"),
        ({"functions": [{"branches": [{"length": 2, "terms": [{"kind": "compare", "index": 0, "op": "<", "value": 1}]}]}]},
         "op"),
    ],
)
def test_condition_validation(condition: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Condition.model_validate(condition)


def test_conditions_from_other_tools_may_repeat_reads_and_lengths() -> None:
    """Valid Python that our generator never writes: two terms on x[0], two branches for len 1 (the first
    wins, as with if/elif). Accepted; evaluation agrees with Python in test_membership_differential."""
    cmp0 = {"kind": "compare", "index": 0, "op": "==", "value": 1}
    condition = Condition.model_validate({"functions": [{"branches": [
        {"length": 1, "terms": [cmp0, {**cmp0, "op": "!=", "value": 2}]},
        {"length": 1, "terms": [{**cmp0, "value": 2}]},
    ]}]})
    assert condition.functions[0].branch_for(1) == (0, condition.functions[0].branches[0])
    assert render_code(condition).count("len(x) == 1") == 2


def test_nesting_depth() -> None:
    assert nesting_depth([1, 2]) == 0
    assert nesting_depth([[1, 2], 3]) == 1
    assert nesting_depth([1, [2, [3, []]]]) == 3
    assert nesting_depth(4) == -1


# ---- params ------------------------------------------------------------------------------------
def test_params_defaults_are_table_2() -> None:
    assert MembershipParams().model_dump() == {"I": 2, "N_max": 2, "b": 1, "N_T": 2, "depth": 2}


def test_params_from_cli_strings_and_grids() -> None:
    family = get_family("membership")
    params = family.resolve_params(None, {"I": "3", "N_max": "3", "b": "2", "N_T": "2", "depth": "4"})
    assert params == {"I": 3, "N_max": 3, "b": 2, "N_T": 2, "depth": 4}
    assert family.resolve_params(None, {"N_T": "2..4"})["N_T"] == "2..4"
    assert family.resolve_params(None, {"N_T": "2, 3..4"})["N_T"] == [2, "3..4"]  # a grid of a length and a range
    grid = family.resolve_params(None, {"depth": "1,2,3", "I": "[1, 2]"})
    assert grid["depth"] == [1, 2, 3] and grid["I"] == [1, 2]
    assert len(MembershipParams.model_validate(grid).combinations()) == 6
    assert family.resolve_params(None, {"depth": "[5]"})["depth"] == 5


@pytest.mark.parametrize(
    "overrides, fragment",
    [
        ({"I": "0"}, "I=0 is outside"),
        ({"depth": "1+1"}, "field 'depth'"),
        ({"depth": "2,2"}, "depth lists a value twice"),
        ({"N_max": "1", "depth": "1"}, "needs N_max >= 2"),
        ({"b": "3", "N_max": "2", "depth": "20"}, "nested calls"),  # 3**20 calls: refused
        # b_i <= N_i (paper §4.1): the only non-terminal branch has length 2, so b=5 is refused, not capped
        ({"b": "5", "N_max": "2", "N_T": "5"}, "b=5 exceeds the shortest non-terminal branch, len(x) == 2"),
        ({"b": "4", "N_max": "3", "N_T": "2"}, "use b <= 3"),  # lengths 3 and 4: the 3 could not hold 4 calls
        ({"b": "1,2,3", "N_T": "3"}, "b=3 exceeds"),  # a grid is refused when any combination is
        ({"I": "2", "N_max": "1", "depth": "0"}, "I > 1 needs N_max >= 2"),  # no calls: is_member_1 unreachable
        ({"N_T": "1"}, "N_T=1 is outside 2..20"),  # branch lengths start at 2 (§4.1)
        ({"N_T": "3..2"}, "N_T=3..2 is outside"),
        ({"N_T": "2..x"}, "ranges lo..hi"),
        # with N_T in 2..3 some function has its terminal at 3, leaving a non-terminal branch of length 2
        ({"b": "3", "N_max": "2", "N_T": "2..3"}, "b=3 exceeds the shortest non-terminal branch, len(x) == 2"),
        ({"colour": "red"}, "unknown parameter 'colour'"),
    ],
)
def test_params_errors_are_user_errors(overrides: dict, fragment: str) -> None:
    with pytest.raises(UserError) as info:
        get_family("membership").resolve_params(None, overrides)
    assert fragment in str(info.value)


def test_b_up_to_every_branch_length_is_accepted() -> None:
    family = get_family("membership")
    assert family.resolve_params(None, {"b": "3", "N_max": "2", "N_T": "2"})["b"] == 3  # branch length 3
    assert family.resolve_params(None, {"b": "2", "N_max": "2", "N_T": "5"})["b"] == 2  # branch length 2
    assert family.resolve_params(None, {"b": "7", "N_max": "1", "I": "1", "depth": "0"})["b"] == 7  # no calls


def test_params_refuse_booleans() -> None:
    with pytest.raises(ValidationError):
        MembershipParams.model_validate({"I": True})


def test_branch_lengths() -> None:
    assert branch_lengths({"N_T": 2, "N_max": 2}) == (2, [3])  # Listing 6: lengths 2 (terminal) and 3
    assert branch_lengths({"N_T": 3, "N_max": 3}) == (3, [2, 4])
    assert branch_lengths({"N_T": 2, "N_max": 1}) == (2, [])
    assert branch_lengths({"N_T": "2..3", "N_max": 2}, terminal=3) == (3, [2])  # one function of a range
