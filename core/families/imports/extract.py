"""Extraction: the import entries of a reply, read from its text (never compiled or run here).

Rules, in order:
1. The reasoning is dropped (core.extraction.split_reasoning: `<think>` blocks and the like; an unclosed
   one: everything after it).
2. Every `import a.b.C;` / `import static a.b.C.m;` / `import a.b.*;` anywhere in the reply counts:
   inside code fences, in prose, in backticks, several on one line. The semicolon may be missing at the
   end of a line. Entries are kept once, in order of appearance.
3. When the reply has no import statement at all, a bare list of FQNs is accepted: tokens such as
   `java.util.List` or `org.joda.time.*` on their own, in a list, comma-separated or in backticks (a
   token needs a lowercase first segment and at least one dot; `e.g.` and file names are not FQNs).
4. A reply that says there is nothing to import ("no imports", "none") is the empty answer; any other
   reply without entries is the failure "no_imports".
Wildcard and static entries are reported (`Answer.details`) and scored as written (see verify).
5. An entry of more than MAX_PARTS dotted parts or MAX_ENTRY_CHARS characters makes the answer the failure
   "too_long" (no real FQN comes near: the JDK's and the libraries' deepest have about ten parts). It
   is decided here, before javac sees the entry: a 50,000-part name overflows javac's stack, which
   would otherwise be reported as a compile crash.
"""

from __future__ import annotations

import re

from core.extraction import split_reasoning
from core.families.imports.model import ImportsAnswer
from core.verdict import Answer

MAX_CHARS = 200_000
MAX_PARTS = 64
MAX_ENTRY_CHARS = 1_000
IDENT = r"[A-Za-z_$][A-Za-z0-9_$]*"
IMPORT_RE = re.compile(rf"\bimport\s+(static\s+)?({IDENT}(?:\s*\.\s*{IDENT})*(?:\s*\.\s*\*)?)\s*(;|$|`)",
                       re.MULTILINE)
FQN_RE = re.compile(rf"(?<![\w.$/])([a-z][a-z0-9_$]*(?:\.{IDENT})+(?:\.\*)?)(?![\w$]|\.[\w*$])")
NOT_FQN = re.compile(r"^(e\.g|i\.e|etc|vs)\b|\.(java|class|jar|xml|txt|md|html|json|properties)$", re.IGNORECASE)
NOTHING_RE = re.compile(r"\b(no|none|nothing|zero)\b[^.\n]{0,40}\b(imports?|needed|required|necessary)\b|^\s*none\.?\s*$",
                        re.IGNORECASE | re.MULTILINE)


def _clean(entry: str) -> str:
    return re.sub(r"\s+", "", entry)


def extract(text: str, instance: object = None) -> Answer:
    try:
        return _extract(text)
    except Exception as exc:  # extraction never raises, whatever the reply
        return Answer.failure("extraction_crash", f"the reply could not be read ({type(exc).__name__})")


def _extract(text: str) -> Answer:
    if not isinstance(text, str):
        return Answer.failure("empty", "the reply is not text")
    body = split_reasoning(text.replace("\x00", "")).answer[:MAX_CHARS]
    if not body.strip():
        return Answer.failure("empty", "the reply is empty")
    entries: list[str] = []
    mode = "import_lines"
    for match in IMPORT_RE.finditer(body):
        name = _clean(match.group(2))
        entry = ("static " if match.group(1) else "") + name
        if "." in name and entry not in entries:
            entries.append(entry)
    if not entries:
        mode = "fqn_list"
        for match in FQN_RE.finditer(body):
            name = match.group(1)
            if NOT_FQN.search(name) or name.count(".") < 1:
                continue
            if name not in entries:
                entries.append(name)
    if not entries:
        if NOTHING_RE.search(body):
            return Answer.success(ImportsAnswer(imports=[]).model_dump(), mode="nothing", n=0)
        return Answer.failure("no_imports", "no import statement and no fully qualified name found in the reply")
    for entry in entries:
        parts = entry.removeprefix("static ").count(".") + 1
        if parts > MAX_PARTS or len(entry) > MAX_ENTRY_CHARS:
            return Answer.failure("too_long", f"an import entry has {parts:,} name parts and {len(entry):,} characters "
                                  f"(at most {MAX_PARTS} parts and {MAX_ENTRY_CHARS:,} characters: no Java name is "
                                  "that long)", parts=parts, length=len(entry))
    wildcards = [e for e in entries if e.endswith(".*")]
    static = [e for e in entries if e.startswith("static ")]
    value = ImportsAnswer(imports=entries, wildcards=wildcards, static=static).model_dump()
    details: dict[str, object] = {"mode": mode, "n": len(entries)}
    if wildcards:
        details["wildcards"] = wildcards
    if static:
        details["static"] = static
    return Answer(ok=True, value=value, details=details,
                  message=f"{len(entries)} import(s)" + (" (bare FQN list)" if mode == "fqn_list" else ""))


def answer_imports(answer: Answer) -> list[str] | None:
    """The entries of a successful extraction (None for a failure or a malformed value)."""
    if not answer.ok or not isinstance(answer.value, dict):
        return None
    raw = answer.value.get("imports")
    if not isinstance(raw, list):
        return None
    return [str(e) for e in raw if isinstance(e, str)]
