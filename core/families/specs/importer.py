"""Annotated C files from elsewhere (public ACSL collections): one program per `.c` file.

The task is the file with every annotation removed (comments and strings that merely contain `/*@` are
left alone); the reference is the annotated file; the function is the contracted one that no other
contracted function calls (the last such when several qualify). A file whose annotations Frama-C cannot
parse is still imported, with `meta.annotations_parse = false` and the message.
"""

from __future__ import annotations

from pathlib import Path

from core.errors import UserError
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


def main_function(text: str) -> str | None:
    contracted = [n for n in contracted_functions(text) if n != "main"]
    if not contracted:
        others = [n for n in function_names(text) if n != "main"]
        return others[-1] if others else None
    tree, data = parse(text)
    called: set[str] = set()
    for name in contracted:
        node = function_node(tree, data, name)
        if node is not None:
            called |= calls_in(node, data) - {name}
    roots = [n for n in contracted if n not in called]
    return (roots or contracted)[-1]


def import_file(path: Path, parse_check: bool = True, root: Path | None = None) -> SpecsInstance:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text") from None
    function = main_function(text)
    if function is None:
        raise UserError(f"{path}: no function definition found")
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


def import_files(path: object) -> list[SpecsInstance] | None:
    p = Path(str(path))
    if p.is_file() and p.suffix == ".c":
        files = [p]
    elif p.is_dir():
        files = sorted(q for q in p.rglob("*.c") if q.is_file())
        if not files:
            return None
    else:
        return None
    return [import_file(f, root=p if p.is_dir() else None) for f in files]
