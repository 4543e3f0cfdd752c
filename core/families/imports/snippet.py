"""Java snippet text: parsing (tree-sitter-java), import lines out and in, package lines, FQN forms.

Import entries are written the way the instance JSON keeps them: `a.b.C`, wildcards `a.b.*`, static
imports `static a.b.C.m` (or `static a.b.C.*`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import tree_sitter as ts
import tree_sitter_java as tsj

JAVA_KEYWORDS = (
    "abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const", "continue",
    "default", "do", "double", "else", "enum", "extends", "final", "finally", "float", "for", "goto", "if",
    "implements", "import", "instanceof", "int", "interface", "long", "native", "new", "package", "private",
    "protected", "public", "return", "short", "static", "strictfp", "super", "switch", "synchronized", "this",
    "throw", "throws", "transient", "try", "void", "volatile", "while",
)


@functools.cache
def _parser() -> ts.Parser:
    return ts.Parser(ts.Language(tsj.language()))


def parse(code: str) -> ts.Tree:
    return _parser().parse(code.encode("utf-8", "surrogatepass"))


def node_text(source: bytes, node: ts.Node) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", "replace")


def entry_line(entry: str) -> str:
    return f"import {entry};"


def simple_name(entry: str) -> str:
    """The simple name an import brings in (`*` for wildcards, the member for static imports)."""
    return entry.rsplit(".", 1)[-1]


def import_entry(source: bytes, node: ts.Node) -> str:
    """`import static a.b.C.m;` -> `static a.b.C.m` (comments and spacing inside dropped)."""
    parts: list[str] = []
    static = False
    for child in node.children:
        if child.type == "static":
            static = True
        elif child.type in ("scoped_identifier", "identifier"):
            parts.append(re.sub(r"\s+", "", node_text(source, child)))
        elif child.type == "asterisk":
            parts.append("*")
    name = ".".join(parts)
    return ("static " if static else "") + name


@dataclass
class Split:
    code: str  # the source without import lines
    imports: list[str]  # entries in source order, duplicates kept once
    package: str | None


def split_imports(source: str) -> Split:
    """Remove every import declaration (with the rest of its line when that is only whitespace)."""
    data = source.encode("utf-8", "surrogatepass")
    tree = parse(source)
    imports: list[str] = []
    package = None
    cuts: list[tuple[int, int]] = []
    for node in tree.root_node.children:
        if node.type == "package_declaration":
            for child in node.children:
                if child.type in ("scoped_identifier", "identifier"):
                    package = re.sub(r"\s+", "", node_text(data, child))
        if node.type != "import_declaration":
            continue
        entry = import_entry(data, node)
        if entry and entry not in imports:
            imports.append(entry)
        start, end = node.start_byte, node.end_byte
        line_start = data.rfind(b"\n", 0, start) + 1
        line_end = data.find(b"\n", end)
        line_end = len(data) if line_end < 0 else line_end
        if not data[line_start:start].strip() and not data[end:line_end].strip():
            start, end = line_start, min(len(data), line_end + 1)
        cuts.append((start, end))
    out = bytearray()
    last = 0
    for start, end in cuts:
        out += data[last:start]
        last = end
    out += data[last:]
    code = out.decode("utf-8", "surrogatepass")
    # Imports usually sit in one block: collapse the blank lines their removal leaves behind.
    code = re.sub(r"\n{3,}", "\n\n", code).lstrip("\n")
    return Split(code=code, imports=imports, package=package)


def package_end(code: str) -> int:
    """Character offset just after the package declaration's line (0 when there is none)."""
    data = code.encode("utf-8", "surrogatepass")
    for node in parse(code).root_node.children:
        if node.type == "package_declaration":
            end = data.find(b"\n", node.end_byte)
            end = len(data) if end < 0 else end + 1
            return len(data[:end].decode("utf-8", "surrogatepass"))
    return 0


def with_imports(code: str, imports: list[str]) -> str:
    """The snippet with `import` lines for `imports` after its package line (or at the top).

    Entries are written as given (a malformed one makes a malformed line, which javac reports).
    """
    if not imports:
        return code
    lines = "".join(entry_line(e) + "\n" for e in imports)
    at = package_end(code)
    if at and not code[:at].endswith("\n"):
        lines = "\n" + lines
    return code[:at] + lines + code[at:]


def isolate_package(code: str, name: str) -> tuple[str, int]:
    """The code moved to package `name` (to compile many snippets in one javac task), and how many
    characters line 1 was shifted by (a package line added in front of it)."""
    data = code.encode("utf-8", "surrogatepass")
    for node in parse(code).root_node.children:
        if node.type == "package_declaration":
            head = len(data[:node.start_byte].decode("utf-8", "surrogatepass"))
            tail = len(data[:node.end_byte].decode("utf-8", "surrogatepass"))
            return code[:head] + f"package {name};" + code[tail:], 0
    prefix = f"package {name}; "
    return prefix + code, len(prefix)
