"""What runs on a Dask worker: a probe of the worker (code fingerprint, tool versions) and the check of
a chunk of (instance, response) pairs. Plain JSON goes in and out, so the driver and the workers share
no pickled classes, only the family's id and the instances' JSON."""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import socket
import sys
import threading
from pathlib import Path
from typing import Any

_FINGERPRINT: str | None = None
_LOCK = threading.Lock()


def _tree(label: str, root: Path, skip: tuple[str, ...] = ()) -> list[tuple[str, Path]]:
    """The files under `root` (or `root` itself), each named `label/relative path`; no bytecode."""
    if root.is_file():
        return [(label, root)]
    files = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if (not path.is_file() or "__pycache__" in relative.parts or path.suffix in (".pyc", ".pyo")
                or relative.parts[0] in skip):
            continue
        files.append((f"{label}/{relative.as_posix()}", path))
    return files


def _digest(files: list[tuple[str, Path]]) -> str:
    digest = hashlib.sha256()
    for label, path in files:
        digest.update(label.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def verification_files() -> list[tuple[str, Path]]:
    """Every file of Sembench that takes part in a check, each with the name it is hashed under: all of
    the `core` package (Python, the Java helpers, the families' data files) and the assets (prompts,
    corpora; not the workbench's themes). A family registered from outside `core` (SEMBENCH_FAMILIES) has
    its own files hashed apart, per task (`family_fingerprint`)."""
    from core.paths import ASSETS

    return [*_tree("core", Path(__file__).resolve().parent.parent), *_tree("assets", ASSETS, skip=("themes",))]


_FAMILY_FINGERPRINTS: dict[str, str] = {}


def family_fingerprint(family_id: str) -> str:
    """A hash of the files of a family registered from outside `core` (its package, or its module); ''
    for the families of `core` (`code_fingerprint` covers them). Each task of that family carries the
    driver's, and a worker whose copy differs refuses the task."""
    found = _FAMILY_FINGERPRINTS.get(family_id)
    if found is None:
        from core.family import get_family

        module = sys.modules.get(type(get_family(family_id)).__module__)
        source = Path(getattr(module, "__file__", "") or "").resolve()
        core_root = Path(__file__).resolve().parent.parent
        if not source.name or source.is_relative_to(core_root):
            found = ""
        else:
            found = _digest(_tree(f"family:{family_id}", source.parent if source.name == "__init__.py" else source))
        _FAMILY_FINGERPRINTS[family_id] = found
    return found


def code_fingerprint() -> str:
    """A hash of the content of every file that takes part in a check (`verification_files`), each under
    its name relative to its tree, so two clones of one commit on two machines agree.

    Not core.family_summary.fingerprint(): that one is a local cache's key made of paths and
    modification times, which differ between two clones of the same commit on two machines."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        _FINGERPRINT = _digest(verification_files())
    return _FINGERPRINT


_TOOLS: dict[str, str | None] | None = None


def tool_versions() -> dict[str, str | None]:
    """Every tool some family requires: its version here, or None when it is not installed (probed once
    per worker process: a tool installed or upgraded under a running worker needs a worker restart)."""
    global _TOOLS
    if _TOOLS is not None:
        return _TOOLS
    from core.family import all_families

    versions: dict[str, str | None] = {}
    for fam in all_families().values():
        for tool in fam.requires:
            if tool.name not in versions:
                versions[tool.name] = tool.version() if tool.available() else None
    _TOOLS = versions
    return versions


def probe() -> dict[str, Any]:
    """What the driver compares across workers before sending any task."""
    return {"fingerprint": code_fingerprint(), "tools": tool_versions(), "host": socket.gethostname(),
            "pid": os.getpid()}


# ---- the worker's tool cache ----------------------------------------------------------------------
# Workers never write a database: their tool results are kept in memory and handed back with each
# chunk's verdicts, for the driver to record (so a later run on the laptop finds them).
_INSTALLED = False


def _install_cache() -> Any:
    global _INSTALLED
    import core.tools.cache as cache_module

    class RecordingCache(cache_module.ToolCache):
        def __init__(self) -> None:
            super().__init__(None)
            self.fresh: list[tuple[str, str, str, str]] = []

        def put(self, key: str, tool: str, version: str, result: Any) -> None:
            super().put(key, tool, version, result)
            with self._lock:
                self.fresh.append((key, tool, version, result.model_dump_json()))

    with _LOCK:
        if not _INSTALLED:
            with cache_module._CACHE_LOCK:
                cache_module._CACHE = RecordingCache()
            _INSTALLED = True
        return cache_module._CACHE


def _drain(cache: Any) -> list[tuple[str, str, str, str]]:
    with cache._lock:
        fresh, cache.fresh = cache.fresh, []
    return fresh


class WorkerMismatch(RuntimeError):
    """This worker's code or tools are not those the driver admitted."""


def _admitted(expected: dict[str, Any], family_id: str) -> None:
    """This worker runs what the driver admitted: its code fingerprint, the version of each tool the
    admission settled, and the files of the task's family when it comes from outside `core`."""
    here = code_fingerprint()
    if here != expected["fingerprint"]:
        raise WorkerMismatch(f"worker on {socket.gethostname()} runs Sembench code {here}, not "
                             f"{expected['fingerprint']} (the driver's)")
    versions = tool_versions()
    for tool, version in sorted(expected["tools"].items()):
        if versions.get(tool) != version:
            raise WorkerMismatch(f"worker on {socket.gethostname()} has {tool} {versions.get(tool) or 'missing'}, "
                                 f"not {version or 'missing'} as admitted")
    family = family_fingerprint(family_id)
    if family != expected.get("family", ""):
        raise WorkerMismatch(f"worker on {socket.gethostname()} runs family {family_id}'s code {family or 'of core'}, "
                             f"not {expected.get('family') or 'of core'} (the driver's)")


_PAIRS: Any = None


def _pairs_adapter() -> Any:
    global _PAIRS
    if _PAIRS is None:
        from pydantic import TypeAdapter

        from core.verdict import Answer, Verdict

        _PAIRS = TypeAdapter(list[tuple[Answer, Verdict]])
    return _PAIRS


def encode_checked(checked: list[Any]) -> dict[str, Any]:
    """A chunk's results as one JSON text, a list of [answer, verdict] pairs, written by pydantic-core in
    one call (~30 µs per cascade pair, where model_dump + msgpack cost ~140: as much as a third of the
    check itself). As plain values (model_dump) when JSON cannot carry them exactly: a lone surrogate
    quoted from a reply, a score that is not finite (JSON would write null)."""
    import math

    from pydantic_core import PydanticSerializationError

    if all(math.isfinite(v.score) for _, v in checked):
        try:
            return {"checked_json": _pairs_adapter().dump_json(checked)}
        except (PydanticSerializationError, ValueError):
            pass
    return {"checked": [(a.model_dump(mode="json"), v.model_dump(mode="json")) for a, v in checked]}


_FIELDS: dict[type, Any] = {}


def _built(cls: Any, values: dict[str, Any]) -> Any:
    """`cls.model_construct(**values)` for values holding every field (what model_dump writes), without
    its per-field loop: the dict becomes the model's own."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = cls.model_fields.keys()
    if values.keys() != fields:
        return cls.model_construct(**values)
    model = cls.__new__(cls)
    object.__setattr__(model, "__dict__", values)
    object.__setattr__(model, "__pydantic_fields_set__", set(values))
    object.__setattr__(model, "__pydantic_extra__", None)
    object.__setattr__(model, "__pydantic_private__", None)
    return model


def decode_checked(out: dict[str, Any]) -> list[tuple[Any, Any]]:
    """(Answer, Verdict) pairs from `encode_checked`'s text, built without validating them again.

    They were validated models on a worker the driver admitted (the same code, by fingerprint) and were
    written as JSON values, so building them back is exact once JSON's only loss is undone (tuples
    written as lists: DiffRow's spans). Validating them again cost about as much as a cascade check."""
    import json

    from core.verdict import Answer, DiffRow, Verdict

    if "checked_json" not in out:
        return [(Answer.model_validate(a), Verdict.model_validate(v)) for a, v in out["checked"]]
    # Only allocations here, ~100 objects per verdict: with the cyclic GC on, its collections (over a heap
    # that grows with every verdict already read) cost several times the reading itself. None of these
    # objects can form a cycle.
    collecting = gc.isenabled()
    gc.disable()
    try:
        pairs = []
        for answer, verdict in json.loads(out["checked_json"]):
            for row in verdict["diff"]:
                row["expected_spans"] = [tuple(s) for s in row["expected_spans"]]
                row["got_spans"] = [tuple(s) for s in row["got_spans"]]
            verdict["diff"] = [_built(DiffRow, row) for row in verdict["diff"]]
            pairs.append((_built(Answer, answer), _built(Verdict, verdict)))
    finally:
        if collecting:
            gc.enable()
    return pairs


_INSTANCES: dict[tuple[str, str], Any] = {}
_INSTANCES_MAX = 20_000


def _instance(family: Any, text: str) -> Any:
    """An instance validated from its JSON text once per worker process: a chunk carries every distinct
    instance it needs (k samples of one instance, answers cycling over a few), and validating them again
    for each chunk cost a tenth of a cascade check. Keyed by the text itself, so an instance that changed
    is validated anew."""
    key = (family.id, text)
    model = _INSTANCES.get(key)
    if model is None:
        if len(_INSTANCES) >= _INSTANCES_MAX:
            _INSTANCES.clear()
        model = _INSTANCES[key] = family.instance_model.model_validate_json(text)
    return model


def _check_chunk(family_id: str, expected: dict[str, Any], payload: bytes | dict[str, Any]) -> dict[str, Any]:
    """Check a chunk with the family's `check_many` (one tool start can serve several answers).

    `expected` is the fingerprint and tool versions the driver admitted: a worker that joined or
    restarted since with other code or tools refuses the task rather than mix verdicts. A family with
    `check_parts` (specs: completeness's mutants) returns, per answer, further parts the driver sends
    as tasks of their own (`run_part`) and combines with the family's `finish_parts`."""
    _admitted(expected, family_id)
    cache = _install_cache()
    from core.family import get_family

    if isinstance(payload, bytes):  # pickled by the driver (ClusterSession.submit), an admitted peer
        payload = pickle.loads(payload)
    fam = get_family(family_id)
    instances = {iid: _instance(fam, text) for iid, text in payload["instances"].items()}
    pairs = [(instances[iid], response) for iid, response in payload["items"]]
    parts: dict[int, dict[str, Any]] = {}
    from core.completeness import here

    with here(payload.get("completeness")):
        if getattr(type(fam), "check_parts", None) is not None:
            rows = fam.check_parts(pairs)
            checked = [(a, v) for a, v, _, _ in rows]
            parts = {i: {"plan": plan, "parts": todo} for i, (_, _, plan, todo) in enumerate(rows) if todo}
        else:
            checked = fam.check_many(pairs)
    return {**encode_checked(checked), "parts": parts, "tool_results": _drain(cache)}


def _run_part(family_id: str, expected: dict[str, Any], part: Any) -> dict[str, Any]:
    """One part of an answer's check (a mutant's WP run) as a task of its own."""
    _admitted(expected, family_id)
    cache = _install_cache()
    from core.family import get_family

    result = get_family(family_id).run_part(part)
    return {"result": result, "tool_results": _drain(cache)}


class WorkerEnvironmentFault(Exception):
    """An EnvironmentFault met on a worker, as the task's error: the driver makes it its own EnvironmentFault
    (core.cluster.dispatch), so that a cluster run stops and records the attempts it hit as a local run
    does (core.store.envfaults). A class of this module, not core.errors': the faults' own classes do not
    all survive pickling (ToolMissing takes a tool and a package, not a message)."""


def _on_this_worker(call: Any) -> Any:
    from core.errors import EnvironmentFault

    try:
        return call()
    except EnvironmentFault as fault:
        # the worker named by its address: the driver's machine may be fine (its PATH, its TMPDIR) while this
        # one is not, and the address is what the cluster's listings and `refused worker` lines show
        raise WorkerEnvironmentFault(f"{fault} (on worker {_worker_address()}, host {socket.gethostname()}, "
                                     f"pid {os.getpid()})") from None


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):  # not inside a Dask worker (a test calling the task directly)
        return "outside a Dask worker"


def check_chunk(family_id: str, expected: dict[str, Any], payload: bytes | dict[str, Any]) -> dict[str, Any]:
    """`_check_chunk` on this worker; an error of this machine (a tool missing, an unwritable TMPDIR, no
    sandbox) comes back as WorkerEnvironmentFault."""
    return _on_this_worker(lambda: _check_chunk(family_id, expected, payload))


def run_part(family_id: str, expected: dict[str, Any], part: Any) -> dict[str, Any]:
    return _on_this_worker(lambda: _run_part(family_id, expected, part))


def noop_chunk(items: list[Any]) -> int:
    """For the overhead benchmark: a task that does nothing with its chunk."""
    return len(items)
