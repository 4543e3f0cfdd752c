"""The corpus: at least 10 programs per control-flow class, well-formed metadata, and every reference
contract proved completely by WP with -wp-rte (the Done-when's first item)."""

from __future__ import annotations

import collections

import pytest

from core.families.specs.corpus import entries
from core.families.specs.csyntax import CONTROL_FLOWS, control_flow, signature, strip_annotations
from core.families.specs.inputs import HarnessSpec, normalise, supported
from core.families.specs.wp import run_wp

NAMES = [e["name"] for e in entries()]


def test_at_least_ten_programs_per_control_flow_class():
    counts = collections.Counter(e["control_flow"] for e in entries())
    assert len(NAMES) >= 60
    assert set(counts) == set(CONTROL_FLOWS)
    assert all(n >= 10 for n in counts.values()), counts


@pytest.mark.parametrize("name", NAMES)
def test_metadata_matches_the_code(name):
    entry = next(e for e in entries() if e["name"] == name)
    ref = entry["reference"]
    assert control_flow(ref, entry["function"]) == entry["control_flow"]
    assert len(entry["description"]) > 30 and entry["tests"]
    sig = signature(ref, entry["function"])
    assert supported(sig) == ""
    spec = HarnessSpec(arrays=entry["arrays"], ranges=entry["ranges"])
    assert all(normalise(sig, spec, t) is not None for t in entry["tests"])
    assert "/*@" not in strip_annotations(ref) and "//@" not in strip_annotations(ref)


@pytest.mark.framac
@pytest.mark.parametrize("name", NAMES)
def test_reference_contract_proves(name):
    entry = next(e for e in entries() if e["name"] == name)
    result = run_wp(entry["reference"])
    assert result.outcome == "proved", [(g.kind, g.line, g.status) for g in result.failing] or result.error_message
    # every goal but the function-wide ones (assigns, behaviors) points at its source line
    assert result.goals and all(g.line for g in result.goals if "ssigns" not in g.kind and "behaviors" not in g.kind)
