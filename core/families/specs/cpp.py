r"""Preprocessor directives in C text, read the way the C preprocessor reads them, and the include guard.

Why not tree-sitter: the preprocessor works on lines after line splicing and comment removal, so
`/* c */ #include "x"`, `%:include "x"` (a digraph) and `#\<newline>include "x"` are directives that a
syntax tree may miss or misplace. Frama-C also preprocesses the text of annotations (`-pp-annot`), so a
`#include` line inside `/*@ ... */` is read too: such lines are directives here as well.

`directives(text)` lists every directive (1-based line, whitespace-normalised text); a reply must keep
the task's list exactly (`extract`). `unsafe_include(text, folder)` says why a program's includes could
make gcc or Frama-C read something other than a header (a device, a FIFO, `/proc`, a file outside the
task's folder and the system include directories), before either tool sees the text.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

# where `#include <...>` and a quoted include that is not found next to the file are looked up
SYSTEM_INCLUDE_DIRS = ("/usr/include", "/usr/local/include", "/usr/lib/gcc", "/usr/share/frama-c")
_FORBIDDEN_ROOTS = ("/proc", "/sys", "/dev", "/run")
_INCLUDE = re.compile(r'^#\s*(?:include|include_next|import)\b\s*(?P<arg>.*)$')


@dataclass(frozen=True)
class Directive:
    line: int  # 1-based, in the original text
    text: str  # "#include <limits.h>": one space between words, none after '#'


def _normalise(body: str) -> str:
    return "#" + " ".join(body.split())


def _logical_lines(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(code lines, annotation lines): lines after splicing, with comments removed from code lines;
    each annotation comment's own lines apart (their first line number, text)."""
    code: list[tuple[int, str]] = []
    notes: list[tuple[int, str]] = []
    line_no = 1  # line of the character being read
    current: list[str] = []
    current_start = 1
    comment: list[str] | None = None
    comment_line = 0
    annotation = False
    i, n = 0, len(text)
    state = "code"  # code, block, line, str, chr
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] == "\n":  # line splicing: gone before anything else
            i += 2
            line_no += 1
            if comment is not None and annotation:
                notes.append((comment_line, "".join(comment)))
                comment, comment_line = [], line_no
            continue
        if state == "code":
            if text.startswith("/*", i) or text.startswith("//", i):
                state = "block" if text[i + 1] == "*" else "line"
                annotation = text.startswith("@", i + 2)
                comment, comment_line = [], line_no
                current.append(" ")
                i += 2 + (1 if annotation else 0)
                continue
            if ch in "\"'":
                state = "str" if ch == '"' else "chr"
            if ch == "\n":
                code.append((current_start, "".join(current)))
                current, current_start = [], line_no + 1
                line_no += 1
            else:
                current.append(ch)
            i += 1
            continue
        if state in ("str", "chr"):
            quote = '"' if state == "str" else "'"
            if ch == "\\" and i + 1 < n:
                current.append(text[i:i + 2])
                i += 2
                continue
            if ch == quote or ch == "\n":  # an unterminated literal ends with its line
                state = "code"
                if ch == "\n":
                    continue
            current.append(ch)
            i += 1
            continue
        # inside a comment
        end_block = state == "block" and text.startswith("*/", i)
        end_line = state == "line" and ch == "\n"
        if end_block or end_line:
            if annotation and comment is not None:
                notes.append((comment_line, "".join(comment)))
            comment = None
            state = "code"
            i += 2 if end_block else 0
            continue
        if ch == "\n":
            if annotation and comment is not None:
                notes.append((comment_line, "".join(comment)))
            comment, comment_line = [], line_no + 1
            line_no += 1
        elif comment is not None:
            comment.append(ch)
        i += 1
    if current:
        code.append((current_start, "".join(current)))
    if comment is not None and annotation:
        notes.append((comment_line, "".join(comment)))
    return code, notes


def _directive(line: str) -> str | None:
    stripped = line.strip()
    if stripped.startswith("#"):
        return _normalise(stripped[1:])
    if stripped.startswith("%:"):  # the digraph of '#'
        return _normalise(stripped[2:])
    return None


def directives(text: str) -> list[Directive]:
    """Every preprocessor directive of the program, including directive lines inside annotations."""
    code, notes = _logical_lines(text)
    found = [Directive(no, d) for no, line in code if (d := _directive(line)) is not None]
    for no, line in notes:
        d = _directive(line.lstrip().lstrip("@"))
        if d is not None:
            found.append(Directive(no, d))
    return sorted(found, key=lambda d: d.line)


@dataclass
class DirectiveDiff:
    expected_line: int
    got_line: int
    expected: str
    got: str


def compare_directives(task_code: str, annotated: str) -> DirectiveDiff | None:
    """The first directive the reply adds, removes or changes (None when the two lists are the same)."""
    want, have = directives(task_code), directives(annotated)
    for i in range(max(len(want), len(have))):
        a = want[i] if i < len(want) else None
        b = have[i] if i < len(have) else None
        if a is None or b is None or a.text != b.text:
            return DirectiveDiff(a.line if a else 0, b.line if b else 0,
                                 a.text if a else "(no directive)", b.text if b else "(no directive)")
    return None


# ---- the include guard ------------------------------------------------------------------------------
def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def _check_target(target: Path, roots: list[Path]) -> str:
    """Why the file an include names may not be read ("" when it may)."""
    real = Path(os.path.realpath(target))
    if any(real == Path(r) or Path(r) in real.parents for r in _FORBIDDEN_ROOTS):
        return f"it names {real}, a device or a system pseudo-file"
    if not _inside(real, roots + [Path(d) for d in SYSTEM_INCLUDE_DIRS]):
        return f"it names {real}, outside the task's folder and the system include directories"
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return ""  # not there: the compiler looks in the system directories, then reports it missing
    if not stat.S_ISREG(mode):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) \
            else "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        return f"it names {real}, {kind}"
    return ""


def unsafe_include(text: str, folder: Path | None = None, here: Path | None = None) -> str:
    """Why the program's includes are refused ("" when every include is safe to preprocess).

    `<name>`: a relative name without `..` (looked up in the system directories only). `"name"`: resolved
    next to the file (`here`, default `folder`), it must stay inside `folder` (the task's folder; none for a
    program that has no folder: then only relative names without `..`, which fall back to the system
    directories) and be a regular file. A computed include (`#include MACRO`) cannot be checked."""
    roots = [Path(os.path.realpath(folder))] if folder is not None else []
    base = here if here is not None else folder
    for d in directives(text):
        m = _INCLUDE.match(d.text)
        if m is None:
            continue
        arg = m.group("arg").strip()
        where = f"line {d.line}: `{d.text}`"
        if len(arg) >= 2 and arg[0] == "<" and ">" in arg:
            name = arg[1:arg.index(">")]
            if name.startswith("/") or ".." in Path(name).parts:
                return f"{where}: a system include must be a plain name inside the system include directories"
            continue
        if not (len(arg) >= 2 and arg[0] == '"' and '"' in arg[1:]):
            return f"{where}: a computed include cannot be checked"
        name = arg[1:arg.index('"', 1)]
        if base is None:
            if name.startswith("/") or ".." in Path(name).parts:
                return f"{where}: a quoted include must be a relative header name without `..`"
            continue
        reason = _check_target(Path(base) / name, roots)
        if reason:
            return f"{where}: {reason}"
    return ""
