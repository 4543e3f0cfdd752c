"""The runner's one-pass columns (AttemptRecord.columns) store exactly what the general path stores
(attempt_columns(record.row())): text made safe, big integers as text, secrets redacted in every field
and the redaction noted in usage, JSON columns in canonical form."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.attempts import AttemptRecord
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


@st.composite
def records(draw: st.DrawFn) -> AttemptRecord:
    answer = draw(st.one_of(st.none(), st.builds(
        Answer, ok=st.booleans(), value=jsonish, error=st.one_of(st.none(), texts), message=texts,
        details=st.dictionaries(texts, jsonish, max_size=2))))
    verdict = draw(st.one_of(st.none(), st.builds(
        Verdict, correct=st.booleans(), score=st.floats(allow_nan=False, allow_infinity=False), status=texts,
        expected=jsonish, got=jsonish, explanation=texts)))
    return AttemptRecord(
        run_id=draw(st.one_of(st.none(), texts)), snapshot="s", instance_id=draw(texts), family="toy",
        sample=draw(st.integers(min_value=0, max_value=2**66)), solver=draw(texts), source="run",
        prompt=draw(st.dictionaries(texts, jsonish, max_size=2)), response=draw(texts),
        reasoning=draw(st.one_of(st.none(), texts)), answer=answer, verdict=verdict,
        correct=draw(st.one_of(st.none(), st.booleans())), score=draw(st.one_of(st.none(), st.floats(allow_nan=False))),
        status=draw(st.one_of(st.none(), texts)), error=draw(st.one_of(st.none(), texts)),
        started=draw(st.sampled_from(["", "2026-11-25T18:00:00"])), elapsed_s=1.5,
        tokens_in=draw(st.one_of(st.none(), st.integers(0, 10**6))),
        usage=draw(st.dictionaries(texts, jsonish, max_size=3)), cached=draw(st.booleans()),
    )


def _comparable(columns: dict) -> dict:
    # `started` is filled with the time of writing when empty: equal up to the clock
    return {**columns, "started": "now" if columns["started"] != "2026-11-25T18:00:00" else columns["started"]}


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
def test_one_pass_columns_equal_the_general_path(known_key, record: AttemptRecord, shared_prompt: bool) -> None:
    prompt_json = '{"messages":[]}' if shared_prompt else None
    general = _comparable(attempt_columns(record.row(exclude={"prompt"} if shared_prompt else None), prompt_json))
    fast = _comparable(record.columns(prompt_json))
    assert {k: v for k, v in fast.items() if v != general[k]} == {}, general
    assert list(fast) == list(general), "same columns in the same order (one statement per column set)"
    if known_key:
        assert not any(isinstance(v, str) and known_key[:12] in v for v in fast.values())


def test_a_lone_surrogate_in_a_key_is_stored_as_the_replacement_character() -> None:
    """pydantic cannot write a lone surrogate in a dict key as JSON; the stored copy replaces it, on
    both paths, instead of failing the attempt (and with it a run)."""
    record = AttemptRecord(instance_id="i", family="toy", solver="s", usage={"k\ud800": 1},
                           answer=Answer(ok=True, value={"v\udfff": [1, ("t", 2)]}))
    for columns in (record.columns(), attempt_columns(record.row())):
        assert '"k\ufffd":1' in columns["usage"] and '"v\ufffd":[1,["t",2]]' in columns["answer"]


def test_a_redacted_reply_is_noted_in_usage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_registered", set())
    monkeypatch.setattr(secrets, "_known_memo", {"key": None, "value": ()})
    secrets.register(SECRET)
    record = AttemptRecord(instance_id="i", family="toy", solver="s", response=f"key {SECRET}",
                           reasoning=f"the key was {SECRET[:14]}", usage={"prompt_tokens": 3})
    columns = record.columns()
    assert SECRET[:12] not in columns["response"] + columns["reasoning"]
    assert '"redacted":["reasoning","response"]' in columns["usage"]
