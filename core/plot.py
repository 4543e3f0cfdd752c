"""Accuracy against a difficulty feature, one line per run: in the terminal (plotext) or as PNG
(matplotlib, optional: the `plot` extra)."""

from __future__ import annotations

import shutil
from pathlib import Path

from core.errors import UserError

Series = list[tuple[str, float, int]]  # (feature value, accuracy, n)


def _axis(lines: dict[str, Series]) -> list[str]:
    """The union of feature values over all runs, in the order the series give them."""
    seen: list[str] = []
    for series in lines.values():
        for value, _acc, _n in series:
            if value not in seen:
                seen.append(value)
    numeric = all(_is_number(v) for v in seen)
    return sorted(seen, key=float) if numeric else seen


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


MAX_WIDTH, MAX_HEIGHT = 120, 30  # wider or taller than this only stretches the same few points


def plot_size(width: int | None = None, height: int | None = None) -> tuple[int, int]:
    """The given size, else the terminal's (COLUMNS/LINES, then the tty, then 100x24), kept readable."""
    term = shutil.get_terminal_size((100, 24))
    w = width if width is not None else min(MAX_WIDTH, term.columns)
    h = height if height is not None else min(MAX_HEIGHT, term.lines - 2)  # room for the prompt after it
    return max(30, w), max(10, h)


def terminal_plot(lines: dict[str, Series], feature: str, width: int | None = None, height: int | None = None,
                  color: bool = True) -> str:
    """The plot as text (ANSI colours unless `color` is False), for printing; sized to the terminal
    unless width/height are given. With no points at all it says so instead of drawing empty axes."""
    if not any(series for series in lines.values()):
        return f"accuracy by {feature}: no data (no verified attempts on sample 0 yet)"
    import plotext as plt  # plotext 6: everything hangs off the figure object

    width, height = plot_size(width, height)
    fig = plt.figure
    fig.clear()
    fig.theme("simple")  # no painted background: readable on dark and light terminals
    fig.plot_size(width, height)
    axis = _axis(lines)
    positions = {value: i for i, value in enumerate(axis)}
    for label, series in lines.items():
        signal = fig.signal([positions[v] for v, _a, _n in series], [a for _v, a, _n in series])
        signal.lines()
        signal.label(label)
        fig.draw(signal)
    if axis:
        fig.ruler("x").ticks(list(range(len(axis))), axis)
    # plotext draws the legend inside the canvas, from the top left: give it rows of its own above 1.0 so it
    # never hides a point at full accuracy (the ticks still stop at 1).
    labelled = sum(1 for label in lines if label)
    if labelled:
        legend_rows = 2 * labelled + 4  # one row per label and one between, the borders, a gap
        data_rows = max(4, height - 6 - legend_rows)  # title, x ticks and x label take the rest
        fig.ruler("y").lim(0, 1 + legend_rows / data_rows)
    else:
        fig.ruler("y").lim(0, 1)
    fig.ruler("y").ticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    fig.label(feature, axis="x")
    fig.label("accuracy", axis="y")
    fig.title(f"accuracy by {feature}")
    text = fig.build().string(colorless=not color)
    fig.clear()
    return text


def png_plot(lines: dict[str, Series], feature: str, path: Path) -> Path:
    try:
        import matplotlib
    except ModuleNotFoundError:
        raise UserError("--png needs matplotlib: pip install 'sembench[plot]'") from None
    matplotlib.use("Agg")  # no display needed; the file is the output
    import matplotlib.pyplot as plt

    axis = _axis(lines)
    positions = {value: i for i, value in enumerate(axis)}
    fig, ax = plt.subplots(figsize=(8, 4.5))
    try:
        for label, series in lines.items():
            ax.plot([positions[v] for v, _a, _n in series], [a for _v, a, _n in series], marker="o", label=label)
        ax.set_xticks(range(len(axis)), axis)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(feature)
        ax.set_ylabel("accuracy")
        ax.set_title(f"accuracy by {feature}")
        ax.grid(alpha=0.3)
        ax.legend()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fig.savefig(path, format="png", dpi=120, bbox_inches="tight")
        except OSError as exc:
            raise UserError(f"cannot write ({exc.strerror or exc})", file=str(path)) from None
    finally:
        plt.close(fig)
    return path
