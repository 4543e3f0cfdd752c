"""Annotated C files from elsewhere: task = code without annotations, reference = the file, function =
the contracted one no other contracted function calls; broken annotations are recorded in meta."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.family import get_family

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.framac
def test_folder_import():
    fam = get_family("specs")
    instances = {i.meta["source"]: i for i in fam.import_files(FIXTURES)}
    assert set(instances) == {"binary_search.c", "broken.c"}
    search = instances["binary_search.c"]
    assert search.function == "contains"  # `find` is called by `contains`
    assert "/*@ requires" not in search.code and "//@" not in search.code
    assert "/*@ is not an annotation here" in search.code and '"%d /*@ not an annotation */\\n"' in search.code
    assert search.meta["annotations_parse"] is True and search.meta["annotations"] == 3
    assert search.reference() == (FIXTURES / "binary_search.c").read_text()
    broken = instances["broken.c"]
    assert broken.meta["annotations_parse"] is False and "SyntaxError" in broken.meta["parse_error"]
    assert fam.import_files(FIXTURES / "nothing-here.txt") is None


@pytest.mark.framac
def test_imported_reference_verifies_with_its_main_harness():
    fam = get_family("specs")
    inst = next(i for i in fam.import_files(FIXTURES) if i.meta["source"] == "binary_search.c")
    answer, verdict = fam.check(inst, fam.oracle_response(inst))
    assert answer.ok and verdict.correct, verdict.explanation


@pytest.mark.framac
def test_the_same_file_twice_in_a_folder_keeps_two_ids(tmp_path):
    """Collections copy a program into several folders: each copy is its own instance, named by its path."""
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "binary_search.c").write_text((FIXTURES / "binary_search.c").read_text())
    instances = get_family("specs").import_files(tmp_path)
    assert sorted(i.meta["source"] for i in instances) == ["a/binary_search.c", "b/binary_search.c"]
    assert len({i.id for i in instances}) == 2
