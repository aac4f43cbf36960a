"""Bad tuples fail the batch with the TupleError, raised from await_termination; nothing is dropped silently."""

import pytest

from bolts import TupleError
from tests.topologies.helpers import FIELDS, Record, write_batches
from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import FileSpout
from windowing import Count

pytestmark = pytest.mark.spark


@pytest.mark.parametrize(
    ("rows", "schema", "message"),
    [
        ([{"key": "a", "value": 1}], "key STRING, ts BIGINT, value BIGINT",
         r"must be an int of epoch milliseconds or a datetime; got None"),
        ([{"key": "a", "ts": "soon", "value": 1}], "key STRING, ts STRING, value BIGINT",
         r"must be an int of epoch milliseconds or a datetime; got 'soon' \(str\)"),
    ],
)
def test_bad_timestamps_fail_the_query_with_the_tuple_error(spark, tmp_path, rows, schema, message):
    write_batches(tmp_path / "in", [rows])
    b = TopologyBuilder()
    b.set_spout("events", FileSpout(tmp_path / "in", "json", FIELDS, schema=schema))
    b.set_bolt("w", Record().with_tumbling_window(Count(2)).with_timestamp_field("ts")).shuffle_grouping("events")
    handle = SparkRunner(spark, checkpoint_location=tmp_path / "ck").submit("bad", b.create_topology(), True)
    with pytest.raises(TupleError, match=message):
        handle.await_termination(120)
    assert handle.outputs() == []
