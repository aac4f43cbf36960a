"""The suite's report: its table, its heading (a smoke run says so), its chart, the docs' section and its options."""

from __future__ import annotations

import pytest

from benchmarks.nexmark.hot_items import Q5
from benchmarks.nexmark.joins import Q8
from benchmarks.nexmark.report import BEGIN, END, RunShape, chart, results_markdown, splice, table
from benchmarks.nexmark.run import checked_args, parser, report
from benchmarks.nexmark.suite import QueryResult

EVENTS = 1_000_000
SHAPE = RunShape(EVENTS, 3, ("driver", "distributed"), "20 files of 50,000, 2 per batch")


def results() -> list[QueryResult]:
    """q5 passing with three rounds per engine; q8 failing, distributed mode having no run."""
    q5 = QueryResult(Q5, {"spark": [10.0, 9.0, 11.0], "driver": [5.0, 4.0, 6.0], "distributed": [20.0, 20.0, 25.0]})
    q8 = QueryResult(Q8, {"spark": [2.0], "driver": [4.0]}, failures=["q8 distributed, round 1: the run failed"])
    return [q5, q8]


def test_the_table_gives_medians_with_their_spread_ratios_to_spark_flinks_figure_and_the_check():
    lines = table(results(), EVENTS, SHAPE.modes).splitlines()
    assert lines[0] == ("| query | Spark runs | Spark | squall driver | x Spark | squall distributed | x Spark "
                        "| Flink per core (nexmark's) | check |")
    # 1,000,000 events over 2 cores: 10 s is 50.0K events/s per core, 5 s is 100.0K
    assert lines[2] == ("| q5 hot items | streaming (two chained aggregations) | 50.0K (45.5K-55.6K) "
                        "| 100.0K (83.3K-125.0K) | 2.00 | 25.0K (20.0K-25.0K) | 0.50 | 22.1K | pass |")
    assert lines[3].endswith("| 125.0K (125.0K-125.0K) | 0.50 | - | - | 146.1K | FAIL |")


def test_a_run_smaller_than_the_published_one_is_headed_as_a_smoke_run():
    full = results_markdown(results(), SHAPE, "nexmark.png")
    heading = full.split("\n\n")[0]
    assert max(len(line) for line in heading.splitlines()) <= 100  # wrapped as the page's paragraphs are
    heading = " ".join(heading.split())
    assert heading.startswith("Nexmark, 1,000,000 events (20 files of 50,000, 2 per batch), `local[2]`")
    assert "median (slowest-fastest) of 3 rounds" in heading and "Smoke" not in full
    assert full.endswith("![Nexmark: events/s per core per query and engine](nexmark.png)")
    for smaller in (RunShape(100_000, 3, SHAPE.modes, ""), RunShape(EVENTS, 1, SHAPE.modes, "")):
        text = results_markdown(results(), smaller, None)
        assert text.startswith("**Smoke size, to be replaced:**") and "![" not in text


def test_the_docs_section_is_replaced_between_its_markers_and_nothing_else_changes(tmp_path):
    page = tmp_path / "performance.md"
    page.write_text(f"# Performance\n\nbefore\n\n{BEGIN}\nold table\n{END}\n\nafter\n", encoding="utf-8")
    splice(page, "new table")
    assert page.read_text(encoding="utf-8") == f"# Performance\n\nbefore\n\n{BEGIN}\n\nnew table\n\n{END}\n\nafter\n"
    splice(page, "newer table")
    assert "new table" not in page.read_text(encoding="utf-8").replace("newer table", "")


def test_a_page_without_both_markers_is_refused_naming_the_missing_line(tmp_path):
    page = tmp_path / "performance.md"
    page.write_text(f"# Performance\n{BEGIN}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="must hold the line '<!-- end of nexmark results -->' exactly once"):
        splice(page, "table")
    page.write_text(f"{END}\n{BEGIN}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="comes before"):
        splice(page, "table")


def test_the_chart_is_a_png(tmp_path):
    path = tmp_path / "nexmark.png"
    chart(results(), SHAPE, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("argv", "message"), [
    (["--queries", "q6"], "argument --queries: invalid choice: 'q6'"),
    (["--queries", "q5", "q5"], "--queries names one more than once: q5 q5"),
    (["--modes", "driver", "driver"], "--modes names one more than once: driver driver"),
    (["--events", "100000", "--quick"], "argument --quick: not allowed with argument --events"),
    (["--chart", "nexmark.jpg"], "--chart must name a .png file; got 'nexmark.jpg'"),
    (["--chart", "no/such/dir/nexmark.png"], "--chart: the directory 'no/such/dir' does not exist"),
    (["--table", "no/such/dir/nexmark.md"], "--table: the directory 'no/such/dir' does not exist"),
    (["--docs", "--chart", "x.png"], "--docs draws the chart in docs/nexmark.png"),
])
def test_options_that_cannot_be_honoured_are_refused_before_anything_runs(argv, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        checked_args(parser(), argv)
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


def test_docs_sends_the_chart_into_docs_beside_the_page():
    args = checked_args(parser(), ["--docs", "--queries", "q5"])
    assert args.chart.parent.name == "docs" and args.chart.name == "nexmark.png"


def test_the_run_writes_the_table_it_prints_naming_the_chart_drawn_beside_it(tmp_path, capsys):
    table_path, chart_path = tmp_path / "nexmark.md", tmp_path / "nexmark.png"
    args = checked_args(parser(), ["--table", str(table_path), "--chart", str(chart_path)])
    report(results(), SHAPE, args)
    written = table_path.read_text(encoding="utf-8")
    assert written == results_markdown(results(), SHAPE, "nexmark.png") + "\n"
    assert table(results(), EVENTS, SHAPE.modes) in capsys.readouterr().out
    assert chart_path.read_bytes()[:4] == b"\x89PNG"
