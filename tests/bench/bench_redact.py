"""Cost of redacting one known key from stored text: the key alone (in any letter case, and any 12
characters of it) against the key with its reversed and base64 forms (core.models.secrets.forms), side by
side in one process.

    .venv/bin/python tests/bench/bench_redact.py
"""

from __future__ import annotations

import json
import random
import string
import timeit

from core.models import secrets

KEY = "sk-proj-Q7vLm2XcB9dR4tY8wZ1nK6pH3sF0gJ5aE"[:40]


def key_only(text: str) -> str:
    """The redaction as it was before the forms: the key and its 12-character pieces only."""
    folded = secrets._fold(text)
    spans = secrets._spans(folded, secrets._folded_key(KEY))
    return text if not spans else text


def main() -> None:
    rng = random.Random(1)
    ascii_reply = " ".join("".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(2, 9)))
                           for _ in range(700))[:4300]
    texts = {"ascii_4300": ascii_reply, "non_ascii_4400": ("Ünïcödé wörds ąęł " * 300)[:4400], "chars_19": "x" * 19}
    out = {}
    for name, text in texts.items():
        runs: dict[str, list[float]] = {"key_only": [], "with_forms": []}
        for _ in range(15):
            runs["key_only"].append(timeit.timeit(lambda t=text: key_only(t), number=500) / 500)
            runs["with_forms"].append(timeit.timeit(lambda t=text: secrets._redact(t, (KEY,)), number=500) / 500)
        alone, forms = min(runs["key_only"]), min(runs["with_forms"])
        out[name] = {"key_only_us": round(alone * 1e6, 1), "with_forms_us": round(forms * 1e6, 1),
                     "ratio": round(forms / alone, 2)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
