"""specs completeness on a real LocalCluster (127.0.0.1): each mutant's WP run (for the mutants its run
did not kill) is a task of its own, and the verdicts combined on the driver are those of the in-process
check (completeness included)."""

from __future__ import annotations

import pytest

from core.family import get_family


def _fenced(text: str) -> str:
    return f"Here is the annotated program.\n```c\n{text.rstrip()}\n```\n"


def test_answers_known_at_once_are_spread_over_every_worker() -> None:
    from core.cluster.session import BATCH_CHUNK, CHEAP_CHUNK, Admission, ClusterSession

    session = ClusterSession.__new__(ClusterSession)  # the arithmetic only: no cluster
    session.admission = Admission(admitted=["tcp://a", "tcp://b"])
    specs, cascade = get_family("specs"), get_family("cascade")
    assert session.spread_chunk(specs, 6) == 3  # was one chunk of 6: one worker idle
    assert session.spread_chunk(specs, 100) == BATCH_CHUNK
    assert session.spread_chunk(specs, 1) == 1
    assert session.spread_chunk(cascade, 100_000) == CHEAP_CHUNK
    assert session.spread_chunk(cascade, 2_000) == 1_000
    session.admission = Admission(admitted=["tcp://a"])
    assert session.spread_chunk(specs, 6) == 6


@pytest.mark.framac
def test_completeness_mutants_are_tasks_of_their_own_with_in_process_verdicts() -> None:
    from core.cluster.checks import check_all
    from core.cluster.session import ClusterSession
    from core.families.specs.generator import generate_one
    from core.tools import configure

    fam = get_family("specs")
    inst = generate_one({"variants": "base", "programs": "max_of_two"}, 0, 0)
    # only `\result == a || \result == b`: a mutant that returns the other one keeps it (WP must decide)
    weak = inst.reference().replace("    ensures \\result >= a && \\result >= b;\n", "")
    assert weak != inst.reference()
    pairs = [(inst, _fenced(inst.reference())), (inst, _fenced(weak))]
    configure(None)  # the in-process verdicts: this process's own cache, in memory
    local = fam.check_many(pairs)
    comps = [v.details.get("completeness") for _, v in local]
    assert all(c and c.get("evaluated") for c in comps), comps  # both verify and have mutants to run

    with ClusterSession(workers=2) as session:
        remote = check_all(session, fam, pairs, None)  # workers with empty caches: every tool run again
        tasks = session.dispatcher.tasks_done
    # a chunk per worker (two answers, two workers: one each, not both on one worker while the other
    # idles), then one task per mutant of each answer that its run did not kill
    assert tasks == 2 + sum(c["wp_runs"] for c in comps)
    assert any(c["wp_runs"] for c in comps), "the weak contract leaves mutants for WP"
    for (la, lv), (ra, rv) in zip(local, remote, strict=True):
        assert ra == la
        assert (rv.status, rv.correct, rv.score, rv.explanation) == (lv.status, lv.correct, lv.score, lv.explanation)
        assert rv.details["completeness"] == lv.details["completeness"]
        assert [(d.label, d.got, d.ok, d.note) for d in rv.diff] == [(d.label, d.got, d.ok, d.note) for d in lv.diff]
