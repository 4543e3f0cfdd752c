"""No column the browser shows gives the answer away by its order: in every bundled snapshot of every
family, neither an instance's index (the browser's `#` and its default order, which a human session built
from the list keeps) nor its id guesses the ground truth better than chance. For binary truths (membership's
True/False) the index's parity, the index modulo 3 and 4, and the id's last hex digit's parity each agree
with the truth on 40-60% of the instances; for other truths, grouping by the index modulo 2-4 predicts the
truth no better than its most common value does, by more than ten points. The features the browser shows
are the families' declared difficulty features, which may correlate with the answer by design (that is
what a difficulty feature is); the spoilers among them are never shown."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable

import pytest

from core.canonical import canonical_json
from core.family import get_family
from core.store import BUNDLED_SNAPSHOTS, SnapshotStore

pytestmark = pytest.mark.skipif(not BUNDLED_SNAPSHOTS.exists(), reason="snapshots.db not built yet")
STORE = SnapshotStore(BUNDLED_SNAPSHOTS) if BUNDLED_SNAPSHOTS.exists() else None
SNAPSHOTS = [(s.name, s.family) for s in STORE.snapshots()] if STORE is not None else []


def truths(snapshot: str, family_id: str) -> list[tuple[int, str, str]]:
    """(index, id, the truth as a model's reply would state it) of every instance, in the browser's order."""
    fam = get_family(family_id)
    out = []
    for index, (_, _, _, data) in enumerate(STORE.instance_rows(snapshot)):
        inst = fam.parse_instance(data)
        out.append((index, inst.id, canonical_json(fam.oracle_response(inst))))
    return out


def grouped_accuracy(rows: list[tuple[int, str, str]], key: Callable[[int, str], object]) -> float:
    """How often the most common truth of an instance's group (by `key`) is its truth."""
    groups: dict[object, Counter[str]] = defaultdict(Counter)
    for index, iid, truth in rows:
        groups[key(index, iid)][truth] += 1
    return sum(c.most_common(1)[0][1] for c in groups.values()) / len(rows)


@pytest.mark.parametrize(("snapshot", "family_id"), SNAPSHOTS, ids=[name for name, _ in SNAPSHOTS])
def test_no_shown_order_predicts_the_truth(snapshot: str, family_id: str) -> None:
    rows = truths(snapshot, family_id)
    values = Counter(truth for _, _, truth in rows)
    keys: dict[str, Callable[[int, str], object]] = {
        "index parity": lambda i, _: i % 2, "index mod 3": lambda i, _: i % 3, "index mod 4": lambda i, _: i % 4,
    }
    if len(values) == 2:
        keys["id's last hex digit's parity"] = lambda _, iid: int(iid[-1], 16) % 2 if iid[-1] in "0123456789abcdef" else iid[-1]
        positive = values.most_common()[-1][0]
        agree = sum((truth == positive) == (index % 2 == 0) for index, _, truth in rows) / len(rows)
        assert 0.4 <= agree <= 0.6, f"{snapshot}: the index's parity agrees with the truth on {agree:.0%}"
        for name, key in keys.items():
            accuracy = grouped_accuracy(rows, key)
            assert accuracy <= 0.6, f"{snapshot}: the {name} guesses the truth on {accuracy:.0%}"
    else:
        chance = values.most_common(1)[0][1] / len(rows)
        for name, key in keys.items():
            accuracy = grouped_accuracy(rows, key)
            assert accuracy <= chance + 0.1, f"{snapshot}: the {name} guesses the truth on {accuracy:.0%} ({chance:.0%})"


def test_membership_snapshots_have_binary_truths() -> None:
    """The binary branch above is the one membership's snapshots take (the check is not vacuous)."""
    names = [name for name, family in SNAPSHOTS if family == "membership"]
    assert names
    for name in names[:2]:
        assert len({truth for _, _, truth in truths(name, "membership")}) == 2
