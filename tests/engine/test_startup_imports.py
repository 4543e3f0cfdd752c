"""Start-up stays light: `sembench --help` and `sembench families` import no pydantic, asyncio or textual
(a regression guard without timing; tests/bench/bench_startup.py measures), and the
families' listing, read from its cache, is what computing it gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core import family_summary
from core.family import all_families

HEAVY = ("pydantic", "asyncio", "textual", "sqlite3")

# As the console script runs: tui.entry decides between the TUI and the CLI, then the verb runs.
SCRIPT = """
import json, sys
from tui.entry import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
loaded = sorted({name.split(".")[0] for name in sys.modules} & set(json.loads(%r)))
print("\\nLOADED " + json.dumps(loaded))
"""


def run(args: list[str], cache: Path) -> tuple[str, list[str]]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    proc = subprocess.run([sys.executable, "-c", SCRIPT % json.dumps(HEAVY), *args], capture_output=True,
                          text=True, env=env, check=True)
    output, _, loaded = proc.stdout.rpartition("\nLOADED ")
    return output, json.loads(loaded)


def test_help_imports_nothing_heavy(tmp_path: Path) -> None:
    output, loaded = run(["--help"], tmp_path)
    assert "families" in output and "specs-repair" in output  # the family verbs are listed too
    assert loaded == []


def test_families_imports_nothing_heavy_once_cached(tmp_path: Path) -> None:
    first, _ = run(["families", "--format", "json"], tmp_path)  # computes the presets, fills the cache
    assert list(tmp_path.glob("sembench/families-*.json"))
    second, loaded = run(["families", "--format", "json"], tmp_path)
    assert second == first
    assert {row["family"] for row in json.loads(second)} >= {"cascade", "imports", "membership", "specs", "typeinf"}
    assert loaded == []


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(family_summary.CACHE_ENV, str(tmp_path))
    return family_summary.cache_path()


def test_cached_summaries_are_the_computed_ones(cache: Path) -> None:
    families = list(all_families().values())  # the core families and the tests' toy (never cached)
    computed = [family_summary.compute_summary(f) for f in families]
    assert family_summary.summaries(families) == computed
    stored = json.loads(cache.read_text(encoding="utf-8"))["families"]
    assert set(stored) == {f.id for f in families if type(f).__module__.startswith("core.families.")}
    assert family_summary.summaries(families) == computed  # now read back from the file


def test_a_stale_or_broken_cache_is_recomputed(cache: Path) -> None:
    families = [f for f in all_families().values() if f.id == "cascade"]
    fake = {"solvers": ["stale"], "presets": []}
    cache.parent.mkdir(parents=True)
    cache.write_text(json.dumps({"fingerprint": "another tree", "families": {"cascade": fake}}), encoding="utf-8")
    assert family_summary.summaries(families)[0]["solvers"] == sorted(families[0].local_solvers())
    cache.write_text("{not json", encoding="utf-8")
    assert family_summary.summaries(families)[0] == family_summary.compute_summary(families[0])


def test_the_fingerprint_follows_every_file_but_bytecode(tmp_path: Path) -> None:
    source = tmp_path / "pkg" / "mod.py"
    source.parent.mkdir()
    source.write_text("A = 1\n", encoding="utf-8")
    before = family_summary._tree(str(tmp_path))
    (source.parent / "__pycache__").mkdir()
    (source.parent / "__pycache__" / "mod.pyc").write_bytes(b"")
    assert family_summary._tree(str(tmp_path)) == before
    source.write_text("A = 22\n", encoding="utf-8")
    assert family_summary._tree(str(tmp_path)) != before
    assert str(Path(family_summary.__file__).resolve()) in family_summary.fingerprint()  # core/ is covered


@pytest.mark.parametrize("verb", [["prompt", "cascade", "--instances"],
                                  ["verify", "typeinf", "--answers", "ANSWERS", "--instances"]])
def test_an_unreadable_instances_file_is_refused_without_pydantic(verb: list[str], tmp_path: Path) -> None:
    """The error of a file that is not JSON comes before any instance is built: no pydantic in the process
    (most of the bad-input battery's cases, and a user's every mistyped file, end this way)."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    args = [str(bad) if a == "ANSWERS" else a for a in verb] + [str(bad)]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", SCRIPT % json.dumps(HEAVY), *args], capture_output=True,
                          text=True, env=env, check=True)
    assert "malformed JSON" in proc.stderr and str(bad) in proc.stderr, proc.stderr
    assert json.loads(proc.stdout.rpartition("\nLOADED ")[2]) == []
