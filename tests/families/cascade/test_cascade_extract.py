"""Extraction of cascades from model responses: variants, first/last block, invalid programs, robustness."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.families.cascade.extract import MAX_PROGRAMS_KEPT, extract
from core.verdict import Answer


def rules(answer: Answer, which: str = "last") -> list[tuple[str | None, str | None, bool, str | None]]:
    assert answer.ok, answer.message
    return [(p["lhs"], p["rhs"], p["valid"], p["error"]) for p in answer.value[which]["programs"]]


def pairs(answer: Answer, which: str = "last") -> list[tuple[str | None, str | None]]:
    return [(lhs, rhs) for lhs, rhs, _valid, _error in rules(answer, which)]


def block(code: str, lang: str = "python") -> str:
    return f"Here is my answer.\n\n```{lang}\n{code}\n```\n"


# ---- accepted variants -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "code",
    [
        's = s.replace("ab", "c")\ns = s.replace("c", "d")',
        "s.replace('ab','c')\ns.replace('c','d')",
        'x = x.replace("ab", "c")\n\n# then\nx = x.replace("c", "d")  # second',
        'input = input.replace("ab", "c").replace("c", "d")',
        'def f(s):\n    s = s.replace("ab", "c")\n    return s.replace("c", "d")\n\nprint(f("abab"))',
        's = str.replace(s, "ab", "c")\ns = str.replace(s, "c", "d")',
        's = (\n    s.replace("ab", "c")\n     .replace("c", "d")\n)',
        'def f(s):\n    s = s.replace("ab", "c")\n    s = s.replace("c", "d")\n    return s\ns = f(s)',
    ],
)
def test_reasonable_variants_give_the_same_cascade(code: str) -> None:
    answer = extract(block(code))
    assert rules(answer) == [("ab", "c", True, None), ("c", "d", True, None)]


def test_tilde_fence_indented_block_and_untagged_fence_are_blocks() -> None:
    assert pairs(extract('~~~\ns = s.replace("a", "b")\n~~~')) == [("a", "b")]
    indented = '1. The cascade:\n   ```python\n   s = s.replace("a", "b")\n   s = s.replace("b", "c")\n   ```\n'
    assert pairs(extract(indented)) == [("a", "b"), ("b", "c")]
    assert extract(indented).value["last"]["mode"] == "block"  # indentation does not matter to the reader


def test_closing_fence_glued_to_the_last_line_closes_the_block() -> None:
    answer = extract('```python\ns = s.replace("a", "b")```\nAnd `s.replace("q", "r")` is prose.')
    assert pairs(answer) == [("a", "b")]
    assert answer.value["last"]["closed"] is True


def test_unclosed_final_block_runs_to_the_end() -> None:
    answer = extract('```python\ns = s.replace("a", "b")\ns = s.replace("b", "c"')
    assert rules(answer) == [("a", "b", True, None), (None, None, False, "unparsable")]
    assert answer.value["last"]["closed"] is False


def test_escapes_and_implicit_concatenation_are_read_as_python_literals() -> None:
    answer = extract(block(r's = s.replace("a\"b", "\x41") ; s = s.replace("c" "d", "")'))
    assert pairs(answer) == [('a"b', "A"), ("cd", "")]


# ---- first and last block --------------------------------------------------------------------------
def test_first_and_last_blocks_are_both_kept() -> None:
    text = (block('s = s.replace("a", "b")') + "Wait, that is wrong. Let me fix it.\n"
            + block('s = s.replace("a", "c")\ns = s.replace("c", "d")'))
    answer = extract(text)
    assert pairs(answer, "first") == [("a", "b")]
    assert pairs(answer, "last") == [("a", "c"), ("c", "d")]
    assert answer.value["n_blocks"] == 2


def test_blocks_without_replace_are_not_answers_when_another_block_has_one() -> None:
    text = block('s = s.replace("a", "b")') + block("abc -> bbc\nca -> cb", lang="text")
    answer = extract(text)
    assert pairs(answer, "last") == [("a", "b")] and pairs(answer, "first") == [("a", "b")]
    assert answer.value["n_blocks"] == 2 and answer.value["n_candidates"] == 1


def test_details_record_the_raw_blocks_read_beside_the_literal_first_and_last() -> None:
    # blocks: 0 = the examples restated, 1 = the answer, 2 = a revised answer, 3 = a test printout
    text = (block("abc -> bbc", lang="text") + block('s = s.replace("a", "b")')
            + block('s = s.replace("a", "c")') + block("bbc\ncb", lang="text"))
    details = extract(text).details
    assert (details["n_blocks"], details["first_block"], details["last_block"]) == (4, 1, 2)
    assert details["literal_first_last"] == [0, 3] and details["filter_changed_choice"] is True
    plain = extract(block('s = s.replace("a", "b")') + block('s = s.replace("a", "c")')).details
    assert (plain["first_block"], plain["last_block"], plain["literal_first_last"]) == (0, 1, [0, 1])
    assert plain["filter_changed_choice"] is False
    none_mention = extract(block("print(1)") + block("print(2)")).details  # none mentions replace: literal
    assert (none_mention["first_block"], none_mention["last_block"], none_mention["filter_changed_choice"]) == (
        0, 1, False)
    assert extract("no code at all").details["n_blocks"] == 0


def test_only_blocks_without_replace_give_an_empty_cascade() -> None:
    answer = extract(block("print('hello')"))
    assert answer.ok and rules(answer) == []


def test_all_programs_are_kept_for_the_verifier_to_truncate() -> None:
    code = "\n".join(f's = s.replace("a{i}", "b")' for i in range(40))
    answer = extract(block(code))
    assert len(rules(answer)) == 40 and pairs(answer)[-1] == ("a39", "b")


def test_program_count_is_capped_on_absurd_responses() -> None:
    code = 's = s.replace("a", "b")\n' * (MAX_PROGRAMS_KEPT + 50)
    answer = extract(block(code))
    assert len(rules(answer)) == MAX_PROGRAMS_KEPT and answer.value["last"]["capped"] is True


# ---- invalid programs ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "error"),
    [
        ('s = s.replace("", "x")', "empty_lhs"),
        ('s = s.replace(old, "x")', "non_string"),
        ('s = s.replace(f"{a}", "x")', "non_string"),
        ('s = s.replace("a", 1)', "non_string"),
        ('s = s.replace(b"a", b"x")', "non_string"),
        ('s = s.replace("a" + "b", "x")', "non_string"),
        ('s = s.replace("a")', "arity"),
        ('s = s.replace("a", "b", 1)', "arity"),
        ('s = s.replace("a", "b", count=1)', "arity"),
        ('s = s.replace(*pair)', "arity"),
        ('s = re.sub("a", "b", s)', "not_replace"),
        ("s = s.upper()", "not_replace"),
        ('s += "x"', "not_replace"),
        ('s = replace(s, "a", "b")', "not_replace"),
    ],
)
def test_each_kind_of_invalid_program_is_kept_in_place_and_flagged(line: str, error: str) -> None:
    answer = extract(block(f's = s.replace("a", "b")\n{line}\ns = s.replace("b", "c")'))
    got = rules(answer)
    assert len(got) == 3
    assert got[0] == ("a", "b", True, None) and got[2] == ("b", "c", True, None)
    assert got[1][2] is False and got[1][3] == error
    assert answer.value["last"]["programs"][1]["source"]  # something to show the human


def test_an_unparsable_line_is_one_invalid_program_and_the_rest_still_count() -> None:
    answer = extract(block('s = s.replace("a", "b")\ns = s.replace("b" "c"\nthis is prose\ns = s.replace("c", "d")'))
    assert rules(answer) == [("a", "b", True, None), (None, None, False, "unparsable"), ("c", "d", True, None)]
    assert answer.value["last"]["mode"] == "lines"


def test_harness_lines_are_not_programs() -> None:
    code = 's = input()\nt = s\ns = s\nprint(s)\nresult = [x for x in data]\ns = s.replace("a", "b")'
    assert pairs(extract(block(code))) == [("a", "b")]


# ---- no answer -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    ["", "I think the answer is s.replace('a', 'b').", "no code here\n``not a fence``", "``` only inline ```x"],
)
def test_no_code_block_is_a_typed_failure(text: str) -> None:
    answer = extract(text)
    assert not answer.ok and answer.error == "no_code_block" and answer.message


def test_replace_calls_outside_a_block_get_a_hint() -> None:
    answer = extract('s = s.replace("a", "b")')
    assert answer.error == "no_code_block" and "outside" in answer.message


def test_code_only_inside_think_is_not_an_answer() -> None:
    answer = extract("<think>\n" + block('s = s.replace("a", "b")') + "</think>\nI give up.")
    assert answer.error == "no_code_block" and answer.details["think"] == "stripped"


def test_think_block_is_dropped_before_choosing_first_and_last() -> None:
    text = "<think>" + block('s = s.replace("z", "y")') + "</think>" + block('s = s.replace("a", "b")')
    answer = extract(text)
    assert pairs(answer, "first") == [("a", "b")] == pairs(answer, "last")


# ---- never raises ----------------------------------------------------------------------------------
FRAGMENTS = st.sampled_from([
    "```", "```python\n", "~~~", "\n", "s = s.replace(", "s.replace", '"a"', "'b'", ", ", ")", "(", ".replace(",
    '""', "def f(s):\n", "    ", "return s", "<think>", "</think>", "#", "\\", "\x00", "f'{", "+", "=", "*",
    "replace(s, ", "str.replace(", "b'x'", "\r\n", "\u2028", "\ud800", "count=1", "lambda s: ", "[", "]",
])


def check_answer_shape(answer: Answer) -> None:
    assert isinstance(answer, Answer)
    assert Answer.model_validate_json(answer.model_dump_json()) == answer  # storable as JSON, as-is
    if answer.ok:
        details = answer.details
        assert (details["first_block"], details["last_block"]) == (
            answer.value["first"]["index"], answer.value["last"]["index"])
        assert details["n_blocks"] == answer.value["n_blocks"]
        assert details["literal_first_last"] == [0, details["n_blocks"] - 1]
        assert details["filter_changed_choice"] == (
            [details["first_block"], details["last_block"]] != details["literal_first_last"])
        for which in ("first", "last"):
            for p in answer.value[which]["programs"]:
                assert p["valid"] == (p["error"] is None)
                if p["valid"]:
                    assert isinstance(p["lhs"], str) and p["lhs"] and isinstance(p["rhs"], str)
    else:
        assert answer.error


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_extract_never_raises_on_arbitrary_text(text: str) -> None:
    check_answer_shape(extract(text))


@settings(max_examples=300, deadline=None)
@given(st.lists(FRAGMENTS, max_size=40).map("".join))
def test_extract_never_raises_on_fence_and_replace_fragments(text: str) -> None:
    check_answer_shape(extract(text))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_extract_never_raises_on_binaryish_text(data: bytes) -> None:
    check_answer_shape(extract("```\n" + data.decode("latin-1") + "\n```"))


def test_extract_never_raises_on_huge_or_pathological_text() -> None:
    cases = [
        "```python\n" + 's = s.replace("a", "b")\n' * 30_000 + "```",  # > MAX_AST_CHARS: line by line
        "```python\n" + "(" * 100_000 + "\n```",  # parser nesting limit
        "```python\ns = " + "-" * 50_000 + "s.replace('a', 'b')\n```",  # deep unary chain
        "```\n" * 50_000,
        "x" * 2_000_000,
        "```python\n" + 's = s.replace("a", "' + "b" * 500_000 + '")\n```',
    ]
    for text in cases:
        check_answer_shape(extract(text))
    assert pairs(extract(cases[0]))[:2] == [("a", "b"), ("a", "b")]


def test_lone_surrogates_never_reach_the_stored_answer() -> None:
    answer = extract('```python\ns = s.replace("\\ud800", "x")\n```\n```\ud800 lang\n\ud800\n```')
    check_answer_shape(answer)
    assert pairs(answer, "first") == [("\ufffd", "x")]


def test_non_text_input_is_a_failure_not_an_exception() -> None:
    answer = extract(None)  # type: ignore[arg-type]
    assert not answer.ok and answer.error == "not_text"
