"""A family's TUI is one optional module: the workbench never imports a family's private modules, and a
family module imports at most its own family's package (`core.families.<id>`, its `__init__`)."""

from __future__ import annotations

import ast
from pathlib import Path

import tui
from tui.families import FamilyView, module_name, view_for

ROOT = Path(tui.__file__).parent


def family_imports(path: Path) -> list[str]:
    """The `core.families...` modules a file imports (import and from-import, relative ones resolved)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.startswith("core.families")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("core.families"):
            found += [node.module] if node.module != "core.families" else [f"core.families.{a.name}"
                                                                             for a in node.names]
    return found


def test_tui_imports_no_private_family_module() -> None:
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        allowed = set()
        if path.parent == ROOT / "families" and path.stem != "__init__":
            allowed = {f"core.families.{path.stem}"}  # its own family's package module only
        for module in family_imports(path):
            if module not in allowed:
                offenders.append(f"{path.relative_to(ROOT.parent)} imports {module}")
    assert offenders == []


def test_every_family_module_exports_one_view_and_the_lookup_fills_the_rest() -> None:
    from tui.widgets.diff import generic_answer, generic_diff
    from tui.widgets.problem import generic_problem
    from tui.widgets.steppers import SourceStepper

    modules = sorted(p.stem for p in (ROOT / "families").glob("*.py") if p.stem != "__init__")
    assert {"cascade", "membership"} <= set(modules)
    for family_id in modules:
        view = view_for(family_id)
        assert isinstance(view, FamilyView) and all(getattr(view, f) is not None for f in FamilyView.__dataclass_fields__)
    # A family with no module of its own: every part generic, the real source stepper among them.
    assert view_for("toysum") == FamilyView(problem=generic_problem, answer=generic_answer, diff=generic_diff,
                                            stepper=SourceStepper)
    assert module_name("my-family") == "tui.families.my_family"


def test_no_scattered_registries_are_left() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in ROOT.rglob("*.py"))
    for name in ("HUMAN_HINTS", "ANSWER_VIEWS", "VIEWS:", "stepper_class", "typeinf"):
        assert name not in text, name


def screen_imports(path: Path) -> set[str]:
    """The `tui.screens.*` modules a file imports anywhere in it (inside functions too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "tui.screens":
                found |= {f"tui.screens.{alias.name}" for alias in node.names}
            elif node.module.startswith("tui.screens."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("tui.screens.")}
    return found


def test_the_screens_import_each_other_in_no_circle() -> None:
    """Each screen knows what it shows: what two screens share (the list `]`/`[` walk, the note editor)
    lives in a module of its own, so no chain of imports, at the top or inside a function, comes back."""
    graph = {f"tui.screens.{path.stem}": screen_imports(path) for path in sorted((ROOT / "screens").glob("*.py"))}
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(module, ())):
            if nxt in path:
                cycles.append([*path[path.index(nxt):], nxt])
            elif len(path) < len(graph):
                visit(nxt, [*path, nxt])

    for start in graph:
        visit(start, [start])
    assert cycles == []
