"""What an attempt's stored columns (attempt_columns(record.row())) hold, whatever the record holds: text
SQLite and UTF-8 accept, integers SQLite can hold, no secret nor a piece of one in any field, JSON columns
in canonical form, and a redaction of the reply noted in usage."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.attempts import AttemptRecord, stored_value
from core.canonical import canonical_json
from core.models import secrets
from core.store.log import attempt_columns
from core.verdict import Answer, Verdict

SECRET = "sk-columns-0123456789abcdefXYZ"

texts = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["", "plain", "caf\u00e9", "lone \ud800 surrogate", f"echo {SECRET} back",
                     f"piece {SECRET[3:17]}", "\udfff", SECRET]),
)
scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                    st.floats(allow_nan=False), texts)
jsonish = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(texts, inner, max_size=3)), max_leaves=8)


# Strategies built once: built inside `records` at every draw, each new `builds`/`one_of` was validated again
# (hypothesis walks the recursive `jsonish` for emptiness), about half of these tests' time. The same draws.
answers = st.one_of(st.none(), st.builds(
    Answer, ok=st.booleans(), value=jsonish, error=st.one_of(st.none(), texts), message=texts,
    details=st.dictionaries(texts, jsonish, max_size=2)))
verdicts = st.one_of(st.none(), st.builds(
    Verdict, correct=st.booleans(), score=st.floats(allow_nan=False, allow_infinity=False), status=texts,
    expected=jsonish, got=jsonish, explanation=texts))
optional_texts = st.one_of(st.none(), texts)
optional_booleans = st.one_of(st.none(), st.booleans())
optional_scores = st.one_of(st.none(), st.floats(allow_nan=False))
samples = st.integers(min_value=0, max_value=2**66)
prompts = st.dictionaries(texts, jsonish, max_size=2)
usages = st.dictionaries(texts, jsonish, max_size=3)
starts = st.sampled_from(["", "2026-11-25T18:00:00"])
token_counts = st.one_of(st.none(), st.integers(0, 10**6))


@st.composite
def records(draw: st.DrawFn) -> AttemptRecord:
    answer = draw(answers)
    verdict = draw(verdicts)
    return AttemptRecord(
        run_id=draw(optional_texts), snapshot="s", instance_id=draw(texts), family="toy",
        sample=draw(samples), solver=draw(texts), source="run",
        prompt=draw(prompts), response=draw(texts),
        reasoning=draw(optional_texts), answer=answer, verdict=verdict,
        correct=draw(optional_booleans), score=draw(optional_scores),
        status=draw(optional_texts), error=draw(optional_texts),
        started=draw(starts), elapsed_s=1.5,
        tokens_in=draw(token_counts),
        usage=draw(usages), cached=draw(st.booleans()),
    )


@pytest.fixture(params=["no secret", "a secret"])
def known_key(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str | None:
    monkeypatch.setattr(secrets, "_registered", set())
    monkeypatch.setattr(secrets, "_known_memo", {"key": None, "value": ()})
    if request.param == "a secret":
        secrets.register(SECRET)
        return SECRET
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(record=records(), shared_prompt=st.booleans())
def test_stored_columns_are_safe_whatever_the_record_holds(known_key, record: AttemptRecord,
                                                          shared_prompt: bool) -> None:
    prompt_json = '{"messages":[]}' if shared_prompt else None
    columns = attempt_columns(record.row(exclude={"prompt"} if shared_prompt else None), prompt_json)
    assert list(columns)[-1] == "started" or columns["started"], "the time of writing fills an empty start"
    for name, value in columns.items():
        assert value is None or type(value) in (str, int, float), (name, value)
        if isinstance(value, int):
            assert -(2**63) <= value < 2**63, (name, value)
        if isinstance(value, str):
            value.encode("utf-8")  # no lone surrogate left
            if known_key:
                assert known_key[:12] not in value and known_key[3:15] not in value, (name, value)
    for name in ("usage", "prompt"):
        assert canonical_json(json.loads(columns[name])) == columns[name], name
    for name in ("answer", "verdict"):
        model = getattr(record, name)
        if model is None:
            assert columns[name] is None
            continue
        # pydantic's own JSON when it can be stored as it is, else the dump made safe: the same values
        stored = json.loads(columns[name])
        if not known_key:
            assert stored == stored_value(model, as_text=False), name
        type(model).model_validate(stored)  # what the report and the TUI read back
    if prompt_json:
        assert columns["prompt"] == prompt_json


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(record=records(), shared_prompt=st.booleans())
def test_one_pass_columns_equal_row_then_attempt_columns(known_key, record: AttemptRecord,
                                                         shared_prompt: bool) -> None:
    """AttemptRecord.columns (the runner's one pass) stores exactly what row() then attempt_columns()
    store, column for column and in the same order, with and without a known secret."""
    prompt_json = '{"messages":[]}' if shared_prompt else None
    expected = attempt_columns(record.row(exclude={"prompt"} if shared_prompt else None), prompt_json)
    got = record.columns(prompt_json)
    if not record.started:  # both fill an empty start with the time of writing
        assert got["started"] and expected["started"]
        got["started"] = expected["started"]
    assert list(got.items()) == list(expected.items())
    assert [type(v) for v in got.values()] == [type(v) for v in expected.values()]


def test_a_lone_surrogate_in_a_key_is_stored_as_the_replacement_character() -> None:
    """pydantic cannot write a lone surrogate in a dict key as JSON; the stored copy replaces it by one
    U+FFFD instead of failing the attempt (and with it a run)."""
    record = AttemptRecord(instance_id="i", family="toy", solver="s", usage={"k\ud800": 1},
                           answer=Answer(ok=True, value={"v\udfff": [1, ("t", 2)]}))
    columns = attempt_columns(record.row())
    assert '"k\ufffd":1' in columns["usage"] and '"v\ufffd":[1,["t",2]]' in columns["answer"]


def test_a_redacted_reply_is_noted_in_usage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_registered", set())
    monkeypatch.setattr(secrets, "_known_memo", {"key": None, "value": ()})
    secrets.register(SECRET)
    record = AttemptRecord(instance_id="i", family="toy", solver="s", response=f"key {SECRET}",
                           reasoning=f"the key was {SECRET[:14]}", usage={"prompt_tokens": 3})
    columns = attempt_columns(record.row())
    assert SECRET[:12] not in columns["response"] + columns["reasoning"]
    assert '"redacted":["reasoning","response"]' in columns["usage"]


# An escaped character in every 12-character piece: no piece of the key is in the JSON text as written.
@pytest.mark.parametrize("secret", ['sk-ab"cdefg"hijkl"mnopq"', "sk-ab\\cdefg\\hijkl\\mnopq",
                                    "sk-ab\tcdefg\thijkl\tmnopq"])
def test_a_key_json_would_escape_is_still_redacted_in_json_columns(monkeypatch: pytest.MonkeyPatch,
                                                                    secret: str) -> None:
    """A model field is stored as pydantic writes it when nothing in it needs redacting; a key that
    JSON writes escaped cannot be searched for in that text, so the field is scrubbed value by value."""
    monkeypatch.setattr(secrets, "_registered", set())
    monkeypatch.setattr(secrets, "_known_memo", {"key": None, "value": ()})
    secrets.register(secret)
    record = AttemptRecord(instance_id="i", family="toy", solver="s",
                           answer=Answer(ok=True, value={"echo": secret}, message="m"),
                           verdict=Verdict(correct=False, score=0.0, status="wrong", got=[secret, 2**64]))
    columns = attempt_columns(record.row())
    for name in ("answer", "verdict"):
        assert not any(secret[:12] in text for text in _strings(json.loads(columns[name]))), name
    assert json.loads(columns["verdict"])["got"][1] == str(2**64)


def test_a_key_piece_outside_a_json_string_leaves_the_column_valid_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """Redacting pydantic's JSON text where a key's piece is a number would leave `[redacted key]`
    unquoted; such a field is made safe value by value instead, and stays JSON its readers parse."""
    monkeypatch.setattr(secrets, "_registered", set())
    monkeypatch.setattr(secrets, "_known_memo", {"key": None, "value": ()})
    secrets.register("k-1234567890123456")
    record = AttemptRecord(instance_id="i", family="toy", solver="s",
                           answer=Answer(ok=True, value=[1234567890123456, "k-1234567890123456"], message="m"))
    columns = attempt_columns(record.row())
    stored = Answer.model_validate_json(columns["answer"])
    assert stored.value[1] == secrets.MARK


def _strings(value: object) -> list[str]:
    """Every string in a JSON value, dict keys included, as a reader would get it back."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in [k, *_strings(v)]]
    if isinstance(value, list):
        return [t for v in value for t in _strings(v)]
    return []
