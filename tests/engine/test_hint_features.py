"""Hint features: what reveals an answer's shape (a cascade's length, a type's polymorphism, how many
imports a snippet needs). A model's prompt never holds them; each family declares them, and `sembench
families` lists them so that a reader of a human baseline knows what the person did not see."""

from __future__ import annotations

import json

from click.testing import CliRunner

from core.cli import cli
from core.family import all_families


def test_families_lists_each_familys_hint_features() -> None:
    result = CliRunner().invoke(cli, ["families", "--format", "json"])
    assert result.exit_code == 0, result.output
    listed = {row["family"]: row for row in json.loads(result.output)}
    assert {"cascade_length", "feeding", "bleeding"} <= set(listed["cascade"]["hint_features"])
    assert "poly_type" in listed["typeinf"]["hint_features"]
    assert {"n_types", "n_ambiguous"} <= set(listed["imports"]["hint_features"])
    # membership and specs: every feature is read off the problem a model is shown
    assert listed["membership"]["hint_features"] == [] and listed["specs"]["hint_features"] == []
    for family_id, family in all_families().items():
        assert listed[family_id]["hint_features"] == list(family.hint_features)
        assert set(family.answering_features()) == \
            set(family.features) - set(family.hint_features) - set(family.spoiler_features)
    text = CliRunner().invoke(cli, ["families"]).output
    assert "hidden from a person answering: cascade_length" in text
