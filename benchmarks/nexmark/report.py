"""The suite's table (Markdown, as docs/performance.md shows it) and its chart.

A rate is events per second per core: every event of the files (persons and
auctions too, as nexmark counts them) over a run's seconds, over the 2 cores
of ``local[2]``. Each engine's figure is the median of its rounds, with the
slowest and fastest round's rates; a ratio is squall's median rate over Spark's.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path

from benchmarks.nexmark.engines import DISTRIBUTED, DRIVER, SPARK
from benchmarks.nexmark.queries import FLINK_PER_CORE
from benchmarks.nexmark.suite import QueryResult

CORES = 2
NAMES = {SPARK: "Spark", DRIVER: "squall driver", DISTRIBUTED: "squall distributed"}


def rate(events: int, seconds: float) -> float:
    """Events per second per core."""
    return events / seconds / CORES


def _thousands(value: float) -> str:
    return f"{value / 1000:.1f}K"


def figure(events: int, seconds: Sequence[float] | None) -> str:
    """``median (slowest-fastest)`` in thousands of events/s per core, or ``-`` when the engine did not run."""
    if not seconds:
        return "-"
    low, high = rate(events, max(seconds)), rate(events, min(seconds))
    return f"{_thousands(rate(events, statistics.median(seconds)))} ({_thousands(low)}-{_thousands(high)})"


def ratio(seconds: dict[str, list[float]], engine: str) -> float | None:
    """squall's median rate over Spark's (None when either did not run)."""
    if not seconds.get(engine) or not seconds.get(SPARK):
        return None
    return statistics.median(seconds[SPARK]) / statistics.median(seconds[engine])


def table(results: Sequence[QueryResult], events: int, modes: Sequence[str]) -> str:
    """The Markdown table: per query, each engine's rate, squall's ratios to Spark, Flink's rate and the check."""
    header = ["query", "Spark runs", NAMES[SPARK]]
    for mode in modes:
        header += [NAMES[mode], "x Spark"]
    header += ["Flink per core", "check"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for result in results:
        q = result.query
        cells = [f"{q.name} {q.title}", q.spark_form, figure(events, result.seconds.get(SPARK))]
        for mode in modes:
            r = ratio(result.seconds, mode)
            cells += [figure(events, result.seconds.get(mode)), "-" if r is None else f"{r:.2f}"]
        cells += [_thousands(FLINK_PER_CORE[q.name]), "pass" if result.ok else "FAIL"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def chart(results: Sequence[QueryResult], modes: Sequence[str], path: Path, title: str) -> None:
    """A bar chart of squall's rate over Spark's per query and mode (PNG), with a line at 1."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r.query.name for r in results]
    width = 0.8 / max(len(modes), 1)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(names) + 2), 4.2))
    for i, mode in enumerate(modes):
        ratios = [ratio(r.seconds, mode) or 0.0 for r in results]
        xs = [n + (i - (len(modes) - 1) / 2) * width for n in range(len(names))]
        bars = ax.bar(xs, ratios, width, label=NAMES[mode], color=["#1f77b4", "#ff7f0e"][i % 2])
        ax.bar_label(bars, [f"{v:.2f}" for v in ratios], padding=2, fontsize=7)
    ax.axhline(1.0, color="#444", linewidth=1, linestyle="--")
    ax.text(len(names) - 0.5, 1.02, "Spark", ha="right", va="bottom", fontsize=8, color="#444")
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("events/s over Spark's (higher is better)")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"chart: {path}")
