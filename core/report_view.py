"""One Rich rendering of reports, shared by `sembench report` and the TUI's Runs screen.

A rate that comes with an interval (`X` with `X_lo` and `X_hi` beside it, as every family's summarize
gives) is shown in one cell, "0.812 [0.781, 0.840]"; the bounds never get columns of their own.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

BOUNDS = ("_lo", "_hi")


def fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4f}"
    return "—" if value is None else str(value)


def with_interval(values: dict[str, Any], name: str) -> str:
    lo, hi = values.get(name + "_lo"), values.get(name + "_hi")
    shown = fmt(values.get(name))
    if isinstance(lo, int | float) and isinstance(hi, int | float):
        return f"{shown} [{lo:.3f}, {hi:.3f}]"
    return shown


def metric_names(values: dict[str, Any]) -> list[str]:
    """The metrics of a summary, without the interval bounds."""
    names = list(values)
    return [n for n in names if not (n.endswith(BOUNDS) and n[:-3] in values)]


def table(title: str | None, columns: list[str], rows: list[list[Any]], numbers: bool = True) -> Table:
    """A table; with `numbers` every column but the first is right-aligned (columns of figures)."""
    out = Table(title=title, title_justify="left")
    for i, column in enumerate(columns):
        out.add_column(column, justify="right" if numbers and i > 0 else "left")
    for row in rows:
        out.add_row(*(v if isinstance(v, Text) else fmt(v) for v in row))
    return out


def pass_label(k: int) -> str:
    return f"pass@k={k} (samples)"


def value_order(key: str) -> tuple[int, float, str]:
    """Numeric feature values in numeric order (2 before 10), then the rest alphabetically."""
    try:
        return (0, float(key), "")
    except ValueError:
        return (1, 0.0, key)


def summary_table(title: str, values: dict[str, Any]) -> Table:
    return table(title, ["metric", "value"], [[k, with_interval(values, k)] for k in metric_names(values)])


def feature_table(feature: str, groups: dict[str, dict[str, Any]], columns: int | None = None) -> Table:
    """Metrics by one feature's values; `columns` keeps the first few metrics (n first) on narrow screens."""
    names = metric_names(next(iter(groups.values()))) if groups else []
    if columns is not None:
        names = names[:columns]
    rows = [[value, *(with_interval(g, n) for n in names)] for value, g in groups.items()]
    return table(f"by {feature}", [feature, *names], rows)


def run_report(report: dict[str, Any]) -> RenderableType:
    """One run: header, counts, then `report_body`."""
    run, c = report["run"], report["counts"]
    missing = f"missing {c['missing']}" + (f", rounds not needed {c['not_needed']}" if c.get("not_needed") else "")
    # Names come from the log (a solver may be `human:NAME` typed by a person): text, never markup.
    head = Text(str(run["id"]), style="bold")
    head.append(f"  {run['family']} · snapshot {run['snapshot']} · solver {run['solver']} · samples "
                f"{run['samples']} · {run['status']}" + (f" · scoring {report['scoring']}" if report.get("scoring") else ""))
    times = ""
    if c.get("mean_human_time_s") is not None:
        times = f" · a person's time per instance (shown to sent): {human_times(c)}"
    # attempts an error of the environment stopped: a line of their own, never among the answers' errors
    env = [Text(env_errors_line(c), style="yellow")] if c.get("env_errors") else []
    return Group(
        head,
        Text(f"attempts {c['attempts']}/{c['expected']} ({missing}) · correct {c['correct']} · "
             f"errors {c['errors']} · cached {c['cached']} · tokens in/out {fmt(c['tokens_in'])}/"
             f"{fmt(c['tokens_out'])}" + (f" · cost ${c['cost_usd']:.4f}" if c.get("cost_usd") is not None else "")
             + (f" · orphans {c['orphans']}" if c["orphans"] else "") + times),
        *env,
        report_body(report),
    )


def human_times(c: dict[str, Any]) -> str:
    """Median with its 95% interval, mean and total of a person's time per instance, and the median time
    to the first keystroke (older attempts have none)."""
    text = f"median {c['median_human_time_s']:.1f} s"
    if c.get("median_human_time_s_lo") is not None:
        text += f" (95% interval {c['median_human_time_s_lo']:.1f}-{c['median_human_time_s_hi']:.1f} s)"
    text += f", mean {c['mean_human_time_s']:.1f} s, total {c['total_human_time_s']:.1f} s over {c['timed']}"
    if c.get("median_first_key_s") is not None:
        text += f"; first keystroke after a median {c['median_first_key_s']:.1f} s"
    return text


def env_errors_line(counts: dict[str, Any]) -> str:
    """Attempts an error of the environment stopped, apart from answers and errors: not verdicts, and a
    resume redoes them (the cause, on one line, as the run's stop message gave it)."""
    cause = " ".join(str(counts.get("env_cause") or "").split())
    return (f"environment errors: {counts['env_errors']} (cause: {cause}) · not answers: "
            f"resume the run to redo them")


def report_body(report: dict[str, Any], plot: RenderableType | None = None,
                feature_columns: int | None = None) -> RenderableType:
    """A run's metrics overall (with intervals), the plot when given, by feature, pass@k, selection over
    samples and errors: what the CLI prints under its header and the TUI's Runs screen under its live head."""
    metrics = report["metrics"]
    parts: list[RenderableType] = [summary_table(f"metrics (sample 0, n={metrics['n']})", metrics["overall"])]
    if plot is not None:
        parts.append(plot)
    parts.extend(feature_table(feature, groups, feature_columns) for feature, groups in metrics["by"].items())
    parts.append(table("pass@k over samples", ["k", "value", "instances"],
                       [[pass_label(int(k)), v["value"], v["n"]] for k, v in report["pass_at_k"].items()]))
    if "selected" in report:
        parts.append(summary_table("selected over samples (family rule)", report["selected"]))
    errors = report["errors"]
    if errors["by_kind"]:
        parts.append(table("errors", ["kind", "count", "example"],
                           [[k, n, errors["examples"].get(k, "")] for k, n in errors["by_kind"].items()]))
    return Group(*parts)


def prerender(renderable: RenderableType, width: int) -> Text:
    """`renderable` laid out at `width` columns, as styled text: done in a worker thread so that the UI
    thread only shows it (laying out a report's tables takes long enough to freeze a screen)."""
    from rich.console import Console

    console = Console(width=max(20, width), color_system="truecolor", force_terminal=True, legacy_windows=False)
    with console.capture() as captured:
        console.print(renderable)
    return Text.from_ansi(captured.get().rstrip("\n"), no_wrap=True)


def comparison(report: dict[str, Any]) -> RenderableType:
    """Several runs side by side (with a Δ column for two)."""
    ids = [r["id"] for r in report["runs"]]
    scope = (f"{report['common_instances']} shared instances" if report["same_instances"]
             else "different instances (each run on its own)")
    scoring = f" — scoring {report['scoring']}" if report.get("scoring") else ""
    parts: list[RenderableType] = [Text.from_markup(f"[bold]comparison[/] of {', '.join(ids)} — {scope}")
                                   + Text(scoring)]
    overall = {rid: report["metrics"][rid]["overall"] for rid in ids}
    names = metric_names(next(iter(overall.values())))
    delta = len(ids) == 2
    rows: list[list[Any]] = []
    for name in names:
        cells: list[Any] = [with_interval(overall[rid], name) for rid in ids]
        if delta:
            a, b = (overall[rid].get(name) for rid in ids)
            cells.append(b - a if isinstance(a, int | float) and isinstance(b, int | float) else None)
        rows.append([name, *cells])
    rows.append(["n", *[report["metrics"][rid]["n"] for rid in ids], *([None] if delta else [])])
    # Every k any run has (runs may differ in samples); labelled apart from a family metric like Pass@1.
    ks = sorted({int(k) for rid in ids for k in report["pass_at_k"][rid]})
    for k in ks:
        values = [report["pass_at_k"][rid].get(str(k), {}).get("value") for rid in ids]
        rows.append([pass_label(k), *values, *([None] if delta else [])])
    parts.append(table("overall", ["metric", *ids, *(["Δ"] if delta else [])], rows))
    headline = names[0] if names else None
    for feature in report["metrics"][ids[0]]["by"]:
        values = sorted({v for rid in ids for v in report["metrics"][rid]["by"].get(feature, {})}, key=value_order)
        feature_rows = []
        for value in values:
            groups = [report["metrics"][rid]["by"].get(feature, {}).get(value, {}) for rid in ids]
            feature_rows.append([value, *[f"{fmt(g.get(headline))} (n={g.get('n', 0)})" for g in groups]])
        parts.append(table(f"{headline} by {feature}", [feature, *ids], feature_rows))
    if "agreement" in report:
        parts.append(table("agreement (sample 0)", ["outcome", "instances"], list(report["agreement"].items())))
    if report.get("family_comparison"):
        parts.append(table("family comparison", ["metric", "value"], list(report["family_comparison"].items())))
    return Group(*parts)
