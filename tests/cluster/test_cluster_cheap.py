"""Cheap families on a real 2-worker LocalCluster (127.0.0.1): a chunk's results travel as one compact
blob and are built back on the driver without validating them again; the (answer, verdict) pairs are
exactly the in-process ones, right and wrong answers alike (diff rows with their spans included)."""

from __future__ import annotations

import pytest

from core.family import get_family


@pytest.fixture(scope="module")
def session():
    from core.cluster.session import ClusterSession

    with ClusterSession(workers=2) as made:
        yield made


def _answers(family_id: str, preset: str, distinct: int, total: int) -> list:
    fam = get_family(family_id)
    instances = list(fam.generate(fam.resolve_params(preset), 3, distinct))
    responses = []
    for inst in instances:
        responses.append((inst, fam.oracle_response(inst)))
        responses.extend((inst, wrong) for wrong in fam.wrong_responses(inst)[:3])
        responses.append((inst, "I do not know."))
    return [responses[i % len(responses)] for i in range(total)]


@pytest.mark.parametrize(("family_id", "preset"), [("cascade", "pbebench-lite"), ("membership", "pag-default")])
def test_cluster_verdicts_equal_in_process_ones(session, family_id: str, preset: str) -> None:
    from core.cluster.checks import check_all

    fam = get_family(family_id)
    pairs = _answers(family_id, preset, 60, 3000)
    local = fam.check_many(pairs)
    remote = check_all(session, fam, pairs, None)
    assert len(remote) == len(local)
    assert any(not v.correct for _, v in local) and any(v.correct for _, v in local)
    for (la, lv), (ra, rv) in zip(local, remote, strict=True):
        assert (ra, rv) == (la, lv)
        assert rv.model_dump_json() == lv.model_dump_json() and ra.model_dump_json() == la.model_dump_json()


def test_a_chunks_results_are_one_compact_blob() -> None:
    """What a worker sends back for a chunk: one bytes blob (not a dict per verdict), which the driver
    reads back to the very same pairs."""
    from core.cluster import remote

    fam = get_family("cascade")
    pairs = _answers("cascade", "pbebench-lite", 5, 40)
    expected = {"fingerprint": remote.code_fingerprint(), "tools": remote.tool_versions()}
    payload = {"instances": {i.id: i.model_dump_json() for i, _ in pairs}, "items": [(i.id, r) for i, r in pairs]}
    out = remote.check_chunk("cascade", expected, payload)
    assert isinstance(out["checked_json"], bytes) and "checked" not in out
    assert remote.decode_checked(out) == fam.check_many(pairs)
    # a verdict quoting a lone surrogate from a reply cannot be written as JSON text, nor a score that is not
    # finite (JSON writes null): that chunk goes as plain values, equal all the same
    answer, verdict = fam.check_many(pairs[:1])[0]
    for update in ({"explanation": "got \ud800"}, {"score": float("inf")}):
        odd = [(answer, verdict.model_copy(update=update))]
        out = remote.encode_checked(odd)
        assert "checked_json" not in out and remote.decode_checked(out) == odd
