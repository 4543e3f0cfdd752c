"""Released tasks GHC rejects: each imported task's code is type-checked at its stated signature (one
batched GHC run, cached by content); a task GHC rejects is kept, as released, and flagged in its meta
(`released_defect`: GHC's first error line), so that results stay comparable with the paper's and can
also be given over the tasks GHC accepts (`acc_valid`).

A task is a defect only if its code does not type even with the Prelude's declaration in place of a
dependency that only specialises it (released foldl's `(.) :: (a -> a) -> (a -> a) -> (a -> a)`): such
a dependency is a copy of base's general one, narrowed by hand."""

from __future__ import annotations

import re
from typing import Any

from core.families.typeinf.corpus import binder
from core.families.typeinf.ghc import TaskSource, validate
from core.families.typeinf.hsparse import HsParseError, bare_classes, parse_type
from core.families.typeinf.model import TypeinfInstance
from core.families.typeinf.tools import GHC

DEFECT = "released_defect"  # meta: GHC's first error line
CHECKED = "released_checked"  # meta: the GHC version that type-checked the task (absent: not checked)


def first_error_line(text: str) -> str:
    """GHC's first error message, its first line (with GHC 9's second half of a type mismatch, `with
    actual type: …`, which GHC puts on the next line), bullets removed."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.search(r"\berror:", line):
            rest = [ln.strip() for ln in lines[i + 1:] if ln.strip()]
            first = line.split("error:", 1)[1].strip() or (rest.pop(0) if rest else "")
            if rest and rest[0].startswith("with actual type"):
                first += " " + rest[0]
            return first.lstrip("• ").strip()[:300]
    return (text.strip().splitlines() or ["GHC rejects the code"])[0][:300]


def _signature(instance: TypeinfInstance) -> str | None:
    from core.families.typeinf.types import show_scheme
    from core.families.typeinf.verify import truth_parts

    parts = truth_parts(instance)
    if parts is None:
        return None
    name, type_text = parts
    if bare_classes(type_text):  # `T1 => a -> a` as released: the truth as it is read, `T1 a => a -> a`
        try:
            type_text = show_scheme(parse_type(type_text).scheme)
        except HsParseError:
            pass
    return f"{binder(name)} :: {type_text}"


def _source(instance: TypeinfInstance, key: str, dependencies: list[str]) -> TaskSource:
    pure = instance.variant == "pure"
    return TaskSource(key, instance.name, instance.code, dependencies, _signature(instance),
                      extensions=("GADTs",) if pure else (), declare_new_names=pure)


def released_defects(instances: list[TypeinfInstance]) -> dict[str, str]:
    """instance id -> GHC's first error line, for every task whose code GHC rejects at its signature."""
    from core.families.typeinf.baseline import unspecialised

    checked = [i for i in instances if _signature(i) is not None]
    outcomes = validate([_source(i, i.id, i.dependencies) for i in checked], infer=False)
    rejected = {i.id: outcomes[i.id].signature_error for i in checked if not outcomes[i.id].signature_ok}
    retry = {i.id: general for i in checked if i.id in rejected
             and (general := unspecialised(i.dependencies)) is not None}
    if retry:
        by_id = {i.id: i for i in checked}
        again = validate([_source(by_id[k], k, deps) for k, deps in retry.items()], infer=False)
        for key in retry:
            if again[key].signature_ok:
                del rejected[key]
    return {key: first_error_line(error) for key, error in rejected.items()}


def flag_defects(instances: list[TypeinfInstance]) -> list[TypeinfInstance]:
    """The instances with `released_defect` set on those GHC rejects and `released_checked` on all;
    unchanged without GHC (then nothing says a task was checked)."""
    if not instances or not GHC.available():
        return instances
    defects = released_defects(instances)
    version = f"ghc {GHC.version() or ''}".strip()
    out = []
    for inst in instances:
        meta = {**inst.meta, CHECKED: version}
        if inst.id in defects:
            meta[DEFECT] = defects[inst.id]
        out.append(inst.model_copy(update={"meta": meta}))
    return out


def describe_snapshot(instances: list[Any]) -> dict[str, Any]:
    """The snapshot's count of released defects, when its tasks were type-checked at import."""
    metas = [i.meta for i in instances if isinstance(getattr(i, "meta", None), dict)]
    if not any(CHECKED in m for m in metas):
        return {}
    defective = [m.get("task_id") for m in metas if m.get(DEFECT)]
    return {"released_checked": sum(CHECKED in m for m in metas), "released_defects": len(defective)}
