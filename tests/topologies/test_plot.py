"""Pictures of a run (topologies/plot.py): what the harness records, what the figure draws, `squall plot`."""

from __future__ import annotations

from pathlib import Path

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402

from squall import BaseWindowedBolt, BoltHarness, Count, Duration, Fields  # noqa: E402
from topologies.cli import main  # noqa: E402
from topologies.plot import load_harness, picture, plot_run  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
IMG = ROOT / "docs" / "img"
S = 1000


class Sum(BaseWindowedBolt):
    def execute(self, window):
        self.collector.emit([sum(t["value"] for t in window.get())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("sum"))


def sliding_sum() -> BoltHarness:
    """Tumbling 10 s windows, lag 1 s; the tuple at 2 s arrives after the watermark passed it."""
    bolt = (Sum().with_tumbling_window(Duration.seconds(10)).with_timestamp_field("ts").with_lag(Duration.seconds(1))
            .with_late_tuple_stream("late"))
    h = BoltHarness(bolt, fields=("ts", "value"))
    for arrival, ts, value in [(100, 1, 1), (300, 4, 2), (1500, 12, 3), (2500, 2, 4), (2700, 15, 5)]:
        h.advance_to(arrival)
        h.feed({"ts": ts * S, "value": value})
    h.advance_to(4 * S)
    h.close()
    return h


def gids(fig: Figure, gid: str) -> list:
    return [a for ax in fig.axes for a in [*ax.lines, *ax.collections] if a.get_gid() == gid]


# What the harness records --------------------------------------------------------------------------------
def test_the_harness_records_arrivals_emission_times_and_each_watermark_step_at_its_tick():
    h = sliding_sum()
    assert [(at, t["value"], mark) for at, t, mark in h.arrivals] == [
        (100, 1, 0), (300, 2, 0), (1500, 3, 3 * S), (2500, 4, 11 * S), (2700, 5, 11 * S)]
    # the 1 s interval ticks at 1 s and 2 s (not at the 4 s the harness was advanced to), then the end of input
    assert h.watermarks[:3] == [(0, 0), (1 * S, 3 * S), (2 * S, 11 * S)]
    assert h.watermarks[-1][1] == 2**63 - 1
    assert len(h.emitted_at) == len(h.emitted)
    assert [(w.at, w.start_timestamp, w.end_timestamp) for w in h.windows] == [
        (2 * S, 0, 10 * S), (4 * S, 10 * S, 20 * S)]
    assert [h.emitted[w.emitted_from] for w in h.windows] == [("default", [3]), ("default", [8])]


def test_restart_forgets_what_the_recordings_hold_since_the_last_commit():
    from squall import WindowedAggregateBolt, aggregators
    from windowing.assigners import FixedWindows

    bolt = WindowedAggregateBolt(aggregators.sum("v")).with_windows(FixedWindows(Duration.seconds(10)))
    h = BoltHarness(bolt.with_timestamp_field("ts"), fields=("ts", "v"), state="memory://")
    h.feed_batch([{"ts": 1 * S, "v": 1}])
    h.commit()
    kept = (list(h.arrivals), list(h.watermarks), len(h.emitted_at))
    h.advance(Duration.seconds(5))
    h.feed_batch([{"ts": 30 * S, "v": 2}])
    h.advance(Duration.seconds(2))
    h.restart()
    assert (h.arrivals, h.watermarks, len(h.emitted_at)) == kept


# What the figure shows -------------------------------------------------------------------------------
def test_plot_returns_a_figure_with_a_dot_per_tuple_a_bracket_per_activation_and_the_watermark():
    h = sliding_sum()
    fig = h.plot(label="value")
    assert isinstance(fig, Figure)
    dots = sum(len(c.get_offsets()) for gid in ("tuples", "late", "dropped") for c in gids(fig, gid))
    assert dots == len(h.arrivals) == 5
    assert len(gids(fig, "bracket")) == len(h.windows) == 2
    (line,) = gids(fig, "watermark")
    assert 11 * S in set(line.get_xdata())
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert {"3", "8"} <= texts  # the brackets' values
    assert {"1", "2", "3", "4", "5"} <= texts  # the dots' labels


def test_a_late_tuple_is_a_hollow_red_dot_at_its_event_time_and_arrival():
    h = sliding_sum()
    assert [t["value"] for t in h.late] == [4]
    fig = plot_run(h)
    (dropped,) = gids(fig, "dropped")
    assert [tuple(xy) for xy in dropped.get_offsets()] == [(2 * S, 2500)]
    assert tuple(dropped.get_facecolor()[0]) == (1.0, 1.0, 1.0, 1.0)
    (on_time,) = gids(fig, "tuples")
    assert len(on_time.get_offsets()) == 4
    assert "late tuple, dropped" in [t.get_text() for t in fig.axes[-1].get_legend().get_texts()]


def test_plot_writes_png_and_svg(tmp_path):
    h = sliding_sum()
    h.plot(tmp_path / "run.png")
    plot_run(h, tmp_path / "run.svg", title="sum")
    assert (tmp_path / "run.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = (tmp_path / "run.svg").read_text()
    assert "<svg" in svg
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        h.plot(tmp_path / "run.jpg")


def test_a_count_window_spans_its_tuples_and_value_picks_the_label():
    bolt = Sum().with_window(Count(2), Count(2)).with_timestamp_field("ts").with_lag(Duration.seconds(1))
    h = BoltHarness(bolt, fields=("ts", "value"))
    for ts in (1, 3, 4, 6, 9):
        h.feed({"ts": ts * S, "value": ts})
    h.advance(Duration.seconds(1))
    pic = picture(h, value=lambda values: f"sum={values[0]}")
    assert [(b.start, b.end, b.at, b.text) for b in pic.brackets] == [
        (1 * S, 3 * S, S, "sum=4"), (4 * S, 6 * S, S, "sum=10")]


def test_in_processing_time_a_tuple_sits_on_its_arrival_and_a_window_spans_its_arrivals():
    h = BoltHarness(Sum().with_window(Count(2)), fields=("value",))
    for value in (1, 2, 3):
        h.advance(100)
        h.feed({"value": value})
    pic = picture(h)
    assert [(d.event_time, d.arrival) for d in pic.dots] == [(100, 100), (200, 200), (300, 300)]
    assert [(b.start, b.end, b.at, b.text) for b in pic.brackets] == [
        (100, 100, 100, "1"), (100, 200, 200, "3"), (200, 300, 300, "5")]
    assert pic.watermark == []
    assert len(gids(plot_run(h), "watermark")) == 0


def test_panes_are_coloured_by_timing_and_retractions_negated():
    h, _ = load_harness(str(IMG / "session_merge.py"))
    pic = picture(h)
    assert [(b.kind, b.text) for b in pic.brackets if b.at == 180 * S] == [
        ("retraction", "-5"), ("ON_TIME", "5"), ("retraction", "-7"), ("retraction", "-10"), ("ON_TIME", "25")]
    assert [(b.start, b.end, b.kind, b.text) for b in pic.brackets][-1] == (10 * S, 290 * S, "LATE", "39")
    late = [d for d in pic.dots if d.late]
    assert [(d.label, d.dropped) for d in late] == [(None, False)]  # late, yet within the allowed lateness: kept
    fig = plot_run(h)
    assert len(gids(fig, "bracket")) == len(pic.brackets)
    assert len(gids(fig, "late")[0].get_offsets()) == 1


def test_event_time_ranges_draw_one_panel_each_sharing_processing_time():
    h, options = load_harness(str(IMG / "storm_watermark.py"))
    fig = plot_run(h, **options)
    assert len(fig.axes) == 2
    assert fig.axes[0].get_ylim() == fig.axes[1].get_ylim()
    with pytest.raises(ValueError, match="start < end"):
        plot_run(h, event_time_ranges=[(5, 1)])


# The figures of docs/plots.md -------------------------------------------------------------------------
def test_the_storm_docs_example_fires_its_windows_at_the_docs_watermarks():
    h, _ = load_harness(str(IMG / "storm_watermark.py"))
    at = lambda hh, m, s: ((hh * 60 + m) * 60 + s) * S  # noqa: E731
    assert h.watermarks == [(at(9, 0, 0), 0), (at(9, 0, 1), at(6, 0, 31)), (at(9, 0, 2), at(8, 0, 34))]
    assert [(b.at, b.start, b.end, b.text) for b in picture(h).brackets] == [
        (at(9, 0, 1), at(5, 59, 50), at(6, 0, 10), "e1 e2 e3"),
        (at(9, 0, 1), at(6, 0, 0), at(6, 0, 20), "e1 e2 e3 e4"),
        (at(9, 0, 1), at(6, 0, 10), at(6, 0, 30), "e4 e5"),
        (at(9, 0, 2), at(6, 0, 20), at(6, 0, 40), "e5 e6"),
        (at(9, 0, 2), at(6, 0, 30), at(6, 0, 50), "e6"),
        (at(9, 0, 2), at(8, 0, 10), at(8, 0, 30), "e7 e8 e9"),
    ]


def test_the_sliding_count_window_figure():
    h, _ = load_harness(str(IMG / "sliding_count.py"))
    pic = picture(h, label="value")
    assert [(b.start, b.end, b.at, b.text) for b in pic.brackets] == [
        (1 * S, 3 * S, 2 * S, "8"), (3 * S, 6 * S, 2 * S, "14"), (6 * S, 9500, 4 * S, "15")]
    assert [(d.event_time, d.label) for d in pic.dots if d.dropped] == [(5 * S, "9")]


def test_the_early_late_figure_ends_with_streaming_102s_totals():
    h, _ = load_harness(str(IMG / "early_late.py"))
    last = {}
    for b in picture(h).brackets:
        last[b.start] = (b.kind, b.text)
    assert [last[k] for k in sorted(last)] == [("LATE", "14"), ("ON_TIME", "22"), ("ON_TIME", "3"), ("ON_TIME", "12")]
    kinds = {b.kind for b in picture(h).brackets}
    assert kinds == {"EARLY", "ON_TIME", "LATE"}


def test_make_plots_draws_the_four_figures(tmp_path, monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_plots", IMG / "make_plots.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = module.make(tmp_path)
    assert [p.name for p in written] == [f"{name}.png" for name in module.FIGURES]
    for p in written:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (IMG / p.name).is_file()  # the committed figure docs/plots.md shows


# squall plot ------------------------------------------------------------------------------------------
def test_squall_plot_writes_the_figure_of_a_script(tmp_path, capsys):
    script = tmp_path / "run.py"
    script.write_text(
        "from squall import BoltHarness, WindowedAggregateBolt, aggregators\n"
        "from windowing.assigners import FixedWindows\n"
        "from windowing import Duration\n"
        "def build_harness():\n"
        "    bolt = (WindowedAggregateBolt(aggregators.count()).with_timestamp_field('ts')\n"
        "            .with_windows(FixedWindows(Duration.seconds(10))))\n"
        "    h = BoltHarness(bolt, fields=('ts',))\n"
        "    h.feed_batch([{'ts': 1000}, {'ts': 4000}])\n"
        "    h.advance_watermark(20000)\n"
        "    return h\n"
        "PLOT_OPTIONS = {'title': 'counts'}\n"
    )
    out = tmp_path / "fig.svg"
    assert main(["plot", str(script), "--out", str(out), "--title", "two tuples"]) == 0
    assert "<svg" in out.read_text()
    assert "2 tuples, 1 brackets" in capsys.readouterr().out


def test_squall_plot_refuses_a_script_without_a_harness_and_a_bad_extension(tmp_path):
    script = tmp_path / "empty.py"
    script.write_text("x = 1\n")
    with pytest.raises(SystemExit, match="build_harness"):
        main(["plot", str(script), "--out", str(tmp_path / "f.png")])
    with pytest.raises(SystemExit, match=r"\.png or \.svg"):
        main(["plot", str(script), "--out", str(tmp_path / "f.pdf")])
