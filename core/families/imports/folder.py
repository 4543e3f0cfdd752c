"""Snippet folders from elsewhere (StatType-SO in the iJTyper repository and the like): one complete
`.java` file per snippet, often with a `package` line, an `//ID = ...` comment and no class wrapper;
the file's own `import` lines are the ground truth.

`import_files(path)` accepts a `.java` file, a folder of them, or a folder of such folders. The library
of a file is, in order: `$SEMBENCH_IMPORTS_LIBRARY` when set (the flag for `sembench snapshot import`,
whose options are shared by all families), the name of its folder (`jodatime`, `JodaTime`, `joda` -> jodatime; `jdk`,
`java` -> jdk; `hibernate`; `xstream`; any other name, e.g. `android`, is kept as given), else the
content of a `LIBRARY` file in the folder, else the file's package line, else `unknown`. Imports the
knowledge base cannot resolve (Android, GWT, a typo) are kept in the ground truth and listed in
`meta.unresolved_imports`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath
from typing import Any

from core.errors import UserError
from core.families.imports.model import ImportsInstance
from core.families.imports.snippet import parse, split_imports
from core.folders import FolderFile, read_file, read_folder

ALIASES = {"jodatime": "jodatime", "joda": "jodatime", "jodatime2": "jodatime", "joda-time": "jodatime",
           "jdk": "jdk", "java": "jdk", "hibernate": "hibernate", "xstream": "xstream"}
MAX_FILE_BYTES = 2_000_000


def normalize_library(name: str) -> str:
    key = re.sub(r"[^a-z0-9-]", "", name.lower())
    return ALIASES.get(key, key or "unknown")


LIBRARY_ENV = "SEMBENCH_IMPORTS_LIBRARY"


def _library(file: Path, text: str, marker: str | None) -> str:
    """`marker`: the text of the LIBRARY file in the file's folder, if there is one."""
    forced = os.environ.get(LIBRARY_ENV, "").strip()
    if forced:
        return normalize_library(forced)
    folder = file.parent
    named = normalize_library(folder.name)
    if named in ("jdk", "jodatime", "hibernate", "xstream"):
        return named
    if marker is not None:
        return normalize_library(marker.strip())
    match = re.search(r"^\s*package\s+([\w.]+)\s*;", text, re.MULTILINE)
    if match:
        lib = normalize_library(match.group(1).split(".")[-1])
        if lib in ("jdk", "jodatime", "hibernate", "xstream"):
            return lib
    return named if folder.name and named not in ("", ".") else "unknown"


def resolves(entry: str, kb: Any) -> bool:
    static = entry.startswith("static ")
    name = entry.removeprefix("static ")
    if name.endswith(".*"):
        owner = name[:-2]
        if static:
            return owner in kb.types
        return owner in _packages(kb) or owner in kb.types
    if static:
        owner, member = name.rsplit(".", 1)
        info = kb.get(owner)
        return info is not None and (any(m.name == member for m in kb.methods(owner))
                                     or any(f.name == member for f in kb.fields(owner))
                                     or f"{owner}.{member}" in kb.types)
    return name in kb.types


_PACKAGES: dict[str, frozenset[str]] = {}


def _packages(kb: Any) -> frozenset[str]:
    if kb.key not in _PACKAGES:
        _PACKAGES[kb.key] = frozenset(t.fqn.rsplit(".", 1)[0] for t in kb.types.values() if t.outer is None)
    return _PACKAGES[kb.key]


def _shape(code: str) -> tuple[int, int]:
    """(statements inside method bodies, longest call chain)."""
    tree = parse(code)
    statements = 0
    chain = 0
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type.endswith("_statement") or node.type == "local_variable_declaration":
            if node.parent is not None and node.parent.type == "block":
                statements += 1
        if node.type == "method_invocation":
            depth, cur = 0, node
            while cur is not None and cur.type == "method_invocation":
                depth += 1
                cur = cur.child_by_field_name("object")
            chain = max(chain, depth)
        stack.extend(node.children)
    return statements, chain


def instance_from_file(file: Path, library: str, kb: Any | None, raw: bytes) -> ImportsInstance:
    if len(raw) > MAX_FILE_BYTES:
        raise UserError(f"{file}: larger than {MAX_FILE_BYTES} bytes; not a snippet")
    text = _decode(raw)
    split = split_imports(text.replace("\r\n", "\n"))
    statements, chain = _shape(split.code)
    meta: dict[str, Any] = {"source": "folder", "file": file.name, "library": library,
                            "n_types": len(split.imports), "statements": statements, "chain_depth": chain,
                            "package": split.package, "transform": "none", "loc": split.code.count("\n")}
    if kb is not None:
        unresolved = [e for e in split.imports if not resolves(e, kb)]
        meta["unresolved_imports"] = unresolved
        meta["n_unresolved"] = len(unresolved)
        meta["n_ambiguous"] = sum(1 for e in split.imports if not e.endswith(".*") and kb.is_ambiguous(
            e.removeprefix("static ").rsplit(".", 1)[-1]))
    ident = re.sub(r"[^A-Za-z0-9_.-]", "_", file.stem)
    return ImportsInstance(id=f"imports-{library}-{ident}", code=split.code, library=library,
                           ground_truth={"imports": split.imports}, meta=meta)


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _read(root: Path) -> tuple[list[FolderFile], dict[PurePosixPath, str]]:
    """The `.java` files (a file, or a folder walked safely and bounded by core/folders.py) and the text
    of each folder's LIBRARY file."""
    if root.is_file():
        if root.suffix != ".java":
            return [], {}
        marker = root.parent / "LIBRARY"
        markers = {PurePosixPath(): _decode(read_file(marker))} if marker.is_file() else {}
        return [FolderFile(root.parent, PurePosixPath(root.name), read_file(root))], markers
    if not root.is_dir():
        return [], {}
    read = read_folder(root, lambda rel: rel.suffix == ".java" or rel.name == "LIBRARY")
    markers = {f.rel.parent: _decode(f.data) for f in read if f.rel.name == "LIBRARY"}
    return [f for f in read if f.rel.suffix == ".java"], markers


def import_files(path: Any) -> list[ImportsInstance] | None:
    root = Path(path)
    files, markers = _read(root)
    if not files:
        return None
    kb = None
    try:
        from core.families.imports.kb import load

        kb = load()
    except Exception:  # no JDK here: import anyway, without resolution flags
        kb = None
    out: list[ImportsInstance] = []
    seen: set[str] = set()
    for file in files:
        text = _decode(file.data)
        inst = instance_from_file(file.path, _library(file.path, text, markers.get(file.rel.parent)), kb, file.data)
        if inst.id in seen:  # the same file name in two folders of one library
            inst.id = f"{inst.id}-{len(seen)}"
        seen.add(inst.id)
        out.append(inst)
    return out


def describe_snapshot(instances: list[Any]) -> dict[str, Any]:
    unresolved = sum(int((i.meta or {}).get("n_unresolved", 0) or 0) for i in instances)
    libraries: dict[str, int] = {}
    for i in instances:
        lib = getattr(i, "library", None) or (i.meta or {}).get("library", "unknown")
        libraries[str(lib)] = libraries.get(str(lib), 0) + 1
    return {"libraries": dict(sorted(libraries.items())), "unresolved_imports": unresolved}
