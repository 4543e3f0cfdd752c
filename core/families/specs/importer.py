"""Annotated C files from elsewhere (public ACSL collections): one program per `.c` file.

The task is the file with every annotation removed (comments and strings that merely contain `/*@` are
left alone); the reference is the annotated file; the function is the contracted one that no other
contracted function calls (the last such when several qualify); a file whose only function is `main` is
a task about `main`. A file whose annotations Frama-C cannot parse is still imported, with
`meta.annotations_parse = false` and the message.

One file never stops a folder's import: a file that cannot become a task (not UTF-8, no function
definition, an include that could make gcc or Frama-C read a device, a FIFO, `/proc` or a file outside
the folder and the system include directories — checked before either tool sees the text) is left out,
and `import_files` returns the rest with `.skipped`: each left-out file and why.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath

from core.errors import UserError
from core.families.specs.cpp import unsafe_include
from core.families.specs.csyntax import (
    annotations,
    calls_in,
    control_flow,
    function_names,
    function_node,
    loop_count,
    parse,
    strip_annotations,
)
from core.families.specs.model import SpecsInstance
from core.folders import FolderFile, read_file, read_folder, report_progress, skip, verify_references


def contracted_functions(text: str) -> list[str]:
    """Functions preceded directly by an annotation (their contract), in source order."""
    tree, data = parse(text)
    names = []
    previous = None
    for node in tree.root_node.children:
        if node.type == "function_definition" and previous is not None and previous.type == "comment" \
                and data[previous.start_byte:previous.start_byte + 3] in (b"/*@", b"//@"):
            decl = node.child_by_field_name("declarator")
            name = decl.child_by_field_name("declarator") if decl is not None else None
            if name is not None:
                names.append(data[name.start_byte:name.end_byte].decode())
        previous = node
    return names


class SkippedFile(UserError):
    """A file that cannot become a task (the message says why)."""


class Imported(list):  # type: ignore[type-arg]
    """The instances a folder gave, and `skipped`: (path in the folder, reason) of each file left out."""

    def __init__(self, items: list[SpecsInstance], skipped: list[tuple[str, str]]) -> None:
        super().__init__(items)
        self.skipped = skipped


def main_function(text: str) -> str | None:
    contracted = [n for n in contracted_functions(text) if n != "main"]
    if not contracted:
        names = function_names(text)
        others = [n for n in names if n != "main"]
        # a program that is only `main` (a common shape in public ACSL collections) is a task about main
        return others[-1] if others else ("main" if "main" in names else None)
    tree, data = parse(text)
    called: set[str] = set()
    for name in contracted:
        node = function_node(tree, data, name)
        if node is not None:
            called |= calls_in(node, data) - {name}
    roots = [n for n in contracted if n not in called]
    return (roots or contracted)[-1]


def import_file(path: Path, parse_check: bool = True, root: Path | None = None, data: bytes | None = None
                ) -> SpecsInstance:
    """`data`: the file's bytes when already read (a folder's files are, by core/folders.py)."""
    try:
        text = (read_file(path) if data is None else data).decode("utf-8")
    except UnicodeDecodeError:
        raise SkippedFile(f"{path}: not UTF-8 text") from None
    folder = root if root is not None else path.parent
    reason = unsafe_include(text, folder=folder, here=path.parent)
    if reason:
        raise SkippedFile(f"{path}: include refused ({reason})")
    function = main_function(text)
    if function is None:
        raise SkippedFile(f"{path}: no function definition found")
    meta = {"control_flow": control_flow(text, function), "loops": loop_count(text, function),
            "program": path.stem, "transformation": "none",
            # the path inside the imported folder: two files with the same text keep two ids
            "source": path.relative_to(root).as_posix() if root is not None else path.name,
            "annotations": len(annotations(text))}
    if parse_check:
        from core.families.specs.verify import wp
        from core.families.specs.wp import WpOptions

        result = wp(text, WpOptions(provers="none"))
        meta["annotations_parse"] = result.outcome != "error"
        if result.outcome == "error":
            meta["parse_error"] = f"{result.error_kind}: {result.error_message}"
    inst = SpecsInstance(code=strip_annotations(text), function=function, description=f"Imported from {path.name}.",
                         ground_truth={"contract": text}, meta=meta)
    return inst.with_content_id()  # type: ignore[return-value]


def import_files(path: object) -> Imported | None:
    p = Path(str(path))
    if p.is_file() and p.suffix == ".c":
        files = [FolderFile(p.parent, PurePosixPath(p.name), read_file(p))]
        root = None
    elif p.is_dir():
        # read safely and bounded (core/folders.py): no symlink out of the folder, no FIFO, no deep recursion
        files = read_folder(p, lambda rel: rel.suffix == ".c")
        root = p
        if not files:
            return None
    else:
        return None
    return _import_all(files, root)


def _import_all(files: list[FolderFile], root: Path | None) -> Imported:
    """Each file in the tools' pool (the parse check is one Frama-C run per file, `workers()` at once), in
    order, with progress. A file that cannot become a task is left out with its reason (listed by the
    import, core.folders.skip) and the rest import. On an interruption (KeyboardInterrupt from
    SIGINT/SIGTERM) the files not started are dropped and the running ones finish, so every tool's private
    directory is removed on the way out."""
    from core.families.specs.verify import workers

    check = verify_references()
    total = len(files)
    report_progress("reading C files", 0, total)
    pool = ThreadPoolExecutor(max_workers=workers() if check else 1, thread_name_prefix="specs-import")
    out: list[SpecsInstance] = []
    skipped: list[tuple[str, str]] = []
    try:
        futures = [pool.submit(import_file, f.path, check, root, f.data) for f in files]
        for done, (f, future) in enumerate(zip(files, futures, strict=True), start=1):
            where = f.path.relative_to(root).as_posix() if root is not None else f.path.name
            try:
                out.append(future.result())
            except SkippedFile as exc:
                skipped.append((where, exc.message.removeprefix(f"{f.path}: ")))
            except (OSError, ValueError) as exc:  # unreadable, or not a valid instance: this file only
                first = str(exc).splitlines()[0][:200] if str(exc) else ""
                skipped.append((where, f"{type(exc).__name__}: {first}"))
            report_progress("reading C files", done, total)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    base = root if root is not None else files[0].path.parent
    for where, reason in skipped:
        skip(base / where, reason)
    return Imported(out, skipped)
