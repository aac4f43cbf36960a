"""A Spark timestamp column drives event-time windows

The in-process tests of timestamps: tests/bolts/test_timestamps.py.
"""

from __future__ import annotations

import copy

from tests.bolts.test_timestamps import ROWS, Values, as_datetime
from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import FileSpout
from topologies.testing import BoltHarness
from windowing import Duration


def test_a_spark_timestamp_column_drives_event_time_windows(spark, tmp_path):
    data = tmp_path / "in"
    data.mkdir()
    lines = [f'{{"ts": "{as_datetime(ms).isoformat()}", "v": {v}}}' for ms, v in ROWS]
    (data / "part-0.json").write_text("\n".join(lines) + "\n")
    bolt = Values().with_window(Duration.seconds(4), Duration.seconds(2)).with_timestamp_field("ts") \
        .with_lag(Duration(500))
    b = TopologyBuilder()
    b.set_spout("events", FileSpout(data, "json", ("ts", "v"), schema="ts TIMESTAMP, v BIGINT"))
    b.set_bolt("values", bolt).shuffle_grouping("events")
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck")
    handle = runner.submit("timestamps", b.create_topology(), available_now=True)
    assert handle.await_termination(300), "the run did not end within 300 s"
    got = [o.values for o in handle.outputs() if o.component == "values"]
    h = BoltHarness(copy.deepcopy(bolt), fields=("ts", "v"), watermark_per_batch=True)
    h.feed_batch([{"ts": ms, "v": v} for ms, v in ROWS])
    h.close()
    assert got == [v for _, v in h.emitted] and got
