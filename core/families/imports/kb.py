"""The knowledge base: every type of the JDK's exported packages and of the library jars, with its
supertypes, constructors, methods and fields, read from class files by `java/KbDump.java` (javac's
symbol tables; no class is loaded or run).

It is built once and cached as `<cache>/imports/kb-<key>.jsonl.gz`, where the key hashes the extractor,
the JDK's version and the SHA-256 of every jar. The dump is sorted (origin, then name) and members keep
class-file order, so the same JDK and jars give byte-identical knowledge bases on every machine.
"""

from __future__ import annotations

import fcntl
import functools
import gzip
import hashlib
import json
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import UserError
from core.families.imports.javabuild import helper_classes, helper_key
from core.families.imports.paths import family_cache, file_sha256, library_jars
from core.families.imports.tools import JAVA
from core.tools import run

OBJECT = "java.lang.Object"
PRIMITIVES = frozenset({"boolean", "byte", "char", "short", "int", "long", "float", "double"})


@dataclass(slots=True)
class Executable:
    """A constructor (name "<init>") or a method. `params`/`ret` are erasures; `ptv`/`rtv` say the
    generic signature mentions a type variable there."""

    name: str
    params: tuple[str, ...]
    ret: str = "void"
    static: bool = False
    abstract: bool = False
    varargs: bool = False
    ptv: bool = False
    rtv: bool = False
    gret: bool = False  # the generic return type is parameterized or a type variable
    generic: bool = False  # declares its own type parameters
    deprecated: bool = False
    owner: str = ""


@dataclass(slots=True)
class Field:
    name: str
    type: str
    static: bool = False
    final: bool = False
    tv: bool = False
    deprecated: bool = False
    owner: str = ""


@dataclass(slots=True)
class TypeInfo:
    fqn: str
    simple: str
    kind: str  # class, interface, enum, annotation_type, record
    origin: str  # jdk:<module> or jar:<file>
    public: bool
    outer: str | None = None
    abstract: bool = False
    static: bool = False
    tparams: int = 0
    deprecated: bool = False
    superclass: str | None = None
    interfaces: tuple[str, ...] = ()
    ctors: list[Executable] = field(default_factory=list)
    methods: list[Executable] = field(default_factory=list)
    fields: list[Field] = field(default_factory=list)

    @property
    def concrete(self) -> bool:
        return self.kind == "class" and not self.abstract


def _executable(raw: dict[str, Any], owner: str, ctor: bool) -> Executable:
    return Executable(name="<init>" if ctor else raw["name"], params=tuple(raw.get("params", ())),
                      ret=owner if ctor else raw.get("ret", "void"), static=bool(raw.get("static")),
                      abstract=bool(raw.get("abstract")), varargs=bool(raw.get("varargs")),
                      ptv=bool(raw.get("ptv")), rtv=bool(raw.get("rtv")), gret="gret" in raw, generic=bool(raw.get("mtparams")),
                      deprecated=bool(raw.get("deprecated")), owner=owner)


def _type(raw: dict[str, Any]) -> TypeInfo:
    fqn = raw["fqn"]
    return TypeInfo(
        fqn=fqn, simple=raw["simple"], kind=raw["kind"], origin=raw["origin"], public=bool(raw["public"]),
        outer=raw.get("outer"), abstract=bool(raw.get("abstract")), static=bool(raw.get("static")),
        tparams=int(raw.get("tparams", 0)), deprecated=bool(raw.get("deprecated")), superclass=raw.get("super"),
        interfaces=tuple(raw.get("interfaces", ())),
        ctors=[_executable(c, fqn, True) for c in raw.get("ctors", ())],
        methods=[_executable(m, fqn, False) for m in raw.get("methods", ())],
        fields=[Field(name=f["name"], type=f["type"], static=bool(f.get("static")), final=bool(f.get("final")),
                      tv=bool(f.get("tv")), deprecated=bool(f.get("deprecated")), owner=fqn)
                for f in raw.get("fields", ())],
    )


class KnowledgeBase:
    """Types by FQN, an index by simple name, and member lookup through the supertype graph."""

    def __init__(self, types: dict[str, TypeInfo], key: str = "") -> None:
        self.types = types
        self.key = key
        by_simple: dict[str, list[str]] = {}
        for fqn, info in types.items():
            if info.public:
                by_simple.setdefault(info.simple, []).append(fqn)
        self.by_simple = {name: sorted(fqns) for name, fqns in sorted(by_simple.items())}
        self._methods: dict[str, list[Executable]] = {}
        self._fields: dict[str, list[Field]] = {}
        self._supers: dict[str, tuple[str, ...]] = {}

    @functools.cached_property
    def mentions(self) -> dict[str, int]:
        """How many signatures of other public types (parameter, return and field types, arrays as their
        element type) name each type: how much of the platform uses it (`java.util.Date` 152,
        `java.sql.Date` 26). Computed once, in a fraction of a second."""
        counts: dict[str, int] = {}
        for fqn, info in self.types.items():
            if not info.public:
                continue
            named = [p for m in (*info.methods, *info.ctors) for p in m.params]
            named += [m.ret for m in info.methods]
            named += [f.type for f in info.fields]
            for name in named:
                name = name.rstrip("[]")
                if name != fqn:
                    counts[name] = counts.get(name, 0) + 1
        return counts

    def __contains__(self, fqn: str) -> bool:
        return fqn in self.types

    def get(self, fqn: str) -> TypeInfo | None:
        return self.types.get(fqn)

    def candidates(self, simple: str) -> list[str]:
        """Public types with this simple name, sorted."""
        return self.by_simple.get(simple, [])

    def is_ambiguous(self, simple: str) -> bool:
        return len(self.candidates(simple)) > 1

    def supertypes(self, fqn: str) -> tuple[str, ...]:
        """All supertypes (transitively, the type first, Object last), breadth-first, no repeats."""
        if fqn in self._supers:
            return self._supers[fqn]
        order: list[str] = []
        seen: set[str] = set()
        queue = [fqn]
        while queue:
            current = queue.pop(0)
            if current in seen:
                continue
            seen.add(current)
            order.append(current)
            info = self.types.get(current)
            if info is None:
                continue
            if info.superclass:
                queue.append(info.superclass)
            queue.extend(info.interfaces)
        if OBJECT in seen:
            order.remove(OBJECT)
        order.append(OBJECT)
        result = tuple(order)
        self._supers[fqn] = result
        return result

    def complete(self, fqn: str) -> bool:
        """Every supertype is in the knowledge base (javac can use the type without a missing class file:
        hibernate's Ant tasks extend Ant classes that are not installed)."""
        return all(s in self.types for s in self.supertypes(fqn))

    def is_subtype(self, sub: str, sup: str) -> bool:
        if sub == sup or sup == OBJECT and sub not in PRIMITIVES:
            return True
        return sup in self.supertypes(sub)

    def methods(self, fqn: str) -> list[Executable]:
        """Public methods callable on a value of this type: declared first, then inherited ones that are
        not overridden (same name and erased parameters), most derived first."""
        if fqn in self._methods:
            return self._methods[fqn]
        seen: set[tuple[str, tuple[str, ...]]] = set()
        out: list[Executable] = []
        for sup in self.supertypes(fqn):
            info = self.types.get(sup)
            if info is None:
                continue
            for method in info.methods:
                sig = (method.name, method.params)
                if sig in seen:
                    continue
                seen.add(sig)
                out.append(method)
        self._methods[fqn] = out
        return out

    def fields(self, fqn: str) -> list[Field]:
        if fqn in self._fields:
            return self._fields[fqn]
        seen: set[str] = set()
        out: list[Field] = []
        for sup in self.supertypes(fqn):
            info = self.types.get(sup)
            if info is None:
                continue
            for f in info.fields:
                if f.name not in seen:
                    seen.add(f.name)
                    out.append(f)
        self._fields[fqn] = out
        return out

    def stats(self) -> dict[str, Any]:
        by_origin: dict[str, int] = {}
        for info in self.types.values():
            if info.public:
                by_origin[info.origin] = by_origin.get(info.origin, 0) + 1
        ambiguous = {name: fqns for name, fqns in self.by_simple.items() if len(fqns) > 1}
        return {
            "key": self.key,
            "types": sum(1 for t in self.types.values() if t.public),
            "non_public_supertypes": sum(1 for t in self.types.values() if not t.public),
            "methods": sum(len(t.methods) for t in self.types.values()),
            "constructors": sum(len(t.ctors) for t in self.types.values()),
            "fields": sum(len(t.fields) for t in self.types.values()),
            "simple_names": len(self.by_simple),
            "ambiguous_simple_names": len(ambiguous),
            "by_origin": dict(sorted(by_origin.items(), key=lambda kv: (-kv[1], kv[0]))),
            "most_ambiguous": {name: len(fqns) for name, fqns in
                               sorted(ambiguous.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:10]},
        }


# ---- building and caching ---------------------------------------------------------------------
@functools.cache
def kb_key() -> str:
    """Extractor + JDK + jar contents (computed once per process)."""
    digest = hashlib.sha256(helper_key(("KbDump.java",)).encode())
    digest.update(JAVA.version().encode())
    for jar in library_jars():
        digest.update(b"\0" + jar.name.encode() + b"\0" + file_sha256(jar).encode())
    return digest.hexdigest()[:16]


def kb_path(key: str | None = None) -> Path:
    return family_cache() / f"kb-{key or kb_key()}.jsonl.gz"


def build(force: bool = False) -> tuple[Path, float, bool]:
    """Build the cached dump if missing (or `force`). Returns (path, seconds, built)."""
    key = kb_key()
    path = kb_path(key)
    if path.is_file() and not force:
        return path, 0.0, False
    classes = helper_classes()
    jars = library_jars()
    with open(family_cache() / "kb.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.is_file() and not force:
            return path, 0.0, False
        start = time.perf_counter()
        work = Path(tempfile.mkdtemp(prefix="sembench-kb-", dir=family_cache()))
        try:
            result = run(JAVA, ["-Xshare:auto", "-XX:+UseSerialGC", "-cp", str(classes), "KbDump", "kb.jsonl",
                                *[str(j) for j in jars]], workdir=work, timeout_s=300, memory_mb=None)
            dump = work / "kb.jsonl"
            if not result.ok or not dump.is_file():
                raise UserError(f"building the knowledge base failed: {(result.stderr or result.stdout).strip()[:300]}")
            tmp = path.with_suffix(".tmp")
            with open(dump, "rb") as src, gzip.GzipFile(tmp, "wb", mtime=0) as dst:
                shutil.copyfileobj(src, dst)
            tmp.rename(path)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return path, time.perf_counter() - start, True


def read(path: Path, key: str = "") -> KnowledgeBase:
    types: dict[str, TypeInfo] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                info = _type(json.loads(line))
                types.setdefault(info.fqn, info)  # a class in two jars: the first on the classpath wins
    return KnowledgeBase(types, key)


@functools.cache
def load() -> KnowledgeBase:
    """The knowledge base of this machine's JDK and jars (built on first use, then read from the cache)."""
    path, _secs, _built = build()
    return read(path, kb_key())
