"""The stepper's trace: the short-circuited call tree in true Python evaluation order."""

from __future__ import annotations

import random
from typing import Any

from membership_listings import listing6_instance
from membership_pyrun import run_batch

from core.families.membership.model import probe_at
from core.families.membership.presets import PRESETS
from core.families.membership.render import render
from core.family import get_family
from core.trace import Trace

FAMILY = get_family("membership")


def test_listing6_short_circuit_call_tree() -> None:
    # is_member_0 takes len 3, calls is_member_1(x[0]); there (x[0] == 65) fails, so is_member_0(x[1]) is
    # never entered and the rest of is_member_0's conjunction is skipped.
    inst = listing6_instance([[64, [3, -44]], 20, 30], answer=False)
    trace = FAMILY.trace(inst)
    rows = [(s.kind, s.depth, s.highlight["line"], s.highlight["path"], s.label) for s in trace.steps]
    assert rows == [
        ("call", 0, 1, [], "call is_member_0(x) with x = [[64, [3, -44]], 20, 30]"),
        ("branch", 1, 4, [], "len(x) = 3: take branch `len(x) == 3` (1 call(s))"),
        ("call", 1, 10, [0], "call is_member_1(x[0]) with x[0] = [64, [3, -44]]"),
        ("branch", 2, 11, [0], "len(x[0]) = 2: take branch `len(x) == 2` (1 call(s))"),
        ("term", 2, 12, [0, 0],
         "(x[0][0] == 65): x[0][0] = 64 -> False; short-circuit skips (is_member_0(x[0][1]))"),
        ("return", 1, 17, [0], "is_member_1(x[0]) returns False"),
        ("term", 1, 5, [0], "(is_member_1(x[0])) -> False; short-circuit skips (x[1] == 20), (x[2] == 30)"),
        ("return", 0, 8, [], "is_member_0(x) returns False"),
    ]
    failing = trace.steps[4]
    assert failing.data["short_circuit"] is True and failing.data["value"] is False
    assert failing.data["family"] == 1 and failing.data["branch"] == 0 and failing.data["term"] == 0
    assert failing.data["skipped"] == ["is_member_0(x[0][1])"]
    code_line = inst.code.splitlines()[failing.highlight["line"] - 1]
    start, end = failing.highlight["span"]
    assert code_line[start:end] == "(x[0] == 65)"
    assert trace.meta["result"] is False and trace.meta["decisive_step"] == 4
    text = trace.to_text()
    steps = [line for line in text.splitlines() if line.lstrip().startswith("[")]  # state rows are indented below
    assert "    [4] (x[0][0] == 65)" in text and steps[-1].startswith("[7] is_member_0(x) returns False")
    # the generic stepper's view: the focused line and columns, and the state rows
    assert failing.focus is not None and failing.focus.document == "code" and failing.focus.line == failing.highlight["line"]
    assert (failing.focus.col_start, failing.focus.col_end) == (start, end)
    assert trace.documents[0].text == inst.code
    assert ("value", "False", "fail") in [(r.name, r.value, r.status) for r in failing.state]


def test_listing6_true_and_no_branch() -> None:
    true_trace = FAMILY.trace(listing6_instance([3, -44]))
    assert [s.kind for s in true_trace.steps] == ["call", "branch", "term", "term", "return"]
    assert [s.data.get("value") for s in true_trace.steps[2:]] == [True, True, True]
    assert not any(s.data.get("short_circuit") for s in true_trace.steps)

    none = FAMILY.trace(listing6_instance([1, 2, 3, 4]))
    assert [(s.kind, s.highlight["line"]) for s in none.steps] == [("call", 1), ("branch", 6), ("return", 7)]
    assert none.steps[1].data["branch"] is None and none.meta["decisive_step"] == 1


def test_type_error_is_traced_not_raised() -> None:
    trace = FAMILY.trace(listing6_instance([5, 20, 30]))
    assert trace.meta["result"] is None and "TypeError" in trace.meta["error"]
    assert trace.steps[-1].kind == "return" and "raises" in trace.steps[-1].label


def test_trace_with_answer_notes_prediction_and_divergence() -> None:
    inst = listing6_instance([[64, [3, -44]], 20, 30], answer=False)
    wrong = FAMILY.trace(inst, FAMILY.extract("True"))
    assert wrong.meta["predicted"] is True and wrong.meta["actual"] is False and wrong.meta["correct"] is False
    assert wrong.divergence is not None and wrong.divergence["step"] == 4
    assert [s.label for s in wrong.steps] == [s.label for s in FAMILY.trace(inst).steps]
    right = FAMILY.trace(inst, FAMILY.extract("False"))
    assert right.meta["correct"] is True and right.divergence is None
    garbled = FAMILY.trace(inst, FAMILY.extract("maybe"))
    assert garbled.meta["predicted"] is None and garbled.meta["answer_ok"] is False and garbled.divergence


def test_trace_is_json_and_every_step_has_the_contract_fields() -> None:
    preset = PRESETS["pag-sweep-b"]
    for inst in FAMILY.generate(preset.params, preset.seed, 40):
        trace = FAMILY.trace(inst)
        assert Trace.model_validate_json(trace.model_dump_json()) == trace
        assert trace.meta["result"] is inst.ground_truth["answer"]
        assert [s.index for s in trace.steps] == list(range(len(trace.steps)))
        n_lines = len(inst.code.splitlines())
        for step in trace.steps:
            assert step.kind in {"call", "branch", "term", "return"}
            assert 1 <= step.highlight["line"] <= n_lines
            probe_at(inst.probe, step.highlight["path"])  # a real place in the probe
            assert {"family", "branch", "function", "call_id"} <= set(step.data)
            if step.kind == "term":
                assert {"term", "value", "short_circuit"} <= set(step.data)
        # calls nest: every call's return comes later at the same depth, with nothing shallower between
        depths = [s.depth for s in trace.steps]
        assert depths[0] == depths[-1] == 0 and min(depths[1:-1], default=1) >= 1


def test_truncation_and_code_mismatch_are_flagged() -> None:
    from core.families.membership.trace import trace as build

    preset = PRESETS["pag-sweep-b"]
    inst = FAMILY.generate_one(preset.params, preset.seed, 4)
    full = build(inst)
    short = build(inst, max_steps=5)
    assert len(short.steps) == 5 and short.meta["truncated"] is True
    assert short.meta["total_steps"] == len(full.steps) > 5
    assert short.meta["result"] is True  # the value still comes from the full evaluation
    # `sembench trace` prints to_text(): the cut shows in the title and on the last step shown
    state_rows = ("call = ", "branch = ", "value = ")
    text = [line for line in short.to_text().splitlines() if not line.strip().startswith(state_rows)]
    assert f"only the first 5 of {len(full.steps)} steps" in text[0]
    assert (f"[trace truncated: only the first 5 of {len(full.steps)} steps are shown; "
            "the result comes from the full evaluation]") in text[-1]  # (followed by the step's focus, @code:N)
    assert short.steps[-1].label.startswith(full.steps[4].label)
    assert "truncated" not in full.title and "truncated" not in full.meta
    assert all("truncated" not in step.label for step in full.steps)

    inst.code = "# reformatted by another tool\n" + inst.code
    assert FAMILY.trace(inst).meta["rendered_code"] == render(inst.condition).code


def test_layout_only_differences_keep_line_numbers_honest_without_a_mismatch() -> None:
    inst = listing6_instance([3, -44])
    inst.code = inst.code.replace("\n\n", "\n")  # Listing 6 as printed: no blank line between functions
    trace = FAMILY.trace(inst)
    assert trace.meta["code_matches"] is False and trace.meta["rendered_code"] == render(inst.condition).code
    assert "code_mismatch" not in trace.meta and "mismatch" not in trace.title


def _frames(events: list[list[Any]]) -> list[dict[str, Any]]:
    """Python's settrace events grouped per call (in call order): function, argument, lines, value."""
    frames: list[dict[str, Any]] = []
    stack: list[dict[str, Any]] = []
    for kind, name, arg in events:
        if kind == "call":
            frame = {"function": name, "argument": arg, "lines": [], "value": None}
            frames.append(frame)
            stack.append(frame)
        elif kind == "line":
            stack[-1]["lines"].append(arg)
        else:
            stack.pop()["value"] = arg
    return frames


def test_trace_order_matches_real_python() -> None:
    """Call order, arguments, return values and lines against CPython's own trace of the rendered code."""
    rng = random.Random(5)
    instances = [listing6_instance(p) for p in ([3, -44], [[64, [3, -44]], 20, 30], [[65, [3, -44]], 20, 30],
                                                [1, 2, 3, 4])]
    for _, preset in sorted(PRESETS.items()):
        instances += [FAMILY.generate_one(preset.params, preset.seed, i) for i in rng.sample(range(preset.count), 40)]
    results = run_batch([{"code": i.code, "probe": i.probe, "entry": i.entry} for i in instances],
                        trace_calls=True)["results"]
    for inst, result in zip(instances, results, strict=True):
        trace = FAMILY.trace(inst)
        assert result["result"] is trace.meta["result"]
        python = _frames(result["events"])
        calls = [s for s in trace.steps if s.kind == "call"]
        assert [(f["function"], f["argument"]) for f in python] == [
            (s.data["function"], probe_at(inst.probe, s.highlight["path"])) for s in calls]
        for call_id, frame in enumerate(python):
            own = [s for s in trace.steps if s.data["call_id"] == call_id]
            ret = own[-1]
            assert ret.kind == "return" and ret.data["value"] is frame["value"]
            assert ret.highlight["line"] == frame["lines"][-1]  # the line Python returned from
            assert {s.highlight["line"] for s in own if s.kind in ("branch", "term")} - {render(inst.condition)
                    .functions[s.data["family"]].else_line for s in own} <= set(frame["lines"])
