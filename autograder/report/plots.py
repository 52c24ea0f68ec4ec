"""The class report's charts as PNG bytes, drawn with matplotlib's Agg renderer.

Figures are built with the object API, not pyplot: no global state, no GUI backend, nothing to close,
and safe to call from a server or a worker thread.
"""

import io
from collections.abc import Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

WIDTH = 7.5  # inches at DPI: about 750 px, the report's column width
DPI = 100
BAR = "#3b6ea8"
MARK = "#c0392b"


def _png(figure: Figure) -> bytes:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    # No "Software" or date metadata: the same data gives the same bytes.
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def _figure(rows: int = 0, height: float = 3.2) -> tuple[Figure, object]:
    """A figure for a chart; horizontal bar charts (rows > 0) grow with their number of rows."""
    height = height if rows == 0 else max(1.8, 0.9 + 0.38 * rows)
    figure = Figure(figsize=(WIDTH, height), layout="constrained")
    axes = figure.add_subplot()
    axes.spines[["top", "right"]].set_visible(False)
    return figure, axes


Bin = tuple[float, float, int]  # from, to, how many


def score_edges(max_score: float) -> np.ndarray:
    """At most 20 equal bins over [0, max]; numpy closes the last bin, so full marks land in it."""
    return np.linspace(0, max_score or 1.0, max(1, min(20, int(np.ceil(max_score)))) + 1)


def time_edges(seconds: Sequence[float]) -> np.ndarray:
    """From 0 (never below: a time is not negative) to a little past the slowest, in 5 to 20 bins."""
    top = max(seconds, default=0.0)
    return np.linspace(0, top * 1.05 if top > 0 else 1.0, min(20, max(5, int(np.ceil(np.sqrt(len(seconds)))))) + 1)


def bins(values: Sequence[float], edges: np.ndarray) -> list[Bin]:
    """What a histogram over `edges` draws, for its text alternative."""
    counts, _ = np.histogram(np.clip(values, edges[0], edges[-1]), bins=edges)
    return [(float(a), float(b), int(c)) for a, b, c in zip(edges[:-1], edges[1:], counts, strict=True)]


def score_histogram(scores: Sequence[float], max_score: float, mean: float) -> bytes:
    """How many students got each score, 0 to the maximum, with the mean marked."""
    figure, axes = _figure()
    edges = score_edges(max_score)
    axes.hist(np.clip(scores, 0, max_score), bins=edges, color=BAR, edgecolor="white")
    axes.axvline(mean, color=MARK, linestyle="--", linewidth=1.5, label=f"mean {mean:.1f}")
    axes.set_xlim(0, max_score)
    axes.set_xlabel(f"score (out of {max_score:g})")
    axes.set_ylabel("students")
    axes.yaxis.get_major_locator().set_params(integer=True)
    axes.legend(frameon=False)
    return _png(figure)


def pass_rate_chart(labels: Sequence[str], rates: Sequence[float]) -> bytes:
    """One horizontal bar per exercise: the share of students with full marks."""
    figure, axes = _figure(len(labels))
    positions = np.arange(len(labels))
    bars = axes.barh(positions, [100 * r for r in rates], color=BAR)
    axes.bar_label(bars, labels=[f"{100 * r:.0f}%" for r in rates], padding=3)
    axes.set_yticks(positions, labels)
    axes.invert_yaxis()  # first exercise on top, as in the notebook
    axes.set_xlim(0, 110)  # room for the 100% label
    axes.set_xlabel("students with full marks (%)")
    return _png(figure)


def misconception_chart(hints: Sequence[str], counts: Sequence[int], students: int) -> bytes:
    """One horizontal bar per misconception: how many students made it, most frequent on top."""
    figure, axes = _figure(len(hints))
    positions = np.arange(len(hints))
    bars = axes.barh(positions, counts, color=MARK)
    axes.bar_label(bars, labels=[f"{c} ({100 * c / students:.0f}%)" for c in counts], padding=3)
    axes.set_yticks(positions, hints)
    axes.invert_yaxis()
    axes.set_xlim(0, max(counts) * 1.25)
    axes.xaxis.get_major_locator().set_params(integer=True)
    axes.set_xlabel(f"students (of {students} with misconception data)")
    return _png(figure)


def grading_time_histogram(seconds: Sequence[float]) -> bytes:
    """How long each submission took to grade."""
    figure, axes = _figure(height=2.4)
    edges = time_edges(seconds)
    axes.hist(seconds, bins=edges, color=BAR, edgecolor="white")
    axes.set_xlim(0, edges[-1])
    axes.set_xlabel("seconds per submission")
    axes.set_ylabel("submissions")
    axes.yaxis.get_major_locator().set_params(integer=True)
    return _png(figure)
