"""Every bundled instance's ground truth verifies: the oracle (the truth rendered as a model's reply)
replayed through the family's extract and verify, for every instance of every snapshot in
snapshots.db, must be judged correct — 100%, not a sample, except for specs.

specs: a WP proof takes seconds to a minute per contract, so a fixed sample: in each snapshot the first
loop-free instance a transformation changed (formalbench-c has no transformations: its first loop-free
one). The untransformed references of every corpus program are proved one by one in
tests/families/specs/test_specs_corpus.py, one transformed reference per transformation in
tests/families/specs/test_specs_transform.py; all three go through the session's tool cache.

imports: the compile check is left out here (it never changes `correct`, core/families/imports/verify.py,
and costs a minute of javac over 1,240 snippets); tests/families/imports/test_imports_javac.py compiles
the snippets with their truths."""

from __future__ import annotations

import pytest

from core.family import get_family
from core.store import BUNDLED_SNAPSHOTS, SnapshotStore

pytestmark = [pytest.mark.skipif(not BUNDLED_SNAPSHOTS.exists(), reason="snapshots.db not built yet"),
              pytest.mark.usefixtures("shared_tool_cache")]
STORE = SnapshotStore(BUNDLED_SNAPSHOTS) if BUNDLED_SNAPSHOTS.exists() else None
SNAPSHOTS = [(s.name, s.family) for s in STORE.snapshots()] if STORE is not None else []


def _specs_sample(rows: list[dict]) -> list[dict]:
    loop_free = [r for r in rows if not r["meta"].get("loops")]
    transformed = [r for r in loop_free if r["meta"].get("transformation") not in (None, "none")]
    return (transformed or loop_free)[:1]


def _params():
    for name, family in SNAPSHOTS:
        marks = [pytest.mark.framac] if family == "specs" else []
        yield pytest.param(name, family, id=name, marks=marks)


@pytest.mark.parametrize(("snapshot", "family_id"), _params())
def test_the_oracle_of_every_bundled_instance_verifies(snapshot: str, family_id: str, monkeypatch) -> None:
    fam = get_family(family_id)
    rows = [data for _, _, _, data in STORE.instance_rows(snapshot)]
    assert rows
    if family_id == "specs":
        rows = _specs_sample(rows)
        monkeypatch.setenv("SEMBENCH_SPECS_COMPLETENESS", "0")  # consistency only: mutants are not the truth's
        assert len(rows) == 1
    if family_id == "imports":
        from core.families.imports import verify as imports_verify

        monkeypatch.setattr(imports_verify, "_javac_ok", lambda: False)
    instances = [fam.parse_instance(row) for row in rows]
    checked = fam.check_many([(inst, fam.oracle_response(inst)) for inst in instances])
    wrong = [(inst.id, verdict.status, verdict.explanation[:300])
             for inst, (_, verdict) in zip(instances, checked, strict=True) if not verdict.correct]
    assert not wrong, f"{len(wrong)} of {len(instances)} ground truths do not verify: {wrong[:5]}"
    assert len(checked) == len(instances)


def test_every_family_with_a_bundled_snapshot_is_replayed() -> None:
    families = {family for _, family in SNAPSHOTS}
    assert {"cascade", "membership", "typeinf", "imports", "specs"} <= families
