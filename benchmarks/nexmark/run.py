"""The Nexmark suite in one command: generate the events, run every query in Spark and in squall, check, tabulate.

Run from the repository's root::

    python -m benchmarks.nexmark [--events N | --quick] [--queries q5 q7 ...] [--modes driver distributed]
        [--rounds 3] [--disorder 0|6000|15000] [--lag MS] [--docs] [--table FILE.md] [--chart FILE.png]

It generates nexmark's events (``generator.py``; cached under ``--data-dir`` by
their parameters) into Parquet files of ``--events-per-file`` events, read
``--files-per-batch`` per micro-batch; starts ``local[2]`` Spark and, for
distributed mode, a redis-server on a free port (or uses ``--redis-url``);
then for each query runs Spark's own query once as a warm-up (its answer is
the reference) and ``--rounds`` rounds of Spark, squall in driver mode
(``memory://`` state) and squall in distributed mode (Redis state),
interleaved, each run timed whole and checked (``suite.py``). It prints every
check and a Markdown table of events/s per core (median and min-max over the
rounds), squall's ratios to Spark, and Flink's published per-core figures.
``--table`` writes the table (with a heading saying what was run) to a file,
``--chart`` draws it (PNG), and ``--docs`` does both into the docs: the chart
to ``docs/nexmark.png`` and the table into docs/performance.md, between its
``nexmark results`` markers. Options are checked before anything runs. It
exits with status 1 when a check fails (the files are written all the same,
their check column saying FAIL), 2 on a bad option.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks.nexmark.engines import DISTRIBUTED, DRIVER, MODES  # noqa: E402
from benchmarks.nexmark.generator import NexmarkConfig, write_events  # noqa: E402
from benchmarks.nexmark.queries import QUERIES  # noqa: E402
from benchmarks.nexmark.report import (  # noqa: E402
    BEGIN,
    END,
    FULL_EVENTS,
    FULL_ROUNDS,
    RunShape,
    chart,
    heading,
    results_markdown,
    splice,
    table,
)
from benchmarks.nexmark.suite import QueryResult, run_query  # noqa: E402
from benchmarks.nexmark.views import Workload  # noqa: E402

QUICK_EVENTS = 200_000
NEXMARK_LAG_MS = 4_000  # nexmark's watermark: dateTime - INTERVAL '4' SECOND
DOCS_PAGE = ROOT / "docs" / "performance.md"
DOCS_CHART = ROOT / "docs" / "nexmark.png"


def count(option: str, least: int) -> Callable[[str], int]:
    """An argparse type: an integer (``_`` and ``,`` allowed) of at least ``least``, else an error naming ``option``."""

    def parse(text: str) -> int:
        try:
            value = int(text.replace("_", "").replace(",", ""))
        except ValueError:
            value = None
        if value is None or value < least:
            msg = f"{option} must be an integer of at least {least:,}; got {text!r}"
            raise argparse.ArgumentTypeError(msg)
        return value

    return parse


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.nexmark", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    size = p.add_mutually_exclusive_group()
    size.add_argument("--events", type=count("--events", 1), default=FULL_EVENTS,
                      help=f"events (default {FULL_EVENTS:,})")
    size.add_argument("--quick", action="store_true", help=f"{QUICK_EVENTS:,} events and 1 round, for development")
    p.add_argument("--queries", nargs="+", choices=list(QUERIES), default=list(QUERIES), metavar="QUERY",
                   help=f"queries to run (default all: {' '.join(QUERIES)})")
    p.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES), help="squall's modes (default both)")
    p.add_argument("--disorder", type=count("--disorder", 0), default=0,
                   help="event-time disorder in ms: nexmark's out-of-order groups (e.g. 0, 6000, 15000)")
    p.add_argument("--lag", type=count("--lag", 0), default=None,
                   help=f"watermark lag in ms (default: the disorder, at least nexmark's {NEXMARK_LAG_MS})")
    p.add_argument("--rounds", type=count("--rounds", 1), default=None,
                   help=f"interleaved rounds (default {FULL_ROUNDS}; 1 with --quick)")
    p.add_argument("--rate", type=count("--rate", 1), default=10_000, help="events per second of event time")
    p.add_argument("--seed", type=count("--seed", 0), default=42, help="the generator's seed")
    p.add_argument("--events-per-file", type=count("--events-per-file", 1), default=50_000)
    p.add_argument("--files-per-batch", type=count("--files-per-batch", 1), default=2)
    p.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "squall-nexmark",
                   help="where generated events are cached")
    p.add_argument("--redis-url", default=None, help="Redis for distributed mode (default: start a redis-server)")
    p.add_argument("--table", type=Path, default=None, help="write the Markdown table to this file")
    p.add_argument("--chart", type=Path, default=None, help="draw the figures in this PNG file")
    p.add_argument("--docs", action="store_true",
                   help=f"write the chart to {DOCS_CHART.relative_to(ROOT)} and the table into "
                        f"{DOCS_PAGE.relative_to(ROOT)} (between its nexmark results markers)")
    return p


def checked_args(p: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """The parsed options, refused (argparse's usage error, status 2) when they cannot all be honoured.

    Everything a run would trip on only at its end (a file it cannot write, a
    page without its markers, no matplotlib) is found here, before an hour of
    measuring.
    """
    args = p.parse_args(argv)
    for option, values in (("--queries", args.queries), ("--modes", args.modes)):
        if len(set(values)) != len(values):
            p.error(f"{option} names one more than once: {' '.join(values)}")
    if args.docs and args.chart is not None:
        p.error("--docs draws the chart in docs/nexmark.png; give --chart without --docs to draw it elsewhere")
    if args.docs:
        args.chart = DOCS_CHART
        text = DOCS_PAGE.read_text(encoding="utf-8") if DOCS_PAGE.is_file() else ""
        if BEGIN not in text or END not in text:
            p.error(f"--docs: {DOCS_PAGE} lacks the lines {BEGIN!r} and {END!r} the table goes between")
    if args.chart is not None and args.chart.suffix.lower() != ".png":
        p.error(f"--chart must name a .png file; got {str(args.chart)!r}")
    for option, path in (("--table", args.table), ("--chart", args.chart)):
        if path is not None and not path.parent.is_dir():
            p.error(f"{option}: the directory {str(path.parent)!r} does not exist")
    if args.chart is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            p.error("--chart and --docs need matplotlib: pip install matplotlib")
    return args


def spark_session():
    """``local[2]`` with a 4 GB heap, two shuffle partitions, UTC, quiet; Python workers see this repository."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["PYTHONPATH"] = os.pathsep.join(x for x in (str(ROOT), os.environ.get("PYTHONPATH")) if x)
    # Spark's own q7 (the bids joined with their window's highest price) keeps the bids in its join's state store:
    # at 1,000,000 events it ran out of the default 1 GB heap here (OutOfMemoryError loading the state store).
    spark = (SparkSession.builder.master("local[2]").appName("nexmark").config("spark.sql.shuffle.partitions", "2")
             .config("spark.driver.memory", "4g").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main(argv: list[str] | None = None) -> int:
    """Run the suite; 0 when every check passed, 1 otherwise (2, from argparse, on a bad option)."""
    args = checked_args(parser(), argv)
    events = QUICK_EVENTS if args.quick else args.events
    rounds = args.rounds or (1 if args.quick else FULL_ROUNDS)
    lag = args.lag if args.lag is not None else max(NEXMARK_LAG_MS, args.disorder)
    config = NexmarkConfig(events=events, events_per_file=args.events_per_file, seed=args.seed, rate=args.rate,
                           disorder_ms=args.disorder)
    data = write_events(config, args.data_dir)
    workload = Workload(data, files_per_batch=args.files_per_batch, lag_ms=lag)
    spark = spark_session()
    from benchmarks.spark_sliding_sum import redis_url

    redis = redis_url(args.redis_url) if DISTRIBUTED in args.modes else nullcontext("")
    try:
        with redis as url:
            state = {DRIVER: "memory://", DISTRIBUTED: url}
            results = [run_query(QUERIES[name], spark, workload, args.modes, state, rounds) for name in args.queries]
    finally:
        spark.stop()
    shape = RunShape(events, rounds, tuple(args.modes),
                     f"{config.files} files of {args.events_per_file:,}, {args.files_per_batch} per batch; "
                     f"{args.rate:,} events/s of event time, disorder {args.disorder} ms, lag {lag} ms")
    report(results, shape, args)
    failed = [r.query.name for r in results if not r.ok]
    print(f"\n{'FAILED checks: ' + ' '.join(failed) if failed else 'every check passed'}")
    return 1 if failed else 0


def report(results: list[QueryResult], shape: RunShape, args: argparse.Namespace) -> None:
    """Print every check and the table; write the table, the chart and the docs' section as the options ask."""
    print("\nchecks:")
    for result in results:
        for line in result.checks + result.failures:
            print(f"  {line}")
        for gap in result.query.gaps:
            print(f"  {result.query.name} works around: {gap}")
    print(f"\n{heading(shape)}\n\n{table(results, shape.events, shape.modes)}")
    if args.chart is not None:
        chart(results, shape, args.chart)
    chart_name = None if args.chart is None else args.chart.name
    if args.table is not None:
        args.table.write_text(results_markdown(results, shape, chart_name) + "\n", encoding="utf-8")
        print(f"table: {args.table}")
    if args.docs:
        # The chart sits beside the page, so the page names it by its file name.
        splice(DOCS_PAGE, results_markdown(results, shape, chart_name))
        print(f"docs: {DOCS_PAGE}")
