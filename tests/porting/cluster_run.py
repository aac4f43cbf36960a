"""Runs a ported topology in distributed mode on a cluster, in a SparkSession of its own; prints its outputs as JSON.

Usage: ``python -m tests.porting.cluster_run '<json>'`` with keys ``master`` (``local-cluster[2,1,1024]``: two
executor processes), ``topology`` (``word_count``, the one port run here), ``work_dir`` (the port's working
directory: its spouts' files, its checkpoint), ``name`` (the topology's name, its ``args[0]``) and ``state`` (a
Redis URL). A second SparkSession cannot be made in the test process, whose shared session is ``local[2]``: see
tests/cluster/equivalence_run.py, whose pattern this is. Prints one JSON line: the outputs as
``[component, task, stream, values]`` in order.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

PORTS = ("word_count",)


def main() -> None:
    args = json.loads(sys.argv[1])
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.topologies.distributed_run import session
    from tests.topologies.helpers import counting_clock
    from topologies.sinks.records import to_json

    if args["topology"] not in PORTS:
        msg = f"cluster_run: `topology` must be one of {', '.join(PORTS)}; got {args['topology']!r}"
        raise SystemExit(msg)
    from tests.porting.word_count_topology import WordCountTopology

    # Without delay scheduling a stage's tasks go to whichever executor is free (see equivalence_run.py).
    spark = session(args["master"], {"spark.locality.wait": "0"})
    handle = WordCountTopology.main(spark, Path(args["work_dir"]), counting_clock(), [args["name"]],
                                   mode="distributed", state=args["state"])
    if not handle.await_termination(600):
        msg = f"{args['topology']} did not end within 600 s"
        raise SystemExit(msg)
    print(json.dumps([[o.component, o.task, o.stream, to_json(o.values)] for o in handle.outputs()]))
    spark.stop()


if __name__ == "__main__":
    main()
