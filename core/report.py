"""Reports on runs: the family's metrics (overall and per difficulty feature), pass@k, errors, and
side-by-side comparisons. Everything is a JSON-able dict; rendering lives in `core.report_view`.

Verdicts come from the stored verdict JSON (an attempt is verified once, when it is recorded); only an
attempt with no stored verdict and no error is re-verified here. A solver error counts as a wrong
answer with status "error", so a run's metrics are over every attempt it made.

Scale: a run of 200,000 attempts (1,600 instances x 125 samples) reports in a few seconds. Counts,
errors, pass@k and the best-of-k selection are aggregated in SQL over the `attempts` columns; only the
verdicts the family's metrics need (sample 0, and the selected sample of each instance) are parsed,
and only the instances that have them. pass@k is O(samples) per distinct (n, correct) pair. Finished
reports are cached in the log database per run and recomputed when the run changes (see `stamp`).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from core import __version__
from core.errors import UserError
from core.family import Family, MetricRow, get_family
from core.instance import Instance
from core.store import SnapshotStore, Workspace, envfaults
from core.store.faults import stored_json
from core.store.runs import get_run, now_iso
from core.verdict import Verdict

# Bump when the report's content changes for the same data, so cached reports are recomputed.
REPORT_FORMAT = 4
# "The run's attempts", worded so that SQLite uses the attempts_run_facts index (core.store.migrations).
RUN_FACTS = "('' || run_id) = ? and run_id is not null"


class RunData:
    """One run joined with its snapshot. Everything is read on demand, once: the aggregates in SQL,
    then only the verdicts and instances a report needs."""

    def __init__(self, ws: Workspace, run: dict[str, Any], family: Family, store: SnapshotStore,
                 scoring: str | None = None) -> None:
        self.ws = ws
        self.run = run
        self.family = family
        self.store = store
        self.run_id: str = run["id"]
        # Which of the family's scorings judges: the default reads the stored verdicts; another one
        # (cascade's "released") scores every stored reply again.
        self.scoring = family.scoring(scoring)
        self.rescored = self.scoring != family.scorings[0]

    @property
    def db(self) -> sqlite3.Connection:
        return self.ws.log.db.conn

    # -- the snapshot ------------------------------------------------------------------------------
    @cached_property
    def instance_ids(self) -> dict[str, int]:
        """id -> position in the snapshot."""
        cursor = self.store.db.conn.execute(
            "select id, idx from instances where snapshot = ? order by idx", [self.run["snapshot"]])
        return {iid: idx for iid, idx in cursor}

    @cached_property
    def _instance_cache(self) -> dict[str, Instance]:
        return {}

    def instances_for(self, ids: Iterable[str]) -> dict[str, Instance]:
        """The parsed instances with these ids (parsed once), in snapshot order."""
        ids = list(ids)
        cache = self._instance_cache
        missing = [iid for iid in ids if iid not in cache]
        if missing:
            wanted = set(missing)
            rows = self.store.db.conn.execute("select id, data from instances where snapshot = ?",
                                              [self.run["snapshot"]])
            for iid, data in rows:
                if iid in wanted:
                    cache[iid] = self._parse(stored_json(data, f"instances.data of '{iid}'"))
        order = self.instance_ids
        return {iid: cache[iid] for iid in sorted(set(ids), key=order.__getitem__) if iid in cache}

    def _parse(self, data: dict[str, Any]) -> Instance:
        try:
            return self.family.parse_instance(data)
        except ValidationError as exc:
            raise UserError(f"run '{self.run_id}': cannot read snapshot '{self.run['snapshot']}' ({exc})") from None

    @property
    def instances(self) -> dict[str, Instance]:
        """Every instance of the snapshot, parsed (id -> instance, in snapshot order)."""
        return self.instances_for(self.instance_ids)

    # -- aggregates in SQL ---------------------------------------------------------------------------
    @cached_property
    def per_instance(self) -> dict[str, tuple[int, int]]:
        """instance id -> (samples recorded, correct ones), for instances of the snapshot."""
        if self.rescored:
            return {iid: (len(by), sum(v.correct for v in by.values())) for iid, by in self.verdicts.items()}
        known = self.instance_ids
        cursor = self.db.execute(
            "select instance_id, count(*), sum(coalesce(correct, 0) != 0) from attempts "
            f"where {RUN_FACTS} group by instance_id", [self.run_id])
        out = {iid: (int(n), int(c or 0)) for iid, n, c in cursor if iid in known}
        return dict(sorted(out.items(), key=lambda item: known[item[0]]))

    @cached_property
    def orphans(self) -> int:
        """Attempts whose instance is no longer in the snapshot."""
        (total,) = self.db.execute("select count(*) from attempts where run_id = ?", [self.run_id]).fetchone()
        return int(total) - sum(n for n, _ in self.per_instance.values())

    # -- verdicts ------------------------------------------------------------------------------------
    def _verdicts(self, where: str, args: list[Any]) -> dict[str, dict[int, Verdict]]:
        reply = "response" if self.rescored else "case when verdict is null or verdict = '' then response end"
        cursor = self.db.execute(
            f"select instance_id, sample, error, {'null' if self.rescored else 'verdict'}, {reply} from attempts "
            f"where {RUN_FACTS} and {where}", [self.run_id, *args])
        known = self.instance_ids
        rows = [row for row in cursor if row[0] in known]
        # Only an attempt without a usable stored verdict needs its instance (to be verified again); under
        # another scoring than the default, every answered attempt is.
        out: dict[str, dict[int, Verdict]] = {}
        stale: list[tuple[str, int, str]] = []
        for iid, sample, error, verdict, response in rows:
            parsed = _stored_verdict(error, verdict)
            if parsed is None:
                stale.append((iid, sample or 0, response or ""))
            else:
                out.setdefault(iid, {})[sample or 0] = parsed
        if stale:
            instances = self.instances_for(iid for iid, _, _ in stale)
            if self.rescored:
                checked = self.family.check_scored([(instances[iid], response) for iid, _, response in stale],
                                                   self.scoring)
                for (iid, sample, _response), (_answer, verdict) in zip(stale, checked, strict=True):
                    out.setdefault(iid, {})[sample] = verdict
            else:
                for iid, sample, response in stale:
                    out.setdefault(iid, {})[sample] = self.family.check(instances[iid], response)[1]
        return {iid: out[iid] for iid in sorted(out, key=known.__getitem__)}

    def default_picks(self) -> dict[str, int]:
        """instance id -> the sample the default selection rule picks: the first correct sample, else
        the first with the highest score (errors score 0). Index-only, in two steps: the first correct
        sample of every instance that has one, then the scores of the instances that have none."""
        picks = {iid: int(sample) for iid, sample in self.db.execute(
            f"select instance_id, min(sample) from attempts where {RUN_FACTS} and coalesce(correct, 0) != 0 "
            "group by instance_id", [self.run_id])}
        if len(picks) < len(self.per_instance):
            self._temp_ids([iid for iid in self.per_instance if iid not in picks])
            best: dict[str, tuple[float, int]] = {}
            for iid, sample, score in self.db.execute(
                    f"select instance_id, sample, coalesce(score, 0) from attempts where {RUN_FACTS} and "
                    "instance_id in (select instance_id from temp.picked)", [self.run_id]):
                key = (-float(score), int(sample))
                if iid not in best or key < best[iid]:
                    best[iid] = key
            picks.update((iid, sample) for iid, (_score, sample) in best.items())
        return picks

    def _temp_ids(self, ids: list[str], samples: list[int] | None = None) -> None:
        self.db.execute("create temp table if not exists picked (instance_id text, sample integer)")
        self.db.execute("delete from temp.picked")
        self.db.executemany("insert into temp.picked values (?, ?)",
                            zip(ids, samples if samples is not None else [0] * len(ids), strict=True))

    def _picked(self, picks: set[tuple[str, int]]) -> dict[str, dict[int, Verdict]]:
        """The verdicts of these (instance, sample) pairs, read in one pass over the run's attempts."""
        pairs = sorted(picks)
        self._temp_ids([iid for iid, _ in pairs], [sample for _, sample in pairs])
        return self._verdicts("(instance_id, sample) in (select instance_id, sample from temp.picked)", [])

    @cached_property
    def sample0(self) -> dict[str, Verdict]:
        """instance id -> the verdict of its sample 0 (the headline metrics' rows)."""
        return {iid: by[0] for iid, by in self._verdicts("sample = 0", []).items()}

    @cached_property
    def verdicts(self) -> dict[str, dict[int, Verdict]]:
        """instance id -> sample -> verdict, for every attempt (parses them all: for small runs and
        families whose selection rule needs every sample)."""
        return self._verdicts("1", [])

    @cached_property
    def attempts(self) -> list[dict[str, Any]]:
        return self.ws.log.report_attempts(self.run_id)

    def rows(self, sample: int = 0, only: set[str] | None = None) -> list[MetricRow]:
        by_id = self.sample0 if sample == 0 else {iid: by[sample] for iid, by in self.verdicts.items()
                                                  if sample in by}
        ids = [iid for iid in by_id if only is None or iid in only]
        instances = self.instances_for(ids)
        return [(instances[iid], by_id[iid]) for iid in ids]

    # -- caching ---------------------------------------------------------------------------------
    @cached_property
    def stamp(self) -> str:
        """Changes whenever the report could: an attempt written or replaced (count and largest id), the
        run's header (status, finished, options), the snapshot rewritten, sembench or the family's code,
        an error of the environment recorded."""
        count, last = self.db.execute("select count(*), coalesce(max(id), 0) from attempts where run_id = ?",
                                      [self.run_id]).fetchone()  # index-only: attempts_run_correct
        snap = self.store.db.conn.execute("select count(*), coalesce(max(rowid), 0) from instances where snapshot = ?",
                                          [self.run["snapshot"]]).fetchone()
        header = {k: self.run.get(k) for k in ("status", "finished", "total", "samples", "options", "solver")}
        parts = [__version__, REPORT_FORMAT, count, last, str(self.store.path), list(snap), header,
                 _code_stamp(self.family), envfaults.stamp(self.db, self.run_id)]
        return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]

    def cached(self, kind: str) -> Any:
        kind = self._kind(kind)
        try:
            row = self.db.execute("select stamp, value from report_cache where run_id = ? and kind = ?",
                                  [self.run_id, kind]).fetchone()
        except sqlite3.Error:
            return None
        if row is None or row[0] != self.stamp:
            return None
        return json.loads(row[1])

    def release(self) -> None:
        """Drop the parsed instances and verdicts (a report keeps only numbers)."""
        for name in ("_instance_cache", "sample0", "verdicts", "attempts"):
            self.__dict__.pop(name, None)

    def _kind(self, kind: str) -> str:
        """Reports under another scoring than the default are cached apart."""
        return f"{kind}@{self.scoring}" if self.rescored else kind

    def remember(self, kind: str, value: Any) -> None:
        kind = self._kind(kind)
        try:
            with self.db:
                self.db.execute("insert or replace into report_cache (run_id, kind, stamp, value, created) "
                                "values (?, ?, ?, ?, ?)",
                                [self.run_id, kind, self.stamp, json.dumps(value, default=str), now_iso()])
        except sqlite3.Error:
            pass  # a read-only or busy database: the report is still right, only not cached


def _stored_verdict(error: str | None, verdict: str | None) -> Verdict | None:
    if error is not None:
        return error_verdict(error)
    if verdict:
        try:
            return Verdict.model_validate_json(verdict)
        except ValidationError:
            return None  # written by an older version: verified again
    return None


def _code_stamp(family: Family) -> list[Any]:
    """Modification times of the family's modules: a family whose metrics changed reports anew."""
    module = __import__(type(family).__module__, fromlist=["__file__"])
    folder = Path(getattr(module, "__file__", "") or ".").parent
    try:
        return sorted((p.name, p.stat().st_mtime_ns) for p in folder.glob("*.py"))
    except OSError:
        return []


def error_verdict(message: str | None) -> Verdict:
    return Verdict(correct=False, score=0.0, status="error", explanation=message or "the solver failed")


def load_run_data(ws: Workspace, run_id: str, scoring: str | None = None) -> RunData:
    """A run and its snapshot, ready to report on (nothing heavy is read until a report asks), judged
    by one of the family's scorings (None: the default, the stored verdicts)."""
    run = get_run(ws.log.db.conn, run_id)
    family = get_family(run["family"])
    scoring = family.scoring(scoring)  # bad input fails before anything is read
    try:
        store = ws.store_for(run["snapshot"])
    except UserError as exc:
        raise UserError(f"run '{run_id}': cannot read snapshot '{run['snapshot']}' ({exc})") from None
    return RunData(ws, run, family, store, scoring)


# ---- pass@k -------------------------------------------------------------------------------------
def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimator (Chen et al. 2021): 1 - C(n-c, k) / C(n, k) for n samples, c correct."""
    from math import comb

    if k > n:
        raise ValueError("k > n")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_at_all_k(n: int, c: int, kmax: int) -> list[float]:
    """pass@k for k = 1..min(n, kmax) in O(kmax): C(n-c, k) / C(n, k) = prod_{i<k} (n-c-i) / (n-i)."""
    out: list[float] = []
    ratio = 1.0
    for k in range(1, min(n, kmax) + 1):
        ratio = ratio * (n - c - k + 1) / (n - k + 1) if n - c >= k else 0.0
        out.append(1.0 - ratio)
    return out


def pass_at_ks(data: RunData, only: set[str] | None = None) -> dict[str, Any]:
    """pass@k for k = 1..samples, averaged over instances with at least k samples recorded. Instances
    sharing (samples, correct) share the computation."""
    kmax = int(data.run["samples"] or 1)
    pairs = Counter(nc for iid, nc in data.per_instance.items() if only is None or iid in only)
    sums, counts = [0.0] * kmax, [0] * kmax
    for (n, c), times in pairs.items():
        for k, value in enumerate(pass_at_all_k(n, c, kmax)):
            sums[k] += value * times
            counts[k] += times
    return {str(k + 1): {"value": sums[k] / counts[k] if counts[k] else None, "n": counts[k]} for k in range(kmax)}


# ---- one run ------------------------------------------------------------------------------------
def run_header(data: RunData) -> dict[str, Any]:
    run = data.run
    return {key: run[key] for key in ("id", "snapshot", "family", "solver", "samples", "status", "created",
                                      "finished", "total", "options")}


def counts(data: RunData) -> dict[str, Any]:
    # Two index-only reads: attempts_run_facts, and the partial index of the run's errors.
    n, correct, cached, tokens_in, tokens_out, elapsed = data.db.execute(
        "select count(*), sum(coalesce(correct, 0) != 0), sum(coalesce(cached, 0) != 0), "
        f"sum(tokens_in), sum(tokens_out), avg(elapsed_s) from attempts where {RUN_FACTS}", [data.run_id]).fetchone()
    (errors,) = data.db.execute("select count(*) from attempts where run_id = ? and error is not null",
                                [data.run_id]).fetchone()
    total = data.run["total"]
    # Attempts an error of the environment stopped (core.store.envfaults): not answers, and counted apart
    # from those merely not made yet; a resume redoes them, and then they no longer count.
    env = data.ws.log.env_faults(data.run_id)
    missing, not_needed = max(0, (total or 0) - n - env["count"]), 0
    options = data.run.get("options")
    samples = int(data.run.get("samples") or 1)
    if isinstance(options, dict) and options.get("repair") and total:
        # A self-repair run (specs-repair): an instance's rounds stop once it is solved (or its solver
        # failed), so only instances never reached are missing; the other rounds were not needed.
        reached = len(data.per_instance)
        missing = max(0, max(0, total // samples - reached) * samples - env["count"])
        not_needed = max(0, total - n - missing - env["count"])
    out = {
        "attempts": n, "expected": total, "missing": missing, "not_needed": not_needed,
        "instances": len(data.per_instance), "correct": int(correct or 0), "errors": int(errors or 0),
        "env_errors": env["count"], "env_cause": env["cause"],
        "cached": int(cached or 0), "orphans": data.orphans, "tokens_in": tokens_in, "tokens_out": tokens_out,
        "mean_elapsed_s": elapsed,
    }
    if str(data.run.get("solver") or "").startswith("human"):
        # A person's time per instance (from the problem shown to the answer sent, pauses left out), its
        # median with a 95% interval, and the time to the first keystroke. Read from the rows, not an
        # index: people's runs are small.
        from core.sessions import time_summary

        rows = data.db.execute("select human_time_s, first_key_s from attempts where run_id = ?",
                               [data.run_id]).fetchall()
        times = time_summary([r[0] for r in rows], [r[1] for r in rows])
        out.update(timed=times["timed"], mean_human_time_s=times["mean_time_s"],
                   total_human_time_s=times["total_time_s"] if times["timed"] else None,
                   median_human_time_s=times["median_time_s"], median_human_time_s_lo=times["median_time_s_lo"],
                   median_human_time_s_hi=times["median_time_s_hi"], median_first_key_s=times["median_first_key_s"])
    return out


def run_cost(solver: str, tokens_in: int | None, tokens_out: int | None) -> float | None:
    """Dollars for the run's tokens at the prices configured now (None without prices or usage). Cost
    is linear in tokens, so the run's sums give it at once."""
    if ":" not in solver or solver.startswith("human"):
        return None
    from core.models.config import ConfigError, load_endpoints
    from core.models.prices import attempt_cost

    try:
        endpoints = load_endpoints()
    except ConfigError:
        return None  # a broken config file is reported where endpoints are used, not in a report
    return attempt_cost(solver, tokens_in, tokens_out, endpoints)


def error_summary(data: RunData) -> dict[str, Any]:
    """Errors by kind (most frequent first), each with its first message as an example."""
    rows = data.db.execute(
        "select coalesce(error_kind, 'unknown') as kind, count(*), min(id) from attempts "
        "where run_id = ? and error is not null group by kind order by count(*) desc, min(id)", [data.run_id]).fetchall()
    examples = {}
    for kind, _n, first in rows:
        (message,) = data.db.execute("select error from attempts where id = ?", [first]).fetchone()
        examples[kind] = message[:200]
    return {"by_kind": {kind: n for kind, n, _ in rows}, "examples": examples}


def metrics_with_errors(family: Family, rows: list[MetricRow]) -> dict[str, Any]:
    """family.metrics, with an error count in every group (errors are wrong answers, counted apart)."""
    result = family.metrics(rows)
    result["overall"] = {**result["overall"], "errors": sum(v.status == "error" for _, v in rows)}
    for feature, groups in result["by"].items():
        errs: Counter[str] = Counter()
        for inst, verdict in rows:
            if verdict.status == "error":
                value = family.feature_values(inst).get(feature)
                errs["—" if value is None else str(value)] += 1
        for key, group in groups.items():
            group["errors"] = errs.get(key, 0)
    return result


def selected_rows(data: RunData, only: set[str] | None = None) -> list[MetricRow]:
    """One verdict per instance, picked by the family's selection rule over its samples. The default
    rule (the first correct sample, else the first with the highest score) is found in SQL, so only
    the chosen verdicts are read; a family with its own rule sees every sample's verdict."""
    if type(data.family).select is not Family.select or data.rescored:
        rows = []
        for iid, by in data.verdicts.items():
            if only is not None and iid not in only:
                continue
            verdicts = [by[k] for k in sorted(by)]
            rows.append((iid, verdicts[data.family.select_scored(verdicts, data.scoring)]))
    else:
        chosen = data.default_picks()
        known = data.instance_ids
        picks = {(iid, sample) for iid, sample in chosen.items() if iid in known and (only is None or iid in only)}
        if all(sample == 0 for _, sample in picks):  # one sample per instance, or sample 0 won everywhere
            rows = [(iid, verdict) for iid, verdict in data.sample0.items() if (iid, 0) in picks]
        else:
            found = data._picked(picks)
            rows = [(iid, by[sample]) for iid, by in found.items() for sample in by if (iid, sample) in picks]
    instances = data.instances_for(iid for iid, _ in rows)
    return [(instances[iid], verdict) for iid, verdict in rows]


def report_run(data: RunData) -> dict[str, Any]:
    """One run's report (cached in the log database until the run changes). The accuracy series of
    the main feature is computed (and cached) with it, so a caller that plots it next reads no more."""
    cached = data.cached("report")
    if cached is not None:
        return with_cost(cached)
    with collector_paused():
        report: dict[str, Any] = {
            "run": run_header(data), "scoring": data.scoring, "counts": counts(data), "errors": error_summary(data),
            "metrics": metrics_with_errors(data.family, data.rows(0)), "pass_at_k": pass_at_ks(data),
        }
        if data.rescored:  # the stored `correct` column is the default scoring's
            report["counts"]["correct"] = sum(c for _n, c in data.per_instance.values())
        if (data.run["samples"] or 1) > 1:
            report["selected"] = data.family.metrics(selected_rows(data))["overall"]
        accuracy_series(data)
        report = json.loads(json.dumps(report, default=str))  # the same value whether cached or not
        data.release()
    data.remember("report", report)
    return with_cost(report)


def with_cost(report: dict[str, Any]) -> dict[str, Any]:
    """The report with the run's cost at today's configured prices (never cached: prices change)."""
    c, run = report.get("counts"), report.get("run")
    if not isinstance(c, dict) or not isinstance(run, dict):
        return report
    cost = run_cost(str(run.get("solver") or ""), c.get("tokens_in"), c.get("tokens_out"))
    if cost is None:
        return report
    return {**report, "counts": {**c, "cost_usd": cost}}


_PAUSE_LOCK = threading.Lock()
_PAUSES = 0


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a report is built, then the report's objects freed.

    Why: building a report makes ~100,000 objects (parsed instances and verdicts) that reference
    counting frees at the end (they hold no cycles). Meanwhile their allocations trigger full
    collections, and a full collection scans every object of the process with the GIL held: in the
    workbench that froze the UI for ~300 ms while a worker thread built a report. Other threads keep
    allocating meanwhile; their cycles are collected once this ends. Nested and concurrent uses count."""
    global _PAUSES
    with _PAUSE_LOCK:
        owner = _PAUSES > 0 or gc.isenabled()
        if owner:
            _PAUSES += 1
            gc.disable()
    try:
        yield
    finally:
        if owner:
            with _PAUSE_LOCK:
                _PAUSES -= 1
                if _PAUSES == 0:
                    gc.enable()


# ---- several runs -------------------------------------------------------------------------------
def compare(datas: list[RunData]) -> dict[str, Any]:
    """Runs side by side on the instances they share (sample 0), plus the family's own comparison
    metrics when it defines `compare_metrics` (typeinf: RS/RE across its two variants)."""
    families = {d.family.id for d in datas}
    if len(families) > 1:
        raise UserError(f"cannot compare runs of different families ({', '.join(sorted(families))})")
    family = datas[0].family
    common = set.intersection(*(set(d.sample0) for d in datas))
    # Runs over different snapshots (typeinf's base vs pure variant) share no ids: each keeps its own.
    only = common or None
    ids = [d.run["id"] for d in datas]
    out: dict[str, Any] = {
        "runs": [run_header(d) for d in datas], "scoring": datas[0].scoring, "common_instances": len(common),
        "same_instances": bool(common),
        "metrics": {d.run["id"]: metrics_with_errors(family, d.rows(0, only)) for d in datas},
        "pass_at_k": {d.run["id"]: pass_at_ks(d, only) for d in datas},
    }
    if len(datas) == 2 and common:
        a, b = datas
        tally: Counter[str] = Counter()
        for iid in common:
            ca, cb = a.sample0[iid].correct, b.sample0[iid].correct
            tally["both" if ca and cb else f"only {ids[0]}" if ca else f"only {ids[1]}" if cb else "neither"] += 1
        out["agreement"] = dict(tally)
    hook = getattr(family, "compare_metrics", None)
    if callable(hook):
        out["family_comparison"] = hook([(d.run, d.rows(0)) for d in datas])
    return out


def accuracy_series(data: RunData, feature: str | None = None) -> tuple[str, list[tuple[str, float, int]]]:
    """(feature, [(value, accuracy, n)]) on sample 0, for plots: the main feature by default."""
    feature = feature or (data.family.features[0] if data.family.features else None)
    kind = f"series:{feature}"
    cached = data.__dict__.get(kind) or data.cached(kind)
    if cached is not None:
        return cached[0], [tuple(item) for item in cached[1]]  # type: ignore[misc]
    groups: dict[str, list[Verdict]] = {}
    for inst, verdict in data.rows(0):
        value = data.family.feature_values(inst).get(feature) if feature else "all"
        groups.setdefault("—" if value is None else str(value), []).append(verdict)
    series = [(key, sum(v.correct for v in vs) / len(vs), len(vs)) for key, vs in groups.items()]
    result = feature or "all", sorted(series, key=lambda item: _order(item[0]))
    data.__dict__[kind] = result
    data.remember(kind, result)
    return result


def _order(key: str) -> tuple[int, float, str]:
    """Numeric feature values in numeric order (2 before 10), then the rest alphabetically."""
    try:
        return (0, float(key), "")
    except ValueError:
        return (1, 0.0, key)


def dumps(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False, default=str)
