"""The suite's queries, by name, and Flink's published per-core throughput for each.

``FLINK_PER_CORE``: events per second per core of Flink (1.13 onwards) from
nexmark's own results table: github.com/nexmark/nexmark, ``GUIDE_V1.md`` (the
V1 runner's guide the README links to), "Nexmark Benchmark Result" /
"Benchmark Results", column ``Throughput/Cores``; q6 is not in it (Flink
cannot run it), nor in this suite.

How that figure differs from this suite's, so it is shown beside squall's and
never divided into it:

- **The cluster.** 3 machines of 8 cores and 32 GB, 8 TaskManagers of one slot
  (parallelism 8), RocksDB state with incremental checkpoints every 3 minutes,
  exactly once, mini-batches of 2 s / 50,000 rows. Its "cores" are the CPU the
  job was measured to use (8.2 to 21.4 per query), not a count of slots;
  this suite divides by the 2 cores of ``local[2]`` whether they are busy or
  not, so a squall or Spark figure is a lower bound of its per-core rate.
- **The events.** 100,000,000 events made by nexmark's source inside the job
  (no file read, no decoding), at ``first-event.rate`` = ``TPS`` = 10,000,000
  events per second of event time: the whole run is about 10 s of event time.
  This suite reads 1,000,000 events from Parquet at nexmark's default
  generator rate (``firstEventRate`` 10,000 events/s), 100 s of event time: a thousand times
  sparser, so per event it opens and fires far more windows (q5's 10 s
  windows every 2 s, q7's and q12's 10 s windows) and closes far more
  sessions (q11), the part of those queries that costs most.
- **Warm-up.** Flink's runner runs a warm-up job (up to 120 s) before
  measuring; here Spark runs each query once before measuring, and squall's
  runs share that warm JVM with no warm-up of their own.
"""

from __future__ import annotations

from benchmarks.nexmark.bidders import Q11, Q12
from benchmarks.nexmark.highest_bid import Q7
from benchmarks.nexmark.hot_items import Q5
from benchmarks.nexmark.joins import Q3, Q8
from benchmarks.nexmark.query import Query
from benchmarks.nexmark.stateless import Q0, Q1, Q2
from benchmarks.nexmark.winning_bids import Q4

QUERIES: dict[str, Query] = {q.name: q for q in (Q0, Q1, Q2, Q3, Q4, Q5, Q7, Q8, Q11, Q12)}

FLINK_PER_CORE = {
    "q0": 155_020, "q1": 157_940, "q2": 175_210, "q3": 152_120, "q4": 34_330, "q5": 22_140, "q7": 12_330,
    "q8": 146_140, "q11": 39_700, "q12": 75_670,
}
