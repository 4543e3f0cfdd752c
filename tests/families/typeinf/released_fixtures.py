"""The released TF-Bench task files held as fixtures (fixtures/*/README.txt, MANIFEST.tsv), read once per
test process: importing a folder type-checks every task with GHC (one batched run, cached by content)."""

from __future__ import annotations

import functools
from pathlib import Path

from core.families.typeinf.model import TypeinfInstance
from core.families.typeinf.released import parse_markdown
from core.family import get_family

FIXTURES = Path(__file__).parent / "fixtures"
BASE = FIXTURES / "tfbench_released_base"  # the 188 released base files, verbatim
PURE = FIXTURES / "tfbench_released_pure"  # the 71 historical pure files, verbatim
# released files the tests have long read on their own: succ, pred, div (backticks), properFraction (strict
# fields, a bare-class dependency), isInfinite (a bare `##`), mapM_, foldMap, traverse, head
NINE = ("task_6.hs.md", "task_7.hs.md", "task_21.hs.md", "task_28.hs.md", "task_42-2.hs.md", "task_55.hs.md",
        "task_57.hs.md", "task_65.hs.md", "task_76.hs.md")


@functools.cache
def _folder(path: Path) -> tuple[TypeinfInstance, ...]:
    found = get_family("typeinf").import_files(path)
    assert found is not None
    return tuple(found)


def released_base() -> list[TypeinfInstance]:
    return list(_folder(BASE))


def released_pure() -> list[TypeinfInstance]:
    return list(_folder(PURE))


def by_file(*names: str, folder: Path = BASE) -> list[TypeinfInstance]:
    """The instances of these task files, in the order given (found by their task id)."""
    ids = [parse_markdown((folder / name).read_text(encoding="utf-8"))["task_id"] for name in names]
    instances = {i.meta["task_id"]: i for i in _folder(folder)}
    return [instances[task_id] for task_id in ids]


def by_task(suffix: str, folder: Path = BASE) -> TypeinfInstance:
    """The first task whose id ends with `--suffix` (TF-Bench's ids: source path, `--`, the name)."""
    return next(i for i in _folder(folder) if i.meta["task_id"].endswith("--" + suffix))
