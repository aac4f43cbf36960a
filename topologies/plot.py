"""Pictures of a run, drawn as Streaming 102 draws them: event time across, processing time up.

Each tuple is a dot at (its event time, the processing time it arrived at); a
late tuple (behind the watermark when it arrived) is red: filled when a window
still took it (a ``WindowedAggregateBolt`` within its allowed lateness), hollow
when it was dropped (``BoltHarness.late``). The watermark is a line: at each processing
time, the event time the bolt's watermark had reached. Each window activation
(a ``BaseWindowedBolt``) or pane (a ``WindowedAggregateBolt``) is a bracket
over the event time its window covers, at the processing time it fired, with
its value above it; panes are coloured by their timing (EARLY, ON_TIME, LATE)
and a retraction is a dashed grey bracket with its value negated.

::

    h = BoltHarness(bolt, fields=("ts", "value"))
    ...                                  # feed, advance, close
    h.plot("run.png", label="value")     # or plot_run(h, "run.svg", ...)

:func:`picture` gives what a figure shows as plain data (dots, watermark steps,
brackets), so a test can check a run's picture without looking at pixels.
``squall plot script.py --out fig.png`` draws the harness a script builds
(:func:`load_harness`). Needs matplotlib (``pip install squall[plot]``).
"""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from bolts.aggregate.spec import OUTPUT_FIELDS
from bolts.timestamps import millis
from bolts.tuples import DEFAULT_STREAM
from windowing.panes import PaneInfo

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@runtime_checkable
class RecordedRun(Protocol):
    """What a picture reads of a run: a ``topologies.testing.BoltHarness`` that has been fed.

    A protocol, since the harness module imports this one (for ``BoltHarness.plot()``), never the reverse.
    """

    task: Any
    arrivals: list[Any]
    emitted: list[Any]
    emitted_at: list[Any]
    late: list[Any]
    rejected: list[Any]
    watermarks: list[Any]
    windows: list[Any]

    def plot(self, path: Any = None, **options: Any) -> Any:
        """Draw the run (``plot_run``)."""
        ...

COLORS = {"window": "tab:blue", "EARLY": "tab:orange", "ON_TIME": "tab:blue", "LATE": "tab:purple",
          "retraction": "grey"}
WATERMARK_COLOR = "tab:green"
LATE_COLOR = "red"
_FAR = 2**53  # bounds beyond this (the end of time, a global window) are drawn to the edge of the plot


@dataclass(frozen=True)
class Dot:
    """One input tuple: its event time, when it arrived, its label, whether it was late, whether it was dropped.

    ``late``: its event time was behind the watermark when it arrived.
    ``dropped``: the bolt counted it as late and put it in no window (it is in ``BoltHarness.late``).
    """

    event_time: int
    arrival: int
    label: str | None
    late: bool
    dropped: bool


@dataclass(frozen=True)
class Bracket:
    """One window activation or pane: the event time it covers, when it fired, its value and its kind.

    ``kind`` is ``"window"`` (a ``BaseWindowedBolt`` activation), a pane timing
    (``"EARLY"``, ``"ON_TIME"``, ``"LATE"``) or ``"retraction"``.
    """

    start: int
    end: int
    at: int
    text: str
    kind: str


@dataclass(frozen=True)
class Picture:
    """What a figure of a run shows: the dots, the watermark's steps ``(processing time, watermark)``, the brackets."""

    dots: list[Dot]
    watermark: list[tuple[int, int]]
    brackets: list[Bracket]


def picture(
    h: RecordedRun,
    *,
    label: str | Callable[[Any], Any] | None = None,
    value: Callable[[list[Any]], Any] | None = None,
    stream: str = DEFAULT_STREAM,
) -> Picture:
    """What a figure of the run ``h`` shows.

    ``label`` names each dot: a field name or a function of the tuple (no label
    by default). ``value`` gives a ``BaseWindowedBolt`` activation's value from
    the values the bolt emitted on ``stream`` for it (by default the first field
    of its first emission). A ``WindowedAggregateBolt``'s panes carry their value.
    """
    dropped = {id(t) for t in h.late}
    rejected = {id(t) for t in h.rejected}
    read = _event_time_reader(h)
    dots = []
    for arrival, tup, mark in h.arrivals:
        if id(tup) in rejected:
            continue  # no timestamp: it has no place on the event-time axis
        ts = read(tup)
        gone = id(tup) in dropped
        late = gone or (ts is not None and mark is not None and ts < mark)
        dots.append(Dot(arrival if ts is None else ts, arrival, _label(tup, label), late, gone))
    brackets = _panes(h) if _has_panes(h) else _activations(h, value, stream)
    return Picture(dots, list(h.watermarks), brackets)


def plot_run(
    h: RecordedRun,
    path: str | Path | None = None,
    *,
    label: str | Callable[[Any], Any] | None = None,
    value: Callable[[list[Any]], Any] | None = None,
    stream: str = DEFAULT_STREAM,
    title: str | None = None,
    event_time_ranges: Sequence[tuple[int, int]] | None = None,
    figsize: tuple[float, float] = (8.0, 5.0),
) -> Figure:
    """Draw the run ``h`` (see :func:`picture` for ``label``, ``value`` and ``stream``); returns the ``Figure``.

    With ``path`` the figure is also saved there, as PNG or SVG by the file's
    extension. ``event_time_ranges`` draws one panel per ``(start, end)`` range
    of event time, sharing the processing-time axis (for a run with a gap in
    event time); by default one panel covers every dot and bracket.
    """
    return draw(picture(h, label=label, value=value, stream=stream), path, title=title,
                event_time_ranges=event_time_ranges, figsize=figsize)


def draw(
    pic: Picture,
    path: str | Path | None = None,
    *,
    title: str | None = None,
    event_time_ranges: Sequence[tuple[int, int]] | None = None,
    figsize: tuple[float, float] = (8.0, 5.0),
) -> Figure:
    """Draw a :class:`Picture`; with ``path`` (``.png`` or ``.svg``) also save it."""
    try:
        from matplotlib.figure import Figure
        from matplotlib.ticker import MultipleLocator
    except ImportError as error:
        msg = "plot: drawing a run needs matplotlib; install it with pip install 'squall[plot]'"
        raise ImportError(msg) from error
    if path is not None and Path(path).suffix.lower() not in (".png", ".svg"):
        msg = f"plot: `path` must end in .png or .svg; got {str(path)!r}"
        raise ValueError(msg)
    ranges = list(event_time_ranges) if event_time_ranges else [_event_extent(pic)]
    for lo, hi in ranges:
        if not lo < hi:
            msg = f"plot: each event-time range must be (start, end) with start < end; got {(lo, hi)!r}"
            raise ValueError(msg)
    fig = Figure(figsize=figsize, layout="constrained")
    widths = [hi - lo for lo, hi in ranges]
    axes = fig.subplots(1, len(ranges), sharey=True, squeeze=False, width_ratios=widths)[0]
    levels = _stack(pic.brackets)
    ylo, yhi, step = _time_extent(pic, levels)
    for i, (ax, (lo, hi)) in enumerate(zip(axes, ranges, strict=True)):
        _draw_panel(ax, pic, levels, (lo, hi), (ylo, yhi), step)
        ax.xaxis.set_major_locator(MultipleLocator(_tick_step(hi - lo, max(2, round(11 * (hi - lo) / sum(widths))))))
        ax.set_xlim(lo, hi)
        ax.set_ylim(ylo, yhi)
        if i > 0:
            ax.spines["left"].set_linestyle((0, (2, 2)))
            ax.tick_params(axis="y", left=False)
        if i < len(axes) - 1:
            ax.spines["right"].set_linestyle((0, (2, 2)))
    axes[0].yaxis.set_major_locator(MultipleLocator(_tick_step(yhi - ylo, 8)))
    axes[0].set_ylabel("processing time")
    fig.supxlabel("event time", fontsize="medium")
    if title:
        fig.suptitle(title)
    axes[-1].legend(handles=_legend(pic), loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize="small")
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig


def load_harness(path: str) -> tuple[RecordedRun, dict[str, Any]]:
    """The harness a script builds (``build_harness()``, already driven) and its ``PLOT_OPTIONS`` (a dict, optional)."""
    file = Path(path)
    if not file.is_file():
        msg = f"squall plot: no such file {path!r}"
        raise SystemExit(msg)
    spec = importlib.util.spec_from_file_location(f"squall_plot_{file.stem}", file)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    build = getattr(module, "build_harness", None)
    h = build() if callable(build) else None
    if not isinstance(h, RecordedRun):
        msg = f"squall plot: {path} must define build_harness() returning a BoltHarness it has fed; got {h!r}"
        raise SystemExit(msg)
    options = getattr(module, "PLOT_OPTIONS", {})
    if not isinstance(options, dict):
        msg = f"squall plot: PLOT_OPTIONS in {path} must be a dict of plot_run options; got {options!r}"
        raise SystemExit(msg)
    return h, dict(options)


def add_plot_command(sub: Any) -> argparse.ArgumentParser:
    """The ``squall plot`` subcommand's parser (``sub`` is the parser's subparsers)."""
    cmd = sub.add_parser("plot", help="draw a BoltHarness run: event time against processing time (matplotlib)")
    cmd.add_argument("path", help="a .py file defining build_harness() (a BoltHarness it has fed) and PLOT_OPTIONS")
    cmd.add_argument("--out", required=True, help="the image to write: a .png or .svg file")
    cmd.add_argument("--title", help="the figure's title (default: PLOT_OPTIONS['title'], else none)")
    cmd.set_defaults(handler=plot_command)
    return cmd  # type: ignore[no-any-return]


def plot_command(args: argparse.Namespace) -> int:
    """``squall plot``: build the script's harness, draw it to ``--out``."""
    if Path(args.out).suffix.lower() not in (".png", ".svg"):
        msg = f"squall plot: --out must end in .png or .svg; got {args.out!r}"
        raise SystemExit(msg)
    h, options = load_harness(args.path)
    if args.title:
        options["title"] = args.title
    plot_run(h, args.out, **options)
    print(f"squall plot: {len(h.arrivals)} tuples, {len(picture(h).brackets)} brackets -> {args.out}", flush=True)
    return 0


# What the run holds ------------------------------------------------------------------------------
def _event_time_reader(h: RecordedRun) -> Callable[[Any], int | None]:
    """Reads a tuple's event time as the bolt does; None when the bolt runs in processing (ingress) time."""
    options = getattr(h.task, "config", None) or getattr(h.task, "spec", None)
    field = getattr(options, "timestamp_field", None)
    extractor = getattr(options, "timestamp_extractor", None)
    if field is not None:
        return lambda tup: millis(tup[field]) if field in tup.fields else None
    if extractor is not None:
        return lambda tup: millis(extractor(tup))
    return lambda tup: None


def _label(tup: Any, label: str | Callable[[Any], Any] | None) -> str | None:
    if label is None:
        return None
    return _text(label(tup) if callable(label) else tup[label])


def _text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return " ".join(_text(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _is_pane(values: list[Any]) -> bool:
    return len(values) == len(OUTPUT_FIELDS) and isinstance(values[5], PaneInfo)


def _has_panes(h: RecordedRun) -> bool:
    return not h.windows and any(_is_pane(v) for s, v in h.emitted if s == DEFAULT_STREAM)


def _panes(h: RecordedRun) -> list[Bracket]:
    panes = [(at, dict(zip(OUTPUT_FIELDS, v, strict=True)))
             for (s, v), at in zip(h.emitted, h.emitted_at, strict=True) if s == DEFAULT_STREAM and _is_pane(v)]
    keyed = len({p["key"] for _, p in panes}) > 1
    out = []
    for at, p in panes:
        text = f"-{_text(p['value'])}" if p["is_retraction"] else _text(p["value"])
        kind = "retraction" if p["is_retraction"] else p["pane"].timing
        out.append(Bracket(p["window_start"], p["window_end"], at, f"{p['key']}: {text}" if keyed else text, kind))
    return out


def _activations(h: RecordedRun, value: Callable[[list[Any]], Any] | None, stream: str) -> list[Bracket]:
    read = _event_time_reader(h)
    arrived = {id(tup): at for at, tup, _ in h.arrivals}  # in processing time a tuple's time is its arrival
    out = []
    for i, act in enumerate(h.windows):
        if act.at is None or act.emitted_from is None:
            continue
        if act.start_timestamp is not None and act.end_timestamp is not None:  # a Duration length: (start, end]
            start, end = act.start_timestamp, act.end_timestamp
        else:  # a Count length: from its earliest tuple to its latest
            times = [ts if (ts := read(tup)) is not None else arrived.get(id(tup), act.at) for tup in act.tuples]
            start, end = min(times), max(times)
        stop = h.windows[i + 1].emitted_from if i + 1 < len(h.windows) else len(h.emitted)
        emitted = [v for s, v in h.emitted[act.emitted_from : stop] if s == stream]
        if not emitted:
            text = ""
        elif value is not None:
            text = _text(value(emitted[0]))
        else:
            text = _text(emitted[0][0])
        out.append(Bracket(start, end, act.at, text, "window"))
    return out


# Drawing -----------------------------------------------------------------------------------------
def _stack(brackets: list[Bracket]) -> list[int]:
    """A level per bracket: brackets that fire at the same instant and overlap or touch are stacked upwards."""
    placed: dict[int, list[tuple[int, int, int]]] = {}
    levels = []
    for b in brackets:
        taken = {lvl for s, e, lvl in placed.get(b.at, []) if s <= b.end and b.start <= e}  # touching counts
        level = next(n for n in range(len(taken) + 1) if n not in taken)
        placed.setdefault(b.at, []).append((b.start, b.end, level))
        levels.append(level)
    return levels


def _event_extent(pic: Picture) -> tuple[int, int]:
    xs = [d.event_time for d in pic.dots]
    xs += [x for b in pic.brackets for x in (b.start, b.end) if abs(x) < _FAR]
    if not xs:
        return (0, 1000)
    lo, hi = min(xs), max(xs)
    pad = max((hi - lo) // 20, 500)
    return (lo - pad, hi + pad)


def _time_extent(pic: Picture, levels: list[int]) -> tuple[int, int, float]:
    ys = [d.arrival for d in pic.dots] + [b.at for b in pic.brackets] + [at for at, _ in pic.watermark[1:]]
    ys = ys or [at for at, _ in pic.watermark] or [0]
    lo, hi = min(ys), max(ys)
    span = max(hi - lo, 1000)
    step = span / 14  # the height of one stacking level
    top = max((b.at + lvl * step for b, lvl in zip(pic.brackets, levels, strict=True)), default=hi)
    return (int(lo - span / 12), int(max(hi, top) + span / 8), step)


def _draw_panel(
    ax: Axes, pic: Picture, levels: list[int], xlim: tuple[int, int], ylim: tuple[int, int], step: float
) -> None:
    from matplotlib.ticker import FuncFormatter

    lo, hi = xlim
    width = hi - lo
    clamp = lambda x: min(max(x, lo - width), hi + width)  # noqa: E731 - the end of time stays drawable
    ax.grid(True, color="0.92", zorder=0)
    on_time = [d for d in pic.dots if not d.late]
    late = [d for d in pic.dots if d.late and not d.dropped]
    dropped = [d for d in pic.dots if d.dropped]
    ax.scatter([d.event_time for d in on_time], [d.arrival for d in on_time], s=36, color="black", zorder=4,
               gid="tuples")
    ax.scatter([d.event_time for d in late], [d.arrival for d in late], s=36, color=LATE_COLOR, zorder=4, gid="late")
    ax.scatter([d.event_time for d in dropped], [d.arrival for d in dropped], s=64, facecolors="white",
               edgecolors=LATE_COLOR, linewidths=2, zorder=4, gid="dropped")
    for d in pic.dots:
        if d.label is not None:
            ax.annotate(d.label, (d.event_time, d.arrival), xytext=(0, -11), textcoords="offset points",
                        ha="center", fontsize=7, color=LATE_COLOR if d.late else "black", annotation_clip=True)
    if pic.watermark:
        xs, ys = [], []
        for i, (at, mark) in enumerate(pic.watermark):
            until = pic.watermark[i + 1][0] if i + 1 < len(pic.watermark) else ylim[1]
            xs += [clamp(mark), clamp(mark)]
            ys += [at, until]
        ax.plot(xs, ys, color=WATERMARK_COLOR, linewidth=1.5, zorder=2, gid="watermark")
    for b, level in zip(pic.brackets, levels, strict=True):
        y = b.at + level * step
        s, e = clamp(b.start), clamp(b.end)
        color = COLORS[b.kind]
        style = "--" if b.kind == "retraction" else "-"
        ax.plot([s, s, e, e], [y - step * 0.45, y, y, y - step * 0.45], color=color, linestyle=style,
                linewidth=1.8, zorder=3, gid="bracket")
        if b.text:
            ax.annotate(b.text, ((max(s, lo) + min(e, hi)) / 2, y), xytext=(0, 1.5), textcoords="offset points",
                        ha="center", va="bottom", fontsize=8, color=color, fontweight="bold", annotation_clip=True,
                        bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.8},
                        zorder=5)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: _clock(x)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: _clock(y)))
    ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    ax.tick_params(axis="y", labelsize=8)


_STEPS = [n * unit for unit in (1, 1000, 60_000) for n in (1, 2, 5, 10, 20, 30)] + [3_600_000 * n for n in
                                                                                        (1, 2, 3, 6, 12, 24)]


def _tick_step(span: float, most: int) -> int:
    """The smallest round step of time (1, 2, 5, 10, 20, 30 ms, s or min; hours) giving at most ``most`` ticks."""
    return next((step for step in sorted(set(_STEPS)) if span / step <= most), _STEPS[-1] * max(1, round(span / most)))


def _clock(ms: float) -> str:
    """Epoch milliseconds as a UTC time of day, ``HH:MM:SS`` (``.mmm`` when not on a second)."""
    total = round(ms)
    seconds, milli = divmod(total, 1000)
    text = f"{seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{text}.{milli:03d}" if milli else text


def _legend(pic: Picture) -> list[Any]:
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", linestyle="", color="black", label="tuple (event time, arrival)")]
    if any(d.late and not d.dropped for d in pic.dots):
        handles.append(Line2D([], [], marker="o", linestyle="", color=LATE_COLOR, label="late tuple, kept"))
    if any(d.dropped for d in pic.dots):
        handles.append(Line2D([], [], marker="o", linestyle="", markerfacecolor="white",
                              markeredgecolor=LATE_COLOR, markeredgewidth=2, label="late tuple, dropped"))
    if pic.watermark:
        handles.append(Line2D([], [], color=WATERMARK_COLOR, label="watermark"))
    names = {"window": "window activation", "EARLY": "EARLY pane", "ON_TIME": "ON_TIME pane",
             "LATE": "LATE pane", "retraction": "retraction"}
    for kind in names:
        if any(b.kind == kind for b in pic.brackets):
            handles.append(Line2D([], [], color=COLORS[kind], linestyle="--" if kind == "retraction" else "-",
                                  linewidth=1.8, label=names[kind]))
    return handles
