"""A WindowedJoinBolt on Spark: two spouts on their own streams, joined per user and window, state in the store."""

from __future__ import annotations

import itertools

from bolts import Fields, WindowedJoinBolt
from tests.topologies.helpers import counting_clock, write_batches
from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import FileSpout
from windowing import Duration, FixedWindows

FIELDS = ("user", "ts", "what")
SCHEMA = "user STRING, ts BIGINT, what STRING"


def rows(kind: str, batches: int = 3) -> list[list[dict]]:
    """Per batch, events of two users every 700 ms of event time."""
    return [[{"user": f"u{i % 2}", "ts": b * 3_000 + i * 700, "what": f"{kind}{b}.{i}"} for i in range(4)]
            for b in range(batches)]


def test_an_inner_join_gives_every_pair_of_each_user_and_window_once(spark, tmp_path):
    clicks, views = rows("c"), rows("v")
    b = TopologyBuilder()
    b.set_spout("clicks", FileSpout(write_batches(tmp_path / "c", clicks), "json", FIELDS, schema=SCHEMA,
                                    max_files_per_trigger=1, stream="clicks"))
    b.set_spout("views", FileSpout(write_batches(tmp_path / "v", views), "json", FIELDS, schema=SCHEMA,
                                   max_files_per_trigger=1, stream="views"))
    join = (WindowedJoinBolt("clicks", "views", key_fields=("user",)).with_windows(FixedWindows(Duration.seconds(2)))
            .with_timestamp_field("ts").with_watermark_interval(Duration.milliseconds(300)))
    b.set_bolt("join", join, 2).fields_grouping("clicks", Fields("user"), "clicks") \
        .fields_grouping("views", Fields("user"), "views")
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck", clock=counting_clock())
    handle = runner.submit("join", b.create_topology(), available_now=True)
    assert handle.await_termination(120)

    got = {}
    for o in handle.outputs():
        key, start, _end, pairs, _ts, pane, retraction = o.values
        assert not retraction and pane.is_last
        assert (key, start) not in got  # one pane per user and window
        got[key, start] = sorted((left["what"], right["what"]) for left, right in pairs)
    expected = {}
    for c, v in itertools.product(itertools.chain(*clicks), itertools.chain(*views)):
        if c["user"] == v["user"] and c["ts"] // 2_000 == v["ts"] // 2_000:
            expected.setdefault((c["user"], c["ts"] // 2_000 * 2_000), []).append((c["what"], v["what"]))
    assert got == {k: sorted(v) for k, v in expected.items()}
