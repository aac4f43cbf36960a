"""q3 local item suggestion (an unwindowed join) and q8 new users (a 10 s window join) of persons and auctions.

Nexmark's SQL (``q3.sql``, ``q8.sql``)::

    q3: SELECT P.name, P.city, P.state, A.id FROM auction A INNER JOIN person P ON A.seller = P.id
        WHERE A.category = 10 AND P.state IN ('OR', 'ID', 'CA')
    q8: SELECT P.id, P.name, P.starttime FROM
          (SELECT id, name, window_start AS starttime, window_end AS endtime
           FROM TUMBLE(person, dateTime, 10 s) GROUP BY id, name, window_start, window_end) P
        JOIN (SELECT seller, window_start AS starttime, window_end AS endtime
              FROM TUMBLE(auction, dateTime, 10 s) GROUP BY seller, window_start, window_end) A
        ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime

q3 in squall is Beam's Query3 as a Storm user writes it: a ``BaseStatefulBolt``
fields-grouped on the person id (persons) and the seller (auctions), keeping
each person of the three states and the auctions waiting for their seller. Spark
runs a stream-stream inner join without watermarks (its state grows, as
squall's does). The check compares the bags of rows.

q8 in squall is a ``WindowedJoinBolt`` (inner, ``matched_only=True``: only the
windows where both sides met) per person and 10 s window; the answer is each
pane's person, name and window start. Spark runs
a stream-stream join on the person, the seller and equal windows, then
``dropDuplicatesWithinWatermark``; its answer is read with ``DISTINCT``, since
that drop keeps a row only until the watermark passes it, so with 15 s of
disorder a later auction of the same window repeats a match (12 of 280 at
100,000 events); squall's answer is kept as a bag, so a repeated row there is a
failed check. Spark's join emits a match as soon as both rows are in, so its
answer holds the windows still open at the end of input;
squall's join runs in its default mode, which fires every window at the end of
a bounded input (``with_spark_semantics()`` would keep the last ones in the
store, as Spark's aggregations do). With the default lag (at least the
disorder) no row is late in either, so both find every match.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchmarks.nexmark.query import Answer, NexmarkView, Query, ReadAnswer, copies, pane_rows, rows_of, run_to_end
from benchmarks.nexmark.views import Workload, events, view
from squall import (
    BaseStatefulBolt,
    Duration,
    Fields,
    FixedWindows,
    TopologyBuilder,
    WindowedJoinBolt,
)

if TYPE_CHECKING:
    from squall import Output, Topology

STATES = ("OR", "ID", "CA")
CATEGORY = 10
WINDOW = Duration.seconds(10)


class LocalItemSuggestion(BaseStatefulBolt):
    """q3: each auction of category 10 with its seller's name, city and state, for sellers in OR, ID or CA.

    State: ``person/<id>`` holds a person's ``[name, city, state]`` (``None``
    for a person of another state), ``waiting/<id>`` the auctions whose seller
    has not come yet. A person emits the auctions waiting for them; an auction
    whose seller is known emits at once.
    """

    def execute(self, input):
        if input.stream == "persons":
            self._person(input["id"], [input["name"], input["city"], input["state"]])
        elif input["category"] == CATEGORY:
            self._auction(input["id"], input["seller"])

    def _person(self, person, details):
        kept = details if details[2] in STATES else None
        self.state.put(f"person/{person}", kept)
        waiting = self.state.get(f"waiting/{person}")
        if waiting is not None:
            self.state.delete(f"waiting/{person}")
            for auction in waiting if kept is not None else ():
                self.collector.emit([*kept, auction])

    def _auction(self, auction, seller):
        key = f"person/{seller}"
        if key not in self.state:
            self.state.put(f"waiting/{seller}", [*self.state.get(f"waiting/{seller}", []), auction])
        elif (details := self.state.get(key)) is not None:
            self.collector.emit([*details, auction])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("name", "city", "state", "id"))


def _q3_topology(workload: Workload) -> Topology:
    builder = TopologyBuilder()
    builder.set_spout("persons", NexmarkView(workload, "person", ("id", "name", "city", "state"), "persons"))
    builder.set_spout("auctions", NexmarkView(workload, "auction", ("id", "seller", "category"), "auctions"))
    builder.set_bolt("query", LocalItemSuggestion(), workload.tasks) \
        .fields_grouping("persons", Fields("id"), stream_id="persons") \
        .fields_grouping("auctions", Fields("seller"), stream_id="auctions")
    return builder.create_topology()


def _q3_spark(spark, workload: Workload) -> ReadAnswer:
    from pyspark.sql import functions as F

    persons = (view(events(spark, workload), "person", ("id", "name", "city", "state"))
               .where(F.col("state").isin(*STATES)))
    auctions = (view(events(spark, workload), "auction", ("id AS auction", "seller", "category"))
                .where(F.col("category") == CATEGORY))
    table = run_to_end(auctions.join(persons, auctions.seller == persons.id).select("name", "city", "state", "auction"))
    return lambda: copies(rows_of(spark, table, ["name", "city", "state", "auction"]))


def _q8_topology(workload: Workload) -> Topology:
    builder = TopologyBuilder()
    builder.set_spout("persons", NexmarkView(workload, "person", ("id AS person", "name", "date_time"), "persons"))
    builder.set_spout("auctions", NexmarkView(workload, "auction", ("seller AS person", "date_time"), "auctions"))
    join = (WindowedJoinBolt("persons", "auctions", key_fields=("person",), how="inner", matched_only=True)
            .with_windows(FixedWindows(WINDOW)).with_timestamp_field("date_time").with_lag(Duration(workload.lag_ms)))
    builder.set_bolt("join", join, workload.tasks) \
        .fields_grouping("persons", Fields("person"), stream_id="persons") \
        .fields_grouping("auctions", Fields("person"), stream_id="auctions")
    return builder.create_topology()


def _q8_spark(spark, workload: Workload) -> ReadAnswer:
    from pyspark.sql import functions as F

    persons = (view(events(spark, workload), "person", ("id", "name", "date_time"))
               .withWatermark("date_time", workload.lag).withColumn("window", F.window("date_time", "10 seconds")))
    auctions = (view(events(spark, workload), "auction", ("seller", "date_time AS a_time"))
                .withWatermark("a_time", workload.lag).withColumn("a_window", F.window("a_time", "10 seconds")))
    joined = persons.join(auctions, (persons.id == auctions.seller) & (persons.window == auctions.a_window))
    table = run_to_end(joined.select("id", "name", "window").dropDuplicatesWithinWatermark(["id", "name", "window"]))
    # Nexmark's q8 joins one row per person and window: a match is one row. Spark's dropDuplicatesWithinWatermark
    # keeps a row only until the watermark passes it, so under disorder a later auction of that window repeats it.
    return lambda: copies(rows_of(spark, table, ["id", "name", "unix_millis(window.start)"], distinct=True))


def _q8_answer(outputs: Sequence[Output]) -> Answer:
    """One ``(id, name, window_start)`` per person and window where both sides met (the join's panes)."""
    return copies((person, name, start) for person, start, _, pairs, *_ in pane_rows(outputs, "join")
                  for name in sorted({row["name"] for row, _ in pairs}))


Q3 = Query("q3", "local item suggestion", _q3_topology, _q3_spark,
           lambda outputs: copies(tuple(v) for v in pane_rows(outputs, "query")),
           spark_form="streaming (stream-stream join)", compared="every row")
Q8 = Query("q8", "monitor new users", _q8_topology, _q8_spark, _q8_answer,
           spark_form="streaming (join on windows, then dropDuplicates)", compared="every window and person")
