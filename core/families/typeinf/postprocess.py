"""TF-Bench's post-processing as released (Appendix C; `src/tfbench/postprocessing.py`,
RESPONSE_STRATEGIES, in GitHub SecurityLab-UCD/TF-Bench): the paper's judgement reads a reply this way.

In order: `[Char]` -> `String`; the fence delimiters "```haskell\\n" and "\\n```" removed; when the text
has `::`, what lies between the first and the second `::` kept (the hook and any name before it dropped,
as is text before a name); stripped; newlines removed (joined with nothing, as released, so prose on
the next line runs into the type); backticks stripped from both ends. The released steps that only
normalise spaces (after commas, around `->`) change nothing for a parser and are left out: as regexes
over arbitrary text (`\\s*->\\s*`) they are quadratic on long runs of spaces.

What is left is the answer's type: if it is not a type (text beyond the signature: an explanation,
a second signature) the reply is wrong under this judgement — the paper's InstructionFollowing.
Reasoning (`<think>` blocks) is removed before, by the caller. Linear in the text.
"""

from __future__ import annotations

MAX_KEPT_CHARS = 4_000  # a released answer longer than this is not a type (and is not stored)


def released_type(text: str) -> str:
    text = text.replace("[Char]", "String")
    text = text.replace("```haskell\n", "").replace("\n```", "")
    if "::" in text:
        text = text.split("::", 2)[1]
    text = text.strip().replace("\n", "").replace("\r", "")
    return text.strip("`")
