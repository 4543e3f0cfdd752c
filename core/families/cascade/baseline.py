"""Baseline solver for the cascade family: a symbolic PBE search for `str.replace` cascades.

Bidirectional beam search over states (the tuple of current strings). The forward side applies rules to
the inputs; the backward side undoes rules from the outputs, last rule first, which finds the rules whose
effect later rules hide from the forward side (feeding: a rule's rhs rewritten again). A state reached
from both sides joins the two halves into an answer. The two beams are re-run with growing widths (see
_SCHEDULE) until one run finds an answer, the candidates run out, or the time budget does.

Candidate rules come from comparing each unsolved string with its goal: every rule that turns the string
into its goal on its own, plus, for each changed region of a minimal edit alignment (merged with its
neighbours and widened by a little unchanged context), the rule rewriting that region. "Broad" runs add
every short rule from a piece of the current strings to a piece of the goal strings (or to a letter used
nowhere, a temporary marker). States are ranked by their total edit distance to the goal; dead states
(two equal strings that need different results) are dropped. Undoing a rule is ambiguous where its rhs
also occurs by chance, so a few readings are kept. Every answer is re-checked from the inputs before it
is returned, and the solver is deterministic: candidates are sorted, ties broken by the rules themselves.

The budget is an amount of WORK, not of time, so the same instance gets the same answer on any machine
at any load: every unit of the search (a proposed rule, a layer, a memo miss) costs work in proportion
to its size (a distance costs its table cells / 4096, an alignment its cells / 512, a proposed rule one
more unit per 50 strings it may move), and the search
stops when the allowance is spent. A budget of `budget_s` seconds is `budget_s * WORK_PER_SECOND` units
(calibrated so that it takes about `budget_s` seconds here; tests/bench/bench_baseline.py measures the
rate); a cap of WALL_FACTOR times that in the search thread's CPU time (never wall time, which load
stretches) is only a safety net against a pathological machine
and never decides an answer in normal use. Every unit is bounded in size (alignments and distances in
align.py, the exact-fix search and the broad pieces here), so the cap is checked often enough.

Only valid programs are proposed: sides of at most `max_side` characters from the instance's alphabet
(the released validity rules), the temporary marker being an alphabet letter no string uses.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from itertools import islice, product
from typing import TypeVar

from core.families.cascade.align import Hunk, bounded_distance, common_prefix, hunks
from core.families.cascade.model import CascadeInstance

Rule = tuple[str, str]
State = tuple[str, ...]
_T = TypeVar("_T")

# The runs, in order: (beam width, broad). Narrow beams answer easy problems at once; wide ones recover
# from greedy mistakes (a rule that looks good but blocks a later one). Broad runs also try every short
# rule between the strings, for rules whose trace the goal no longer shows; they have many more
# candidates, so they come later and narrower. Every run starts afresh: the early ones cost little next
# to the last.
_SCHEDULE: tuple[tuple[int, bool], ...] = (
    (4, False), (16, False), (64, False), (16, True), (256, False), (64, True),
    (1024, False), (256, True), (4096, False), (1024, True), (16384, False), (4096, True),
)
# Longest lhs and rhs of the broad candidates (the generator's rules have 1-3 characters a side).
_BROAD_LEN = 3
# Broad runs pair at most this many lhs with as many rhs (the most widespread pieces): problems with 50
# examples would otherwise give a million candidates a step.
_BROAD_PIECES = 48
# Unchanged characters added around a changed region: context lets a rule fire only where it should.
_MAX_CONTEXT = 2
# At most this many neighbouring changed regions are merged into one rule.
_MAX_MERGE = 3
# Longest lhs tried when looking for a rule that fixes a string exactly (bounds the work on long strings).
_MAX_EXACT_LHS = 8
# Occurrences of a rhs considered when undoing a rule (2**n choices).
_MAX_UNDO_SPOTS = 6
# Combinations of equally good preimages tried when undoing a rule.
_MAX_UNDO_WAYS = 4
# The work of one uninterruptible call is bounded so that `solve` stops close to its deadline on any
# input (see align.py for the alignment and distance caps). The generator's strings are far below them.
# Characters scanned by the exact-fix search of one string (candidate lhs x string length).
_MAX_EXACT_WORK = 4_000_000
# Characters of each string cut into pieces by the broad runs.
_MAX_PIECE_CHARS = 2_000
# A memo table is emptied when it grows past this, to bound memory on long runs.
_MEMO_LIMIT = 200_000


# Work units per second of the budget (tests/bench/bench_baseline.py measures the actual rate), and the
# safety net: WALL_FACTOR times the CPU time the work normally takes (see _Clock).
WORK_PER_SECOND = 100_000
WALL_FACTOR = 10.0
# How many units pass between two reads of the CPU clock (the safety net), so reading it costs nothing.
_WALL_EVERY = 256


class _OutOfBudget(Exception):
    """Raised inside the search when the work allowance is spent (or, as a safety net, the wall cap)."""


# The name earlier versions used (the tests patch the budget through it).
_OutOfTime = _OutOfBudget


def work_for(budget_s: float) -> int:
    """The work allowance of a budget given in seconds (the platform's unit)."""
    return max(0, int(budget_s * WORK_PER_SECOND))


def solve(
    inputs: list[str], outputs: list[str], max_programs: int, budget_s: float, *,
    max_side: int | None = None, allowed: frozenset[str] | None = None, work: int | None = None,
) -> list[Rule] | None:
    """A cascade of at most `max_programs` valid rules mapping every input to its output, or None.

    Deterministic: the same problem and budget give the same answer on any machine (or None when the
    budget is what ran out). `work` overrides the allowance derived from `budget_s`.
    """
    return solve_with_status(inputs, outputs, max_programs, budget_s, max_side=max_side, allowed=allowed,
                             work=work)[0]


def solve_with_status(
    inputs: list[str], outputs: list[str], max_programs: int, budget_s: float, *,
    max_side: int | None = None, allowed: frozenset[str] | None = None, work: int | None = None,
) -> tuple[list[Rule] | None, str]:
    """(cascade or None, why): "found", "budget" (the work allowance ran out), "exhausted" (every
    candidate was tried) or "impossible" (no cascade can work: replace is a function)."""
    if len(inputs) != len(outputs):
        raise ValueError(f"{len(inputs)} inputs but {len(outputs)} outputs")
    start: State = tuple(inputs)
    target: State = tuple(outputs)
    if start == target:
        return [], "found"
    if max_programs < 1 or not _consistent(start, target):
        return None, "impossible"
    allowance = work_for(budget_s) if work is None else work
    clock = _Clock(allowance, WALL_FACTOR * allowance / WORK_PER_SECOND + 1.0)
    limits = _Limits(max_side, allowed)
    memo = _Memo(clock)
    exhausted: set[bool] = set()  # kinds of run (broad or not) that already saw every candidate
    try:
        for width, broad in _SCHEDULE:
            if broad in exhausted or True in exhausted:  # a wider beam would find nothing new
                continue
            found, truncated = _bidirectional(start, target, max_programs, width, broad, memo, clock, limits)
            if found is not None and verify(inputs, outputs, found, max_programs, max_side=max_side, allowed=allowed):
                return found, "found"
            if not truncated:
                exhausted.add(broad)
    except _OutOfBudget:
        return None, "budget"
    return None, "exhausted"


def verify(inputs: list[str], outputs: list[str], cascade: list[Rule], max_programs: int, *,
           max_side: int | None = None, allowed: frozenset[str] | None = None) -> bool:
    """Exact check: the cascade is short enough, its programs valid, and it maps each input to its output."""
    limits = _Limits(max_side, allowed)
    if len(cascade) > max_programs or any(not lhs or not limits.ok((lhs, rhs)) for lhs, rhs in cascade):
        return False
    return all(_run(text, cascade) == want for text, want in zip(inputs, outputs, strict=True))


class _Limits:
    """The validity limits of a program: side length and alphabet (None: no limit)."""

    def __init__(self, max_side: int | None, allowed: frozenset[str] | None) -> None:
        self.max_side = max_side
        self.allowed = allowed

    def ok(self, rule: Rule) -> bool:
        lhs, rhs = rule
        if self.max_side is not None and (len(lhs) > self.max_side or len(rhs) > self.max_side):
            return False
        return self.allowed is None or (self.allowed.issuperset(lhs) and self.allowed.issuperset(rhs))


def _run(text: str, cascade: list[Rule]) -> str:
    for lhs, rhs in cascade:
        text = text.replace(lhs, rhs)
    return text


def _consistent(state: State, target: State) -> bool:
    """False when no cascade can work: replace is a function and never rewrites the empty string."""
    seen: dict[str, str] = {}
    for text, want in zip(state, target, strict=True):
        if seen.setdefault(text, want) != want or (not text and want):
            return False
    return True


def _bidirectional(
    inputs: State, outputs: State, max_programs: int, width: int, broad: bool, memo: _Memo, clock: _Clock,
    limits: _Limits | None = None,
) -> tuple[list[Rule] | None, bool]:
    """One beam search from each end, alternating a layer each, until the sides meet.

    Also tells whether the beam width ever dropped a state (if not, the search was exhaustive).
    """
    limits = limits or _Limits(None, None)
    forward = _Side(True, inputs, outputs, memo, broad, limits)
    backward = _Side(False, inputs, outputs, memo, broad, limits)
    for _ in range(max_programs):
        if not forward.frontier and not backward.frontier:
            break  # nothing left to grow: a huge K from an instance file must not spin here
        clock.tick()
        for side, other in ((forward, backward), (backward, forward)):
            if side.frontier:
                found = side.step(width, other, max_programs, clock)
                if found is not None:
                    return found, True
    return None, forward.truncated or backward.truncated


class _Clock:
    """The work allowance (deterministic) and the safety net (read every _WALL_EVERY ticks).

    The safety net reads this thread's CPU time, not the wall clock: a loaded machine (other processes,
    other solver threads) stretches wall time but not the CPU the search itself used, so the net never
    decides an answer because of load; it still stops a search on a pathologically slow machine."""

    def __init__(self, work: int, wall_s: float) -> None:
        self.left = work
        self.spent = 0
        self.deadline = time.thread_time() + wall_s
        self._reads = 0

    def tick(self, cost: int = 1) -> None:
        self.left -= cost
        self.spent += cost
        if self.left < 0:
            raise _OutOfBudget
        self._reads += 1
        if self._reads >= _WALL_EVERY:
            self._reads = 0
            if time.thread_time() >= self.deadline:
                raise _OutOfBudget


class _Memo:
    """Caches private to one solve, so its memory goes with it and concurrent solves share nothing.

    A miss checks the clock: on long strings the work behind one can take a while.
    """

    def __init__(self, clock: _Clock) -> None:
        self.clock = clock
        self.tables: dict[str, dict[Hashable, object]] = {}
        self._distances: dict[tuple[str, str], int] = {}

    def get(self, table: str, key: Hashable, make: Callable[[], _T], limit: int = _MEMO_LIMIT,
            cost: int = 1) -> _T:
        store = self.tables.setdefault(table, {})
        if key in store:
            return store[key]  # type: ignore[return-value]
        self.clock.tick(cost)
        if len(store) >= limit:
            store.clear()
        value = store[key] = make()
        return value

    def distance(self, text: str, want: str) -> int:
        # the hottest lookup of the search: a plain dict, no closure
        key = (text, want)
        found = self._distances.get(key)
        if found is None:
            self.clock.tick(1 + len(text) * len(want) // 4096)
            if len(self._distances) >= _MEMO_LIMIT:
                self._distances.clear()
            found = self._distances[key] = bounded_distance(text, want)
        return found

    def rewrites(self, text: str, want: str) -> frozenset[Rule]:
        # entries are sets of ~100 rules: keep fewer of them
        return self.get("rewrites", (text, want), lambda: _local_rewrites(text, want), _MEMO_LIMIT // 10,
                        cost=1 + min(len(text) * len(want), 250_000) // 512 + len(text) // 64)

    def preimages(self, text: str, rule: Rule, toward: str) -> tuple[str, ...]:
        return self.get("preimages", (text, rule, toward), lambda: _preimages(text, rule, toward, self),
                        cost=1 + len(text) // 256)


class _Side:
    """One direction of the search: forward from the inputs, or backward (last rule first) from the outputs.

    `paths[state]` is, forward, the rules leading from the inputs to `state` and, backward, the rules leading
    from `state` to the outputs, so a state reached from both sides joins the two halves into an answer.
    """

    def __init__(self, forward: bool, inputs: State, outputs: State, memo: _Memo, broad: bool,
                 limits: _Limits | None = None) -> None:
        self.forward = forward
        self.broad = broad
        self.limits = limits or _Limits(None, None)
        self.marker = _unused_letter(inputs + outputs, self.limits.allowed)
        self.inputs = inputs
        self.goal = outputs if forward else inputs
        origin = inputs if forward else outputs
        self.memo = memo
        self.paths: dict[State, list[Rule]] = {origin: []}
        self.scores: dict[State, int] = {origin: self.distance(origin)}
        self.frontier: list[State] = [origin]
        self.truncated = False  # whether the beam width ever dropped a state

    def distance(self, state: State) -> int:
        return sum(self.memo.distance(text, want) for text, want in zip(state, self.goal, strict=True))

    def step(self, width: int, other: _Side, max_programs: int, clock: _Clock) -> list[Rule] | None:
        """Grow the frontier by one rule; return an answer as soon as the two sides meet.

        Children beyond the beam are remembered too (the best `keep` of them), so that the other side can
        meet them; that also bounds the memory of a step.
        """
        children: dict[State, tuple[int, list[Rule]]] = {}
        keep = max(16 * width, 4096)
        for state in self.frontier:
            base, score = self.paths[state], self.scores[state]
            view = _View(state, self.goal, self.forward, self.memo)
            for rule in self.proposals(state):
                clock.tick(1 + len(state) // 50)  # per rule: a 50-example state costs more to move
                for child, delta in self.moves(view, rule):
                    if child in self.paths:
                        continue
                    path = [*base, rule] if self.forward else [rule, *base]
                    hit = other.join(child, path, max_programs)
                    if hit is not None:
                        return hit
                    entry = (score + delta, path)
                    known = children.get(child)
                    if known is None or entry < known:
                        children[child] = entry
                        dropped = _prune(children, keep) if len(children) > 4 * keep else 0
                        self.truncated = self.truncated or dropped > 0
        ranked = sorted(children.items(), key=lambda item: item[1])
        for child, (child_score, path) in ranked[:keep]:
            self.paths[child] = path
            self.scores[child] = child_score
        self.frontier = [child for child, _ in ranked[:width]]
        self.truncated = self.truncated or len(ranked) > width
        return None

    def join(self, state: State, path: list[Rule], max_programs: int) -> list[Rule] | None:
        """The full cascade through `state` when this side has reached it too (path is the other half)."""
        mine = self.paths.get(state)
        if mine is None or len(mine) + len(path) > max_programs:
            return None
        return [*mine, *path] if self.forward else [*path, *mine]

    def proposals(self, state: State) -> list[Rule]:
        """Candidate rules for the next step, sorted so that ties break the same way on every run."""
        rules: set[Rule] = set()
        for text, goal in zip(state, self.goal, strict=True):
            if text != goal:
                rules.update(self.memo.rewrites(text, goal) if self.forward else self.memo.rewrites(goal, text))
        if self.broad:
            rules.update(self._broad(state))
        if not self.forward:
            rules = {rule for rule in rules if rule[1]}  # a deletion cannot be undone: where did lhs go?
        if self.limits.max_side is not None or self.limits.allowed is not None:
            rules = {rule for rule in rules if self.limits.ok(rule)}  # only valid programs are proposed
        return sorted(rules)

    def _broad(self, state: State) -> set[Rule]:
        """Every short rule between the unsolved strings: lhs from the earlier side, rhs from the later."""
        unsolved = [(text, goal) for text, goal in zip(state, self.goal, strict=True) if text != goal]
        # plus a letter found nowhere as a temporary marker (swapping two letters needs one), and deletion
        marker = {self.marker} if self.marker else set()
        if self.forward:
            lhss, rhss = _pieces(t for t, _ in unsolved), _pieces(g for _, g in unsolved) | {""} | marker
        else:
            lhss, rhss = _pieces(g for _, g in unsolved) | marker, _pieces(t for t, _ in unsolved)
        return {(lhs, rhs) for lhs in lhss for rhs in rhss if lhs != rhs}

    def moves(self, view: _View, rule: Rule) -> list[tuple[State, int]]:
        """The states after applying (forward) or undoing (backward) the rule, with the change in score.

        Backward there may be several: the rule may have written each rhs occurrence or found it there
        (see _undo). Rules that change nothing or lead to a dead state give none. Only the strings the rule can touch
        are looked at, which keeps a step cheap on 50-example problems.
        """
        if self.forward:
            changes = self._apply(view, rule)
            return [self._child(view, changes)] if changes and view.still_consistent(changes) else []
        found = [self._child(view, changes) for changes in self._undo(view, rule) if changes]
        return list(dict(found).items())  # drop repeats, keep the order

    def _child(self, view: _View, changes: dict[int, str]) -> tuple[State, int]:
        goal, dist, before = self.goal, self.memo.distance, view.distances
        child = list(view.state)
        delta = 0
        for i, text in changes.items():
            child[i] = text
            delta += dist(text, goal[i]) - before[i]
        return tuple(child), delta

    @staticmethod
    def _apply(view: _View, rule: Rule) -> dict[int, str]:
        lhs, rhs = rule
        return {i: view.state[i].replace(lhs, rhs) for i in view.containing(lhs)}

    def _undo(self, view: _View, rule: Rule) -> list[dict[int, str]]:
        """Ways to undo the rule: per string, which rhs occurrences it wrote (rather than found there).

        First the closest preimages (and, where several are equally close, a few of their combinations),
        then the one undoing every occurrence it can.
        """
        lhs, rhs = rule
        # the strings holding lhs (it would be rewritten) or rhs (it may have been written)
        if lhs in rhs or rhs in lhs:
            spots = view.containing(lhs if lhs in rhs else rhs)
        else:
            spots = sorted({*view.containing(lhs), *view.containing(rhs)})
        options: list[tuple[str, ...]] = []
        greedy: dict[int, str] = {}
        for i in spots:
            text = view.state[i]
            closest = self.memo.preimages(text, rule, self.inputs[i])
            if not closest:
                return []
            options.append(closest)
            full = text.replace(rhs, lhs)
            greedy[i] = full if full.replace(lhs, rhs) == text else closest[0]
        ways = [dict(zip(spots, pick, strict=True)) for pick in islice(product(*options), _MAX_UNDO_WAYS)]
        return [{i: pre for i, pre in way.items() if pre != view.state[i]} for way in [*ways, greedy]]


def _prune(children: dict[State, tuple[int, list[Rule]]], keep: int) -> int:
    """Keep only the best `keep` children (the beam is among them); returns how many were dropped."""
    ranked = sorted(children.items(), key=lambda item: item[1])
    children.clear()
    children.update(ranked[:keep])
    return max(len(ranked) - keep, 0)


class _View:
    """A state prepared for many moves: where each substring occurs, and which goal each string has."""

    def __init__(self, state: State, goal: State, forward: bool, memo: _Memo) -> None:
        self.state = state
        self.goal = goal
        self.distances = [memo.distance(text, want) for text, want in zip(state, goal, strict=True)]
        # one string to search with str.find (fast) instead of a loop over the strings
        self.joined = "\0".join(state)
        self.starts: list[int] = []
        pos = 0
        for text in state:
            self.starts.append(pos)
            pos += len(text) + 1
        # A changed string that lands on another string must share its goal (forward only: backward
        # states need no check, as equal inputs give equal preimages and "" only undoes to "").
        self.owners = dict(zip(state, goal, strict=True)) if forward else {}

    def containing(self, sub: str) -> list[int]:
        """Indices of the strings that contain `sub` (non-empty)."""
        found: list[int] = []
        pos = self.joined.find(sub)
        while pos != -1:
            i = bisect_right(self.starts, pos) - 1
            if pos + len(sub) > self.starts[i] + len(self.state[i]):  # spans a separator: look on
                pos = self.joined.find(sub, pos + 1)
                continue
            found.append(i)
            if i + 1 == len(self.starts):
                break
            pos = self.joined.find(sub, self.starts[i + 1])
        return found

    def still_consistent(self, changes: dict[int, str]) -> bool:
        fresh: dict[str, str] = {}
        for i, text in changes.items():
            goal = self.goal[i]
            if (not text and goal) or fresh.setdefault(text, goal) != goal:
                return False
            if self.owners.get(text, goal) != goal:
                # `owners` may still hold a string that this very rule rewrote: decide exactly
                child = list(self.state)
                for j, new in changes.items():
                    child[j] = new
                return _consistent(tuple(child), self.goal)
        return True


def _unused_letter(texts: State, allowed: frozenset[str] | None = None) -> str:
    """A letter no string uses, for a temporary marker: from the alphabet when there is one ("" if the
    strings use all of it), else the first printable character from "a" on."""
    used = set("".join(texts))
    if allowed is not None:
        return next((ch for ch in sorted(allowed) if ch not in used), "")
    return next(ch for ch in map(chr, range(ord("a"), 0x110000)) if ch not in used and ch.isprintable())


def _pieces(texts: Iterable[str]) -> set[str]:
    """The substrings of 1.._BROAD_LEN characters found in most of the texts (at most _BROAD_PIECES)."""
    counts = Counter(
        piece
        for text in texts
        for piece in {text[i : i + n] for n in range(1, _BROAD_LEN + 1)
                      for i in range(min(len(text), _MAX_PIECE_CHARS) - n + 1)}
    )
    return {piece for _, piece in sorted((-count, piece) for piece, count in counts.items())[:_BROAD_PIECES]}


def _preimages(text: str, rule: Rule, toward: str, memo: _Memo) -> tuple[str, ...]:
    """The strings closest to `toward` that the rule rewrites into `text` (none when there are none).

    A rule's result may also contain its rhs by chance, so each set of rhs occurrences is tried as the set
    of places the rule wrote to. Among equally close strings those undoing most occurrences win: the rule
    is assumed to have written its rhs rather than found it.
    """
    lhs, rhs = rule
    keyed = sorted(
        (memo.distance(candidate, toward), -undone, candidate)
        for candidate, undone in _undo_choices(text, lhs, rhs)
        if candidate.replace(lhs, rhs) == text
    )
    return tuple(candidate for *key, candidate in keyed if key == list(keyed[0][:2]))


def _undo_choices(text: str, lhs: str, rhs: str) -> list[tuple[str, int]]:
    """`text` with each set of non-overlapping rhs occurrences turned back into lhs, and the set's size.

    Only the first _MAX_UNDO_SPOTS occurrences are considered, to bound the work on long strings.
    """
    spots: list[int] = []
    at = text.find(rhs)
    while at >= 0 and len(spots) < _MAX_UNDO_SPOTS:  # overlapping occurrences too, like startswith at each i
        spots.append(at)
        at = text.find(rhs, at + 1)
    out: list[tuple[str, int]] = []

    def build(k: int, pos: int, parts: list[str]) -> None:
        if k == len(spots):
            out.append(("".join(parts) + text[pos:], len(parts) // 2))
            return
        build(k + 1, pos, parts)
        if spots[k] >= pos:
            build(k + 1, spots[k] + len(rhs), [*parts, text[pos : spots[k]], lhs])

    build(0, 0, [])
    return out


def _local_rewrites(text: str, want: str) -> frozenset[Rule]:
    """Rules that turn `text` into `want` at once, or rewrite one changed region (or a few neighbouring ones)."""
    rules = _exact_fixes(text, want)
    for found in {hunks(text, want, prefer_left=True), hunks(text, want, prefer_left=False)}:
        for first in range(len(found)):
            for last in range(first, min(first + _MAX_MERGE, len(found))):
                rules.update(_with_context(text, want, found[first], found[last]))
    return frozenset(rules)


def _exact_fixes(text: str, want: str) -> set[Rule]:
    """Every rule (lhs up to _MAX_EXACT_LHS long) that turns `text` into exactly `want` on its own.

    For a given lhs the rhs is forced: the text before the first occurrence is kept, and the length change
    spreads evenly over the occurrences. So the first occurrence starts at or before the first difference
    `p`, and only lhs starting there are tried (no answer is lost). On long strings only the starts
    nearest `p` are tried, within _MAX_EXACT_WORK.
    """
    rules: set[Rule] = set()
    p = common_prefix(text, want)
    starts = range(min(p, len(text) - 1), -1, -1)
    budget = max(1, _MAX_EXACT_WORK // (max(len(text), 1) * _MAX_EXACT_LHS))
    lhss = {text[i:j] for i in islice(starts, budget) for j in range(i + 1, min(len(text), i + _MAX_EXACT_LHS) + 1)}
    for lhs in lhss:
        grow, rest = divmod(len(want) - len(text), text.count(lhs))
        if rest or len(lhs) + grow < 0:
            continue
        first = text.index(lhs)
        rule = (lhs, want[first : first + len(lhs) + grow])
        if rule[0] != rule[1] and text.replace(*rule) == want:
            rules.add(rule)
    return rules


def _with_context(text: str, want: str, first: Hunk, last: Hunk) -> set[Rule]:
    """The rewrite of text[a:b] -> want[c:d], widened by up to _MAX_CONTEXT shared characters each side."""
    a, _, c, _ = first
    _, b, _, d = last
    rules: set[Rule] = set()
    for left in range(min(a, c, _MAX_CONTEXT) + 1):
        for right in range(min(len(text) - b, len(want) - d, _MAX_CONTEXT) + 1):
            lhs = text[a - left : b + right]
            rhs = want[c - left : d + right]
            if lhs and lhs != rhs:
                rules.add((lhs, rhs))
    return rules


def oracle_response(instance: CascadeInstance) -> str:
    """The ground-truth cascade written as a model would answer."""
    from core.families.cascade.prompt import format_response

    cascade = instance.cascade()
    if cascade is None:
        raise ValueError(f"instance {instance.id} has no ground-truth cascade")
    return format_response(cascade)


def baseline_response(instance: CascadeInstance, budget_s: float) -> str:
    """The search's answer, written as a model would answer; when the work budget runs out, a reply that
    extraction records as "no_answer_within_budget"."""
    from core.families.cascade.extract import NO_ANSWER_MARK
    from core.families.cascade.prompt import format_response

    found, why = solve_with_status(instance.inputs, instance.outputs, instance.max_programs(), budget_s,
                                   max_side=instance.max_side(), allowed=instance.allowed_chars())
    if found is not None:
        return format_response(found)
    if why == "budget":
        return (f"No cascade found within the work budget ({work_for(budget_s):,} units for {budget_s:g} s).\n"
                f"{NO_ANSWER_MARK}\n")
    if why == "impossible":
        return "No cascade can map these inputs to these outputs (replace maps equal strings alike)."
    return "No cascade found: the search tried every candidate it had."
