"""The contract as E-ACSL can check it at run time, for running mutants first (mutant_runs).

E-ACSL 25 leaves out a postcondition that reads the pre-state of an array element under a quantifier
(`\\forall integer k; 0 <= k < n ==> a[k] == \\old(a[k]) + 1`: "not yet supported", the annotation is
ignored), and evaluates `\\at(a[k], Pre)` inside a loop in the wrong state (a false alarm on the
unmutated program, which ended every run at the loop's first iteration). So a mutant that plainly
breaks such a contract was never caught by its run and went to WP.

- `pre_state_reads`: `\\old(a[E])` and `\\at(a[E], Pre)` for a pointer parameter `a` become
  `sembench_pre_a[E]`, a copy of the input array the harness makes just before the call. That is the
  same value, exactly: ACSL reads `a` itself at the pre-state there too, and the copy holds the same
  bytes at the parameter's own type. Only for a function that does not call itself (an inner call's
  pre-state is not the harness's copy); an index outside the array is a run-time error in the
  annotation, which is never evidence.
- `curried_guards`: E-ACSL takes a quantifier only as `\\forall k; lo <= k < hi ==> P` and leaves out
  `\\forall k; 0 <= k < n && 'a' <= s[k] ==> P` ("invalid quantification predicate"). `G && B ==> P`
  is written `G ==> B ==> P`, the same predicate (`==>` groups to the right), where the hypothesis is
  a conjunction at its top level (no `||`, `^^`, `<==>`, `?` or quantifier beside the `&&`).
- `without_labelled_invariants`: a loop invariant that still names a label is not checked at all. Not
  checking an annotation changes neither the program nor what the others mean.

Neither changes what WP is asked, and a false alarm of either on the unmutated program would still
discredit every run (mutant_runs)."""

from __future__ import annotations

import re

from core.families.specs.csyntax import annotations, function_node, node_text, parse, walk

PRE_PREFIX = "sembench_pre_"
_PRE_READ = re.compile(r"\\old\s*\(\s*(?P<name>[A-Za-z_]\w*)\s*\[|\\at\s*\(\s*(?P<at>[A-Za-z_]\w*)\s*\[")
_LOOP_CLAUSE = re.compile(rb"(?:\bfor\s+[\w\s,]+:\s*)?\bloop\s+(?:invariant|assigns|variant|allocates|frees)\b")


def without_labelled_invariants(text: str) -> str:
    """`text` with every loop invariant that names a label (`\\at(a[k], Pre)`) blanked out, its lines and
    byte offsets kept. E-ACSL evaluates such a value inside a loop in the wrong state; its false alarm ended
    every run at the loop's first iteration, before the postcondition, so a mutant that plainly breaks
    the postcondition was sent to WP. Not checking an annotation changes neither the program nor what
    the others mean, so a violation of any other one is still evidence."""
    data = bytearray(text.encode("utf-8", "surrogatepass"))
    for ann in annotations(text):
        body = bytes(data[ann.start:ann.end])
        end = len(body) - 2 if body.endswith(b"*/") else len(body)
        starts = [m.start() for m in _LOOP_CLAUSE.finditer(body)]
        if not starts:
            continue
        blank = [(a, b) for a, b in zip(starts, [*starts[1:], end], strict=True)
                 if b"\\at(" in body[a:b] and re.match(rb"(?:for\s+[\w\s,]+:\s*)?loop\s+invariant\b", body[a:b])]
        if not blank:
            continue
        if len(blank) == len(starts):  # nothing of the loop annotation left: the whole comment goes
            blank = [(0, len(body))]
        for a, b in blank:
            for i in range(ann.start + a, ann.start + b):
                if data[i] != 0x0A:
                    data[i] = 0x20
    return data.decode("utf-8", "surrogatepass")


def calls_itself(text: str, function: str) -> bool:
    tree, data = parse(text)
    fn = function_node(tree, data, function)
    body = fn.child_by_field_name("body") if fn is not None else None
    return body is not None and any(n.type == "identifier" and node_text(n, data) == function for n in walk(body))


def _closing(text: str, start: int, opening: str, closing: str) -> int:
    """The index of the bracket that closes the one just before `start`, or -1."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _rewrite(body: str, pointers: set[str]) -> str:
    out, pos = [], 0
    for match in _PRE_READ.finditer(body):
        if match.start() < pos:
            continue
        name = match.group("name") or match.group("at")
        if name not in pointers:
            continue
        close_index = _closing(body, match.end(), "[", "]")
        if close_index < 0:
            continue
        rest = body[close_index + 1:]
        tail = re.match(r"\s*\)", rest) if match.group("name") else re.match(r"\s*,\s*Pre\s*\)", rest)
        if tail is None:  # `\old(a[k] + 1)`, `\at(a[k], LoopEntry)`: left as they are
            continue
        index = body[match.end():close_index]
        out += [body[pos:match.start()], f"{PRE_PREFIX}{name}[{index}]"]
        pos = close_index + 1 + tail.end()
    return "".join(out) + body[pos:]


def pre_state_reads(text: str, pointers: set[str]) -> str:
    """`text` with the pre-state reads of the pointer parameters' elements, in its annotations only,
    made reads of the harness's copies (see the module's docstring)."""
    if not pointers:
        return text
    data = text.encode("utf-8", "surrogatepass")
    parts, pos = [], 0
    for ann in annotations(text):
        body = data[ann.start:ann.end].decode("utf-8", "surrogatepass")
        rewritten = _rewrite(body, pointers)
        if rewritten != body:
            parts += [data[pos:ann.start], rewritten.encode("utf-8", "surrogatepass")]
            pos = ann.end
    if not parts:
        return text
    return b"".join([*parts, data[pos:]]).decode("utf-8", "surrogatepass")


# what `_top_level` reports; `<==>` before `==>`, so that the longer one is read whole
_OPERATORS = ("<==>", "==>", "&&", "||", "^^", "?", "\\forall", "\\exists", "\\let")


def _top_level(text: str, start: int) -> list[tuple[int, str]]:
    """(position, operator) of the _OPERATORS in `text` from `start`, at the top level of the scope that
    starts there, up to the end of that scope (a closing bracket or a `;`)."""
    found: list[tuple[int, str]] = []
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                break
        elif c == ";" and depth == 0:
            break
        elif depth == 0:
            for op in _OPERATORS:
                if text.startswith(op, i):
                    found.append((i, op))
                    i += len(op) - 1
                    break
        i += 1
    return found


def curried_guards(text: str) -> str:
    """`text` with each `\\forall ...; G && B ==> P` in its annotations written `G ==> B ==> P`."""
    out = text
    for ann in reversed(annotations(text)):  # from the end: earlier offsets stay right
        body = out.encode("utf-8", "surrogatepass")[ann.start:ann.end].decode("utf-8", "surrogatepass")
        new = body
        for match in reversed(list(re.finditer(r"\\forall\b", body))):
            semi = new.find(";", match.end())
            if semi < 0:
                continue
            ops = _top_level(new, semi + 1)
            implication = next((k for k, (_, op) in enumerate(ops) if op == "==>"), None)
            if implication is None:
                continue
            hypothesis = ops[:implication]
            if not hypothesis or any(op != "&&" for _, op in hypothesis):
                continue
            at = hypothesis[0][0]
            new = new[:at] + "==>" + new[at + 2:]
        if new != body:
            data = out.encode("utf-8", "surrogatepass")
            out = (data[:ann.start] + new.encode("utf-8", "surrogatepass") + data[ann.end:]).decode(
                "utf-8", "surrogatepass")
    return out
