"""Checks on a cluster as the driver sees them: the tool cache first, the cluster for the rest.

A verification's cache key is made like a tool run's (core.tools.cache.cache_key: tool version + inputs
+ options): the "tool" is the family's check on the cluster, its version the workers' Sembench code
fingerprint and the versions of the family's tools, its inputs the instance and the response. Only
tool-backed families are cached this way (a cascade check costs less than a cache lookup). The tool
results the workers computed come back with the verdicts and are written to the same cache, so a run on
the laptop later finds them."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

from core.canonical import canonical_json
from core.cluster.dispatch import Dispatcher, Result
from core.cluster.session import ClusterSession
from core.family import Family
from core.instance import Instance
from core.verdict import Answer, Verdict

Checked = tuple[Answer, Verdict]


class CheckCache:
    def __init__(self, tool_cache: Any, family: Family, session: ClusterSession) -> None:
        self.tool_cache = tool_cache if family.requires else None
        self.family = family
        from core.cluster.remote import family_fingerprint

        version: dict[str, Any] = {"sembench": session.admission.fingerprint, "tools": session.family_tools(family)}
        if family_fingerprint(family.id):  # a family from outside core: its own files too
            version["family"] = family_fingerprint(family.id)
        self.version = json.dumps(version, sort_keys=True)

    def key(self, instance: Instance, response: str) -> str:
        from core.tools.cache import cache_key

        return cache_key(f"sembench-check:{self.family.id}", self.version, [self.family.id],
                         {"instance": canonical_json(instance.to_json_dict()), "response": response}, None, {})

    def get(self, instance: Instance, response: str) -> Checked | None:
        if self.tool_cache is None:
            return None
        hit = self.tool_cache.get(self.key(instance, response))
        if hit is None:
            return None
        try:
            answer, verdict = json.loads(hit.stdout)
            return Answer.model_validate(answer), Verdict.model_validate(verdict)
        except (ValueError, TypeError):
            return None

    def put(self, instance: Instance, response: str, checked: Checked) -> None:
        if self.tool_cache is None:
            return
        from core.tools.process import ToolResult

        answer, verdict = checked
        text = json.dumps([answer.model_dump(mode="json"), verdict.model_dump(mode="json")])
        result = ToolResult(argv=["sembench-check", self.family.id], rc=0, stdout=text)
        self.tool_cache.put(self.key(instance, response), f"sembench-check:{self.family.id}", self.version, result)


def error_checked(message: str) -> Checked:
    """What the verify command records for an answer the cluster could not check."""
    return (Answer(ok=False, error="cluster", message=message),
            Verdict(correct=False, score=0.0, status="error", explanation=message))


def check_all(session: ClusterSession, family: Family, items: Sequence[tuple[Instance, str]], tool_cache: Any,
              progress: Callable[[Any], None] | None = None) -> list[Checked]:
    """Every (instance, response) checked: from the cache, else on the cluster, in order."""
    session.require(family)
    cache = CheckCache(tool_cache, family, session)
    results: list[Checked | None] = [cache.get(inst, resp) for inst, resp in items]
    todo = [i for i, r in enumerate(results) if r is None]
    dispatcher = Dispatcher(session, family, tool_cache)
    dispatcher.freeze_results = True  # every verdict is kept until the end
    dispatcher.done = len(items) - len(todo)
    finished = threading.Event()
    left = [len(todo)]
    lock = threading.Lock()
    failure: list[BaseException] = []

    def deliver_for(indices: list[int]) -> Callable[[list[Result] | BaseException], None]:
        def deliver(out: list[Result] | BaseException) -> None:
            if isinstance(out, BaseException):
                failure.append(out)
                finished.set()
                return
            for i, result in zip(indices, out, strict=True):
                if isinstance(result, str):
                    results[i] = error_checked(result)
                else:
                    results[i] = result
                    cache.put(items[i][0], items[i][1], result)  # the driver is the only writer
            with lock:
                left[0] -= len(indices)
                if left[0] == 0:
                    finished.set()
        return deliver

    size = session.spread_chunk(family, len(todo))
    try:
        if not todo:
            finished.set()
        for start in range(0, len(todo), size):
            indices = todo[start:start + size]
            dispatcher.send([items[i] for i in indices], deliver_for(indices))
        while not finished.wait(0.2):
            if progress is not None:
                progress(dispatcher.status())
        if failure:
            raise failure[0]
        if progress is not None:
            progress(dispatcher.status())
    finally:
        dispatcher.close()
    return [r for r in results if r is not None]
