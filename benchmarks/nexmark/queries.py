"""The suite's queries, by name, and Flink's published per-core throughput for each.

``FLINK_PER_CORE``: events per second per core of Flink (1.13 onwards) from
nexmark's own results table (github.com/nexmark/nexmark, ``GUIDE_V1.md``,
"Benchmark Results", column Throughput/Cores): 100,000,000 events generated at
10,000,000 events/s of event time, on 8 TaskManagers of one slot each, RocksDB
state, checkpoints every 3 minutes.
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
