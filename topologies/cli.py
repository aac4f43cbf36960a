"""``squall run path/to/topology.py``: run a topology on Spark from the command line, printing progress.

The module is loaded from its path and must define ``build_topology()`` (called
with no arguments) returning a :class:`~topologies.topology.Topology`, or a
module-level ``topology``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from topologies.runner import SparkRunner, TopologyHandle
from topologies.topology import Topology
from windowing import Duration

_UNITS = {"ms": Duration.milliseconds, "s": Duration.seconds, "m": Duration.minutes}


def parse_interval(text: str) -> Duration:
    """``"500ms"``, ``"2s"`` or ``"1m"`` as a Duration; ``argparse.ArgumentTypeError`` otherwise."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m)", text.strip())
    if not match or float(match.group(1)) <= 0:
        msg = f"--trigger-interval: expected a positive duration such as 500ms, 2s or 1m; got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    amount = float(match.group(1))
    return _UNITS[match.group(2)](int(amount) if amount.is_integer() else amount)


def load_topology(path: str) -> Topology:
    """The topology a module file defines (``build_topology()`` or ``topology``)."""
    file = Path(path)
    if not file.is_file():
        msg = f"squall run: no such file {path!r}"
        raise SystemExit(msg)
    spec = importlib.util.spec_from_file_location(f"squall_topology_{file.stem}", file)
    module: ModuleType = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    build = getattr(module, "build_topology", None)
    topology = build() if callable(build) else getattr(module, "topology", None)
    if not isinstance(topology, Topology):
        msg = (
            f"squall run: {path} must define build_topology() returning TopologyBuilder.create_topology(), "
            "or a module-level `topology`"
        )
        raise SystemExit(msg)
    return topology


def parser() -> argparse.ArgumentParser:
    """The command-line parser."""
    p = argparse.ArgumentParser(prog="squall", description="Storm-style topologies on Spark Structured Streaming")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a topology defined in a Python file")
    run.add_argument("path", help="a .py file defining build_topology() or `topology`")
    run.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    run.add_argument(
        "--mode", choices=("driver", "distributed"), default="driver",
        help="where bolt tasks run: the driver (default) or Spark executors (needs a redis:// or hbase:// --state)",
    )
    run.add_argument("--state", default="memory://", help="state backend URL (default memory://)")
    run.add_argument("--checkpoint", help="checkpoint location (default: a new temporary directory)")
    run.add_argument("--output", help="directory for the outputs, JSON lines per batch (default <checkpoint>/output)")
    run.add_argument("--trigger-interval", type=parse_interval, default=Duration.seconds(1), help="e.g. 500ms, 2s")
    run.add_argument("--available-now", action="store_true", help="bounded run: read what is there, flush, stop")
    run.add_argument("--name", help="query name (default: the file's name)")
    run.add_argument("--progress-every", type=float, default=2.0, help="seconds between progress lines")
    run.add_argument(
        "--print-outputs", action="store_true",
        help="print every output of this run as a JSON line at the end (read back from --output)",
    )
    return p


def watch(handle: TopologyHandle, every: float) -> None:
    """Print a progress line every ``every`` seconds until the query ends (Ctrl-C stops it with a flush)."""
    try:
        while not handle.await_termination(every):
            print(f"[{handle.name}] {handle.progress.line()}", flush=True)
    except KeyboardInterrupt:
        print(f"[{handle.name}] stopping: flushing the bolts", flush=True)
        handle.stop()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``squall`` command."""
    args = parser().parse_args(argv)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(args.master).appName("squall")
        .config("spark.ui.showConsoleProgress", "false").getOrCreate()
    )
    checkpoint = args.checkpoint or tempfile.mkdtemp(prefix="squall-ck-")
    output = args.output or str(Path(checkpoint) / "output")
    runner = SparkRunner(
        spark, mode=args.mode, state=args.state, checkpoint_location=checkpoint, trigger_interval=args.trigger_interval,
        output_dir=output,
    )
    name = args.name or re.sub(r"[^A-Za-z0-9_-]", "_", Path(args.path).stem)
    handle = runner.submit(name, load_topology(args.path), available_now=args.available_now)
    print(f"[{name}] running; checkpoint {checkpoint}", flush=True)
    watch(handle, args.progress_every)
    print(f"[{name}] done: {handle.progress.line()}", flush=True)
    print(f"[{name}] {handle.output_count} outputs written to {Path(output) / name}", flush=True)
    if args.print_outputs:  # read back from the files: the handle keeps only the latest outputs in memory
        for record in handle.executor.outputs.records():
            print(json.dumps({"component": record["component"], "stream": record["stream"],
                              "values": record["values"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
