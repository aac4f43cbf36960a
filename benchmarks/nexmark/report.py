"""The suite's figures: the Markdown table (as docs/performance.md shows it), its chart, and writing them into docs.

A rate is events per second per core: every event of the files (persons and
auctions too, as nexmark counts them) over a run's seconds, over the 2 cores
of ``local[2]``. Each engine's figure is the median of its rounds, with the
slowest and fastest round's rates; a ratio is squall's median rate over Spark's.
Flink's figures are nexmark's published ones (:data:`~benchmarks.nexmark.queries.FLINK_PER_CORE`),
measured on another cluster with far denser event time: they are shown beside,
never divided into squall's.
"""

from __future__ import annotations

import statistics
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.nexmark.engines import DISTRIBUTED, DRIVER, SPARK
from benchmarks.nexmark.queries import FLINK_PER_CORE
from benchmarks.nexmark.suite import QueryResult

CORES = 2
NAMES = {SPARK: "Spark", DRIVER: "squall driver", DISTRIBUTED: "squall distributed"}
COLOURS = {SPARK: "#7f7f7f", DRIVER: "#1f77b4", DISTRIBUTED: "#ff7f0e"}
FULL_EVENTS, FULL_ROUNDS = 1_000_000, 3  # the size docs/performance.md's figures are measured at
#: The lines of docs/performance.md between which ``--docs`` writes the results (a smoke run's included).
BEGIN = "<!-- nexmark results: written by `python -m benchmarks.nexmark --docs`; edits here are overwritten -->"
END = "<!-- end of nexmark results -->"


@dataclass(frozen=True)
class RunShape:
    """What a suite run measured, for its headings: events, rounds, modes and the workload's settings."""

    events: int
    rounds: int
    modes: tuple[str, ...]
    settings: str  # files, batches, event-time rate, disorder, lag

    @property
    def smoke(self) -> bool:
        """Whether the run is smaller than the published one (fewer events or rounds)."""
        return self.events < FULL_EVENTS or self.rounds < FULL_ROUNDS


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
    header += ["Flink per core (nexmark's)", "check"]
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


def heading(shape: RunShape) -> str:
    """The sentence above the table: what was run, and, for a smoke run, that its figures are not the published ones."""
    text = (f"Nexmark, {shape.events:,} events ({shape.settings}), `local[2]`; events/s per core, median "
            f"(slowest-fastest) of {shape.rounds} round{'' if shape.rounds == 1 else 's'} after a Spark warm-up.")
    if shape.smoke:
        text = (f"**Smoke size, to be replaced:** a run of fewer than {FULL_EVENTS:,} events or {FULL_ROUNDS} "
                f"rounds, which shows that every check passes; its rates carry each run's start-up and are "
                f"not the suite's figures. {text}")
    # Wrapped as the page's own paragraphs are, so a diff of the page after a new run shows what changed.
    return textwrap.fill(text, width=100, break_long_words=False, break_on_hyphens=False)


def results_markdown(results: Sequence[QueryResult], shape: RunShape, chart_name: str | None) -> str:
    """The results as docs/performance.md includes them: the heading, the table and (if drawn) the chart."""
    parts = [heading(shape), table(results, shape.events, shape.modes)]
    if chart_name is not None:
        parts.append(f"![Nexmark: events/s per core per query and engine]({chart_name})")
    return "\n\n".join(parts)


def splice(document: Path, text: str) -> None:
    """Replace what lies between :data:`BEGIN` and :data:`END` in ``document`` with ``text``.

    Raises ``ValueError`` naming the missing line when ``document`` lacks
    either marker (or has them out of order), rather than appending the
    results somewhere unexpected.
    """
    lines = document.read_text(encoding="utf-8").splitlines(keepends=True)
    stripped = [line.strip() for line in lines]
    for marker in (BEGIN, END):
        if stripped.count(marker) != 1:
            msg = f"{document} must hold the line {marker!r} exactly once; found it {stripped.count(marker)} times"
            raise ValueError(msg)
    begin, end = stripped.index(BEGIN), stripped.index(END)
    if end < begin:
        msg = f"{document}: the line {END!r} comes before {BEGIN!r}"
        raise ValueError(msg)
    document.write_text("".join([*lines[: begin + 1], "\n", text, "\n\n", *lines[end:]]), encoding="utf-8")


def chart(results: Sequence[QueryResult], shape: RunShape, path: Path) -> None:
    """A bar chart (PNG) of each query's rate per engine, squall's ratio to Spark above its bars, Flink's beside.

    Each engine's bar is its median rate with a line from its slowest to its
    fastest round; Flink's published figure is an outlined bar, since it was
    measured elsewhere (see the module's docstring).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    engines = [SPARK, *shape.modes]
    names = [r.query.name for r in results]
    width = 0.8 / (len(engines) + 1)
    fig, ax = plt.subplots(figsize=(max(7.0, 1.1 * len(names) + 2), 4.6))
    shown = [FLINK_PER_CORE[n] / 1000 for n in names]
    for i, engine in enumerate(engines):
        xs = [n + (i - len(engines) / 2) * width for n in range(len(names))]
        medians, low, high = _spreads(results, engine, shape.events)
        shown += [m + h for m, h in zip(medians, high, strict=True) if m > 0]
        ax.bar(xs, medians, width, yerr=[low, high], capsize=2, label=NAMES[engine], color=COLOURS[engine],
               error_kw={"linewidth": 0.8})
        if engine != SPARK:
            for x, result, top in zip(xs, results, (m + h for m, h in zip(medians, high, strict=True)), strict=True):
                r = ratio(result.seconds, engine)
                if r is not None:  # above the fastest round's whisker, so the two do not overlap
                    ax.text(x, top * 1.04, f"{r:.2f}x", ha="center", va="bottom", fontsize=6, rotation=90)
    flink_xs = [n + (len(engines) / 2) * width for n in range(len(names))]
    ax.bar(flink_xs, [FLINK_PER_CORE[n] / 1000 for n in names], width, label="Flink (nexmark's figure, elsewhere)",
           facecolor="none", edgecolor="#2ca02c", hatch="///")
    # A log scale: the queries' rates span more than tenfold, and equal ratios then look equal.
    ax.set_yscale("log")
    ax.set_ylim(min(shown) / 3, max(shown) * 3)  # room below the shortest bar, above the labels
    ax.set_xticks(range(len(names)), [n if r.ok else f"{n}\nFAILED" for n, r in zip(names, results, strict=True)])
    for label, result in zip(ax.get_xticklabels(), results, strict=True):
        label.set_color("#000" if result.ok else "#d62728")
    ax.set_ylabel("thousand events/s per core (log; higher is better)")
    smoke = "smoke size, " if shape.smoke else ""
    ax.set_title(f"Nexmark, {smoke}{shape.events:,} events, local[2], median and range of {shape.rounds}; "
                 f"labels: squall over Spark", fontsize=9)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=len(engines) + 1, fontsize=7, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"chart: {path}")


def _spreads(results: Sequence[QueryResult], engine: str, events: int) -> tuple[list[float], ...]:
    """Per query, ``engine``'s median rate (thousands) and its distance down to the slowest and up to the fastest."""
    medians, low, high = [], [], []
    for result in results:
        seconds = result.seconds.get(engine)
        if not seconds:  # did not run, or every run failed: no bar
            medians.append(0.0)
            low.append(0.0)
            high.append(0.0)
            continue
        median = rate(events, statistics.median(seconds)) / 1000
        medians.append(median)
        low.append(median - rate(events, max(seconds)) / 1000)
        high.append(rate(events, min(seconds)) / 1000 - median)
    return medians, low, high
