"""Instances: item i of the corpus (either variant) or a freshly generated task (see `fresh.py`)."""

from __future__ import annotations

import functools
from typing import Any

from core.families.typeinf.corpus import CorpusTask, load_corpus, poly_type, solve_dependencies
from core.families.typeinf.hsparse import parse_type, split_signature
from core.families.typeinf.model import REWRITE_OPS, TypeinfInstance, TypeinfParams
from core.families.typeinf.rewrite import Task, rewrite


@functools.lru_cache(maxsize=1024)
def _corpus_dependencies(index: int) -> tuple[str, ...]:
    return tuple(solve_dependencies(load_corpus()[index]))


def base_instance(task: CorpusTask, deps: list[str]) -> TypeinfInstance:
    scheme = parse_type(split_signature(task.signature)[1]).scheme
    meta: dict[str, Any] = {"poly_type": poly_type(scheme), "source": "corpus", "task_id": task.key,
                            "equations": _equations(task.code), "n_deps": len(deps)}
    if "more-specific" in task.notes:
        meta["principal"] = task.notes["more-specific"]
    return TypeinfInstance(id=f"tf-base-{task.key}", code=task.code, dependencies=deps, name=task.name,
                           variant="base", ground_truth={"signature": task.signature}, meta=meta)


def pure_instance(base: TypeinfInstance, ops: list[str]) -> TypeinfInstance:
    truth = base.truth_signature() or ""
    r = rewrite(Task(base.name, base.code, list(base.dependencies), truth), ops)
    tag = "pure" if list(ops) == list(REWRITE_OPS) else "pure-" + "+".join(ops)
    meta = dict(base.meta)
    meta.update({"rewrite": list(ops), "renaming": r.renaming, "base_id": base.id, "base_name": base.name})
    if "principal" in meta:
        meta["principal"] = rewrite(Task(base.name, "x = x", list(base.dependencies),
                                         f"{base.name} :: {meta['principal']}"), ops).signature.split("::", 1)[1].strip()
    key = meta.get("task_id") or base.id
    return TypeinfInstance(id=f"tf-{tag}-{key}", code=r.code, dependencies=r.dependencies, name=r.name,
                           variant="pure", ground_truth={"signature": r.signature}, meta=meta)


def _equations(code: str) -> int:
    from core.families.typeinf import syntax as S
    from core.families.typeinf.env import base_env
    from core.families.typeinf.hsparse import parse_code

    try:
        decls = parse_code(code, base_env().fixities)
    except ValueError:
        return 0
    funs = [d for d in decls if isinstance(d, S.FunBind)]
    return len(funs[0].matches) if funs else 1


def generate_one(params: dict[str, Any], seed: int, index: int) -> TypeinfInstance:
    p = TypeinfParams.model_validate(params)
    if p.source == "generated":
        from core.families.typeinf.fresh import generate_task

        inst = generate_task(p, seed, index)
    else:
        corpus = load_corpus()
        i = index % len(corpus)
        inst = base_instance(corpus[i], list(_corpus_dependencies(i)))
    if p.variant == "pure":
        inst = pure_instance(inst, list(p.rewrite))
    inst.params = p.model_dump(mode="json")
    inst.seed = seed
    inst.index = index
    return inst
