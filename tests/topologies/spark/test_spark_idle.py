"""Processing-time windows fire while no input arrives (the heartbeat source); event-time ones at the batch end."""

import time

from tests.topologies.helpers import FIELDS, SCHEMA, Record, write_batches
from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import FileSpout
from windowing import Duration


def test_windows_fire_on_time_with_idle_input(spark, tmp_path):
    write_batches(tmp_path / "in", [[{"key": "a", "ts": ts, "value": v} for v, ts in enumerate((0, 700, 1500, 2600))]])
    b = TopologyBuilder()
    b.set_spout("events", FileSpout(tmp_path / "in", "json", FIELDS, schema=SCHEMA))
    b.set_bolt("ptime", Record().with_tumbling_window(Duration.seconds(1))).shuffle_grouping("events")
    b.set_bolt("etime", Record().with_tumbling_window(Duration.seconds(1)).with_timestamp_field("ts")
               .with_watermark_interval(Duration.milliseconds(300))).shuffle_grouping("events")
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck", trigger_interval=Duration.milliseconds(200))
    handle = runner.submit("idle", b.create_topology())
    try:
        deadline = time.monotonic() + 90
        while not {"ptime", "etime"} <= (fired := {o.component for o in handle.outputs()}):
            assert time.monotonic() < deadline, f"after 90 s only {sorted(fired)} of ptime and etime have fired"
            assert handle.query.isActive, f"the query ended: {handle.query.exception()}"
            time.sleep(0.3)
    finally:
        handle.stop(flush=False)
    log = handle.loop.log.batches
    rows = {bid: counted[0] for bid, counted in handle.loop.totals.counted.items()}  # input rows per batch
    data_batch = min(bid for bid, n in rows.items() if n)
    fired = {c: [bid for bid, outs in log.items() if any(o.component == c for o in outs)] for c in ("ptime", "etime")}
    assert fired["ptime"] and fired["etime"], fired
    # Processing-time windows fire on time in the idle batches after the data.
    assert fired["ptime"][0] > data_batch and rows[fired["ptime"][0]] == 0, (fired, rows)
    # Event time: the watermark emitted at the end of the data batch (2600) completes three windows at once.
    assert fired["etime"][0] == data_batch, (fired, rows)
    etime = [o.values for o in handle.outputs() if o.component == "etime"]
    assert [v for o in etime for v in o[2]][:3] == [0, 1, 2]  # windows (-1000, 0], (0, 1000], (1000, 2000]
    ptime = [o.values for o in handle.outputs() if o.component == "ptime"]
    assert ptime[0][2] == [0, 1, 2, 3]
