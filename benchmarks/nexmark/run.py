"""The Nexmark suite in one command: generate the events, run every query in Spark and in squall, check, tabulate.

Run from the repository's root::

    python -m benchmarks.nexmark [--events N | --quick] [--queries q5 q7 ...] [--modes driver distributed]
        [--disorder 0|6000|15000] [--lag MS] [--rounds 3] [--chart docs/nexmark.png]

It generates nexmark's events (``generator.py``; cached under ``--data-dir`` by
their parameters) into Parquet files of ``--events-per-file`` events, read
``--files-per-batch`` per micro-batch; starts ``local[2]`` Spark and, for
distributed mode, a redis-server on a free port (or uses ``--redis-url``);
then for each query runs Spark's own query once as a warm-up (its answer is
the reference) and ``--rounds`` rounds of Spark, squall in driver mode
(``memory://`` state) and squall in distributed mode (Redis state),
interleaved, each run timed whole and checked (``suite.py``). It prints every
check and a Markdown table of events/s per core (median and min-max over the
rounds), squall's ratios to Spark, and Flink's published per-core figures;
``--chart`` also draws the ratios. It exits with status 1 when a check fails.
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
from benchmarks.nexmark.report import chart, table  # noqa: E402
from benchmarks.nexmark.suite import run_query  # noqa: E402
from benchmarks.nexmark.views import Workload  # noqa: E402

QUICK_EVENTS = 200_000
NEXMARK_LAG_MS = 4_000  # nexmark's watermark: dateTime - INTERVAL '4' SECOND


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
    p.add_argument("--events", type=count("--events", 1), default=1_000_000, help="events (default 1,000,000)")
    p.add_argument("--quick", action="store_true", help=f"{QUICK_EVENTS:,} events and 1 round, for development")
    p.add_argument("--queries", nargs="+", choices=list(QUERIES), default=list(QUERIES), metavar="QUERY",
                   help=f"queries to run (default all: {' '.join(QUERIES)})")
    p.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES), help="squall's modes (default both)")
    p.add_argument("--disorder", type=count("--disorder", 0), default=0,
                   help="event-time disorder in ms: nexmark's out-of-order groups (e.g. 0, 6000, 15000)")
    p.add_argument("--lag", type=count("--lag", 0), default=None,
                   help=f"watermark lag in ms (default: the disorder, at least nexmark's {NEXMARK_LAG_MS})")
    p.add_argument("--rounds", type=count("--rounds", 1), default=None, help="interleaved rounds (default 3)")
    p.add_argument("--rate", type=count("--rate", 1), default=10_000, help="events per second of event time")
    p.add_argument("--seed", type=count("--seed", 0), default=42, help="the generator's seed")
    p.add_argument("--events-per-file", type=count("--events-per-file", 1), default=50_000)
    p.add_argument("--files-per-batch", type=count("--files-per-batch", 1), default=2)
    p.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "squall-nexmark",
                   help="where generated events are cached")
    p.add_argument("--redis-url", default=None, help="Redis for distributed mode (default: start a redis-server)")
    p.add_argument("--chart", type=Path, default=None, help="write a bar chart of the ratios to Spark (PNG)")
    return p


def spark_session():
    """``local[2]``, two shuffle partitions, UTC, quiet; Python workers see this repository."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["PYTHONPATH"] = os.pathsep.join(x for x in (str(ROOT), os.environ.get("PYTHONPATH")) if x)
    spark = (SparkSession.builder.master("local[2]").appName("nexmark").config("spark.sql.shuffle.partitions", "2")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main(argv: list[str] | None = None) -> int:
    """Run the suite; 0 when every check passed, 1 otherwise."""
    args = parser().parse_args(argv)
    events = QUICK_EVENTS if args.quick else args.events
    rounds = args.rounds or (1 if args.quick else 3)
    lag = args.lag if args.lag is not None else max(NEXMARK_LAG_MS, args.disorder)
    config = NexmarkConfig(events=events, events_per_file=args.events_per_file, seed=args.seed, rate=args.rate,
                           disorder_ms=args.disorder)
    data = write_events(config, args.data_dir)
    workload = Workload(data, files_per_batch=args.files_per_batch, lag_ms=lag)
    spark = spark_session()
    from benchmarks.spark_sliding_sum import redis_url

    redis = redis_url(args.redis_url) if DISTRIBUTED in args.modes else nullcontext("")
    with redis as url:
        state = {DRIVER: "memory://", DISTRIBUTED: url}
        results = [run_query(QUERIES[name], spark, workload, args.modes, state, rounds) for name in args.queries]
    spark.stop()
    summary = (f"Nexmark, {events:,} events ({config.files} files of {args.events_per_file:,}, {args.files_per_batch} "
               f"per batch), {args.rate:,} events/s of event time, disorder {args.disorder} ms, lag {lag} ms, "
               f"local[2]; events/s per core, median (min-max) of {rounds} rounds after a Spark warm-up")
    print("\nchecks:")
    for result in results:
        for line in result.checks + result.failures:
            print(f"  {line}")
        for gap in result.query.gaps:
            print(f"  {result.query.name} works around: {gap}")
    print(f"\n{summary}\n\n{table(results, events, args.modes)}")
    if args.chart is not None:
        chart(results, args.modes, args.chart, f"Nexmark, {events:,} events, local[2]: squall over Spark")
    failed = [r.query.name for r in results if not r.ok]
    print(f"\n{'FAILED checks: ' + ' '.join(failed) if failed else 'every check passed'}")
    return 1 if failed else 0
