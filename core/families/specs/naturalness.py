"""Naturalness of a transformed program, and the Diverse-N subset built on it (the paper's Appendix E).

The paper measures naturalness as the relative change in cross-entropy between a program and its
transformed version under a language model (Le-Cong et al. 2024, after Hindle et al. 2016), keeps the
more natural half of the transformed programs, then the programs left with at least three of them.
Here the language model is a token trigram model (interpolated absolute discounting, D = 0.75, over
the code tokens outside comments) trained on the bundled corpus's original programs, leaving out the
program being scored so it never scores its own text; no neural model is needed and the figures are
exactly reproducible. A variant's score is (H(variant) - H(original)) / H(original) in bits per token:
lower is more natural.
"""

from __future__ import annotations

import functools
import math
from collections import Counter

from core.families.specs.csyntax import code_tokens, strip_annotations

DISCOUNT = 0.75
KEEP_SHARE = 0.5  # the more natural half of the variants
MIN_VARIANTS = 3  # programs keep their variants only with at least this many in the kept half
START, END = "<s>", "</s>"


def tokens(code: str) -> list[str]:
    return [t.text for t in code_tokens(code)]


class Counts:
    """n-gram counts of some programs: per order (0: unigram .. 2: trigram) the grams, their
    contexts, and how many distinct words follow each context."""

    def __init__(self, programs: list[list[str]]) -> None:
        self.grams: list[Counter[tuple[str, ...]]] = [Counter(), Counter(), Counter()]
        self.context: list[Counter[tuple[str, ...]]] = [Counter(), Counter(), Counter()]
        self.followers: list[Counter[tuple[str, ...]]] = [Counter(), Counter(), Counter()]
        for toks in programs:
            seq = [START, START, *toks, END]
            for i in range(2, len(seq)):
                for order in range(3):
                    gram = tuple(seq[i - order:i + 1])
                    if self.grams[order][gram] == 0:
                        self.followers[order][gram[:-1]] += 1
                    self.grams[order][gram] += 1
                    self.context[order][gram[:-1]] += 1


class TrigramModel:
    """P(w | u v) from the corpus's counts minus one program's (leave-one-out without recounting),
    each order interpolated with the next lower one (absolute discounting); the unigram level is
    add-one smoothed over the vocabulary plus one unseen token."""

    def __init__(self, total: Counts, left_out: Counts) -> None:
        self.total, self.out = total, left_out
        # contexts whose followers the left-out program alone provides
        self.lost: list[Counter[tuple[str, ...]]] = [Counter(), Counter(), Counter()]
        for order in range(3):
            for gram, n in left_out.grams[order].items():
                if total.grams[order][gram] == n:
                    self.lost[order][gram[:-1]] += 1
        self.vocab = len(total.grams[0]) - self.lost[0][()] + 1

    def _n(self, order: int, gram: tuple[str, ...]) -> int:
        return self.total.grams[order][gram] - self.out.grams[order][gram]

    def prob(self, history: tuple[str, ...], word: str) -> float:
        p = (self._n(0, (word,)) + 1) / (self.total.context[0][()] - self.out.context[0][()] + self.vocab)
        for order in (1, 2):
            ctx = history[len(history) - order:]
            context = self.total.context[order][ctx] - self.out.context[order][ctx]
            if context == 0:
                continue
            followers = self.total.followers[order][ctx] - self.lost[order][ctx]
            p = max(self._n(order, (*ctx, word)) - DISCOUNT, 0.0) / context + DISCOUNT * followers / context * p
        return p

    def cross_entropy(self, toks: list[str]) -> float:
        """Bits per token, the end marker included."""
        seq = [START, START, *toks, END]
        bits = -sum(math.log2(self.prob((seq[i - 2], seq[i - 1]), seq[i])) for i in range(2, len(seq)))
        return bits / (len(seq) - 2)


@functools.cache
def _corpus() -> tuple[Counts, dict[str, list[str]]]:
    from core.families.specs.corpus import entries

    programs = {e["name"]: tokens(strip_annotations(e["reference"])) for e in entries()}
    return Counts(list(programs.values())), programs


@functools.cache
def model_without(program: str) -> TrigramModel:
    total, programs = _corpus()
    return TrigramModel(total, Counts([programs[program]] if program in programs else []))


@functools.cache
def _base_entropy(program: str, original: str) -> float:
    return model_without(program).cross_entropy(tokens(original))


def score(program: str, original: str, variant: str) -> float:
    """Relative change in cross-entropy from the original's code to the variant's (lower: more natural)."""
    base = _base_entropy(program, original)
    return (model_without(program).cross_entropy(tokens(variant)) - base) / base


def select(scored: dict[tuple[str, str], float]) -> set[tuple[str, str]]:
    """Diverse-N from {(program, transformation): score}: the more natural half of the variants
    (ties in a fixed order), then only programs with at least MIN_VARIANTS variants in that half."""
    ranked = sorted(scored, key=lambda key: (scored[key], key))
    kept = ranked[:math.ceil(len(ranked) * KEEP_SHARE)]
    per_program = Counter(program for program, _ in kept)
    return {(p, t) for p, t in kept if per_program[p] >= MIN_VARIANTS}


def diverse_n_table() -> dict[str, object]:
    """Every variant of the diverse set with its score and whether Diverse-N keeps it (what
    assets/specs/diverse-n.json holds)."""
    from core.families.specs.corpus import entries, program_variants

    scored = {}
    for entry in entries():
        original = strip_annotations(entry["reference"])
        for name, variant in program_variants(entry["name"]).items():
            scored[(entry["name"], name)] = score(entry["name"], original, strip_annotations(variant))
    kept = select(scored)
    return {"measure": "relative change in cross-entropy, token trigram model, leave-one-program-out",
            "keep_share": KEEP_SHARE, "min_variants": MIN_VARIANTS,
            "variants": [{"program": p, "transformation": t, "score": round(v, 6), "kept": (p, t) in kept}
                         for (p, t), v in sorted(scored.items())]}


if __name__ == "__main__":
    import json

    from core.families.specs.corpus import DIVERSE_N

    table = diverse_n_table()
    rows = ",\n".join("  " + json.dumps(row) for row in table.pop("variants"))  # type: ignore[union-attr]
    head = json.dumps(table)[:-1]
    DIVERSE_N.write_text(f'{head}, "variants": [\n{rows}\n]}}\n', encoding="utf-8")
    print(f"wrote {DIVERSE_N}")
