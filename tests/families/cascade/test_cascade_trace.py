"""Cascade traces: per-rule strings and changed spans, the answer beside the ground truth, divergence."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.families.cascade.extract import extract
from core.families.cascade.model import CascadeInstance, apply_cascade
from core.families.cascade.trace import trace
from core.verdict import Answer


def make(inputs: list[str], cascade: list[tuple[str, str]] | None, outputs: list[str] | None = None,
         k: int = 4) -> CascadeInstance:
    return CascadeInstance(
        inputs=inputs,
        outputs=outputs if outputs is not None else [apply_cascade(s, cascade or []) for s in inputs],
        ground_truth={"cascade": [list(r) for r in cascade]} if cascade is not None else {},
        meta={"alphabet": "abcdefghijklmnopqrstuvwxyz", "max_programs": k, "cascade_length": len(cascade or []), "category": "1000", "relations": {}},
    )


def block(*lines: str) -> str:
    return "```python\n" + "\n".join(lines) + "\n```\n"


# abab -> xyzxyz -> xzxz -> xzxz ; bab -> bxyz -> bxz -> xz
GT = [("ab", "xyz"), ("y", ""), ("bx", "x")]
INSTANCE = make(["abab", "bab", "q"], GT)


def test_ground_truth_trace_has_one_step_per_rule_plus_start() -> None:
    t = trace(INSTANCE)
    assert len(t.steps) == len(GT) + 1
    assert [s.kind for s in t.steps] == ["start", "rule", "rule", "rule"]
    assert [s.index for s in t.steps] == [0, 1, 2, 3]
    assert t.steps[0].data["after"] == INSTANCE.inputs
    assert t.steps[1].label == 'rule 1: replace("ab", "xyz")'
    assert [s.data["after"] for s in t.steps[1:]] == [["xyzxyz", "bxyz", "q"], ["xzxz", "bxz", "q"], ["xzxz", "xz", "q"]]
    assert t.reference is None and t.divergence is None


def test_rule_steps_record_rule_before_after_changed_and_spans() -> None:
    t = trace(INSTANCE)
    first, second, third = t.steps[1:]
    assert first.data["rule"] == ["ab", "xyz"] and first.data["valid"] is True
    assert first.data["before"] == ["abab", "bab", "q"]
    assert first.data["changed"] == [True, True, False]
    assert first.data["spans"] == [[[0, 3], [3, 6]], [[1, 4]], []]  # where "xyz" was written
    assert second.data["spans"] == [[[1, 1], [3, 3]], [[2, 2]], []]  # deletions: empty ranges
    assert third.data["spans"] == [[], [[0, 1]], []]
    assert third.data["changed"] == [False, True, False]
    assert first.highlight == {"rule": 0, "spans": first.data["spans"]}


def test_last_step_marks_which_outputs_match() -> None:
    t = trace(INSTANCE, extract(block('s = s.replace("ab", "xz")')))
    last = t.steps[-1]
    # abab -> xzxz (match), bab -> bxz (no), q (match)
    assert last.data["match"] == [True, False, True] and last.data["all_match"] is False
    assert t.meta["outputs_match"] == [True, False, True] and t.meta["correct"] is False
    assert trace(INSTANCE).steps[-1].data["all_match"] is True


def test_answer_trace_carries_the_reference_and_finds_where_it_leaves_the_path() -> None:
    answer = extract(block('s = s.replace("ab", "xz")', 's = s.replace("b", "q")'))
    t = trace(INSTANCE, answer)
    assert len(t.steps) == 3
    assert t.reference is not None and len(t.reference.steps) == 4
    # step 1: abab -> xzxz (on the path: the reference reaches it at step 2), bab -> bxz (also on the path)
    # step 2: bxz -> qxz: never produced by the reference
    d = t.divergence
    assert d is not None
    assert (d["kind"], d["step"], d["example"], d["string"], d["rule"]) == ("left_path", 2, 1, "qxz", 1)
    assert d["reference_step"] == 2 and d["reference_string"] == "bxz" and d["reference_next"] == "xz"
    assert "guide, not the verdict" in d["note"]


def test_divergence_numbers_people_read_are_1_based_and_match_the_note() -> None:
    answer = extract(block('s = s.replace("ab", "xz")', 's = s.replace("b", "q")'))
    d = trace(INSTANCE, answer).divergence
    assert d is not None
    # 0-based indices for programs (like data/highlight), 1-based numbers for people, the note uses those
    assert (d["example"], d["rule"]) == (1, 1) and (d["example_no"], d["rule_no"]) == (2, 2)
    assert d["note"].startswith('rule 2 takes example 2 to "qxz"')
    assert trace(INSTANCE, answer).steps[d["step"]].label.startswith(f"rule {d['rule_no']}:")
    short = trace(INSTANCE, extract(block('s = s.replace("ab", "xyz")', 's = s.replace("y", "")'))).divergence
    assert short is not None and (short["example_no"], short["rule_no"]) == (2, 2)
    assert short["note"].startswith("after rule 2, example 2 is still on the reference path")
    identity = trace(INSTANCE, extract("no code")).divergence
    assert identity is not None and identity["rule"] is None and identity["rule_no"] is None
    assert identity["note"].startswith("with no rule applied, example 1 ")


def test_text_lines_bracket_the_written_spans() -> None:
    t = trace(make(["dbebc", "xx", "abab"], [("db", "jf"), ("b", ""), ("x", "y")]))
    rows = [[(r.name, r.value, r.status) for r in step.state] for step in t.steps]
    assert rows[0] == [("example 1", '"dbebc"', "kept"), ("example 2", '"xx"', "kept"), ("example 3", '"abab"', "kept")]
    assert rows[1] == [("example 1", '"dbebc" -> "[jf]ebc"', "changed"), ("example 2", '"xx"', "kept"),
                       ("example 3", '"abab"', "kept")]
    assert rows[2][2][1] == '"abab" -> "a[]a[]"'  # deletions: an empty bracket where lhs was
    assert rows[3][1][1] == '"xx" -> "[y][y]"'
    assert 'example 1 = "dbebc" -> "[jf]ebc"  (changed)' in t.to_text()
    assert {r.status for r in t.steps[-1].state} <= {"ok", "fail"}  # the last step against the outputs
    assert all(step.focus is not None and step.focus.document == "cascade" for step in t.steps)
    # data and highlight keep their shape (the TUI reads them)
    assert t.steps[1].data["spans"] == [[[0, 2]], [], []] and t.steps[1].highlight["rule"] == 0


def test_a_merged_cascade_stays_on_the_path_and_has_no_divergence() -> None:
    # one rule ab -> xz then bx -> x skips the reference's intermediate xyz strings but never leaves it
    answer = extract(block('s = s.replace("ab", "xz")', 's = s.replace("bx", "x")'))
    t = trace(INSTANCE, answer)
    assert t.meta["correct"] is True and t.divergence is None


def test_stopping_short_is_reported_at_the_last_step() -> None:
    t = trace(INSTANCE, extract(block('s = s.replace("ab", "xyz")', 's = s.replace("y", "")')))
    d = t.divergence
    assert d is not None and d["kind"] == "stopped_short"
    assert (d["step"], d["example"], d["string"], d["reference_step"], d["reference_next"]) == (2, 1, "bxz", 2, "xz")


def test_invalid_rule_is_an_identity_step() -> None:
    t = trace(INSTANCE, extract(block('s = s.replace("", "q")', 's = s.replace("ab", "xz")')))
    step = t.steps[1]
    assert step.data["valid"] is False and step.data["rule"] is None and step.data["error"] == "empty_lhs"
    assert step.data["after"] == step.data["before"] == INSTANCE.inputs
    assert step.data["changed"] == [False, False, False] and step.data["spans"] == [[], [], []]
    assert "identity" in step.label


def test_answer_trace_uses_the_last_block_and_only_k_rules() -> None:
    text = block('s = s.replace("q", "z")') + block(*[f's = s.replace("{c}", "z")' for c in "abcdefg"])
    t = trace(make(["abab"], GT, k=4), extract(text))
    assert len(t.steps) == 4 + 1 and t.steps[1].data["rule"] == ["a", "z"]


def test_no_code_block_traces_the_identity() -> None:
    t = trace(INSTANCE, extract("I cannot solve this."))
    assert len(t.steps) == 1 and t.steps[0].data["match"] == [False, False, True]
    assert t.divergence is not None and t.divergence["kind"] == "stopped_short" and t.divergence["step"] == 0


def test_without_ground_truth_there_is_no_reference() -> None:
    inst = make(["ab"], None, outputs=["c"])
    t = trace(inst, Answer.success([["ab", "c"]]))
    assert t.reference is None and t.divergence is None and t.meta["correct"] is True
    assert "no ground-truth" in trace(inst).meta["note"]


def test_overflowing_answer_is_traced_within_the_length_limit() -> None:
    t = trace(make(["aa"], [("a", "b")], k=30), Answer.success([["a", "aaaa"]] * 30))
    assert len(t.steps) == 31
    assert all(len(s) < 1000 for step in t.steps for s in step.data["after"])
    assert all(e <= len(step.data["after"][0]) for step in t.steps[1:] for _s, e in step.data["spans"][0])


def test_to_text_lists_every_rule() -> None:
    text = trace(INSTANCE).to_text()
    assert "ground truth, 3 rules, 3 of 3 outputs match" in text
    assert '[3] rule 3: replace("bx", "x")' in text


RULES = st.lists(st.tuples(st.text("abc", min_size=1, max_size=3), st.text("abc", max_size=3)), max_size=5)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text("abc", max_size=8), min_size=1, max_size=4), RULES)
def test_spans_cover_exactly_the_written_rhs_and_steps_follow_replace(inputs: list[str], rules: list) -> None:
    inst = make(inputs, rules, k=5)
    t = trace(inst)
    assert len(t.steps) == len(rules) + 1 and t.steps[-1].data["all_match"]
    for step, (lhs, rhs) in zip(t.steps[1:], rules, strict=True):
        for before, after, spans in zip(step.data["before"], step.data["after"], step.data["spans"], strict=True):
            assert after == before.replace(lhs, rhs)
            assert len(spans) == before.count(lhs)
            assert all(after[s:e] == rhs for s, e in spans)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["```\n", "s = s.replace(", '"ab"', '"x"', '""', ", ", ")\n", "y", "</think>"]),
                max_size=20).map("".join))
def test_trace_never_raises_on_any_extraction_result(text: str) -> None:
    t = trace(INSTANCE, extract(text, INSTANCE))
    assert t.reference is not None and t.steps[0].kind == "start"
