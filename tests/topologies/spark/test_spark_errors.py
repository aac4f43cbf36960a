"""A failed batch fails the query with the bolt's own error, from await_termination and stop(); nothing is dropped.

Bad tuples raise their TupleError. A value a bolt emits that cannot travel
between tasks or be stored raises a TypeError naming the bolt, the task, the
stream and the value: at the ``emit`` in :class:`BoltHarness`, and on Spark
when the task commits.
"""

import re

import pytest

from bolts import TupleError
from tests.topologies.helpers import FIELDS, EmitsAverages, Record, write_batches
from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import FileSpout
from topologies.testing import BoltHarness
from windowing import Count

UNSENDABLE = (r"bolt 'averages' task \d emitted \['k\d*', Averages\{total=\d+\}\] on stream 'averages', which cannot "
              r"travel between tasks or be stored: cannot send Averages\{total=\d+\} \(Averages\) between tasks or "
              r"store it: values must be None, bool, int, float, str, bytes")


def test_the_harness_refuses_an_emitted_object_at_the_emit_with_the_message_spark_gives():
    harness = BoltHarness(EmitsAverages(), FIELDS, component="averages")
    with pytest.raises(TypeError, match=UNSENDABLE):
        harness.feed({"key": "k", "ts": 0, "value": 7})
    assert harness.emitted == []


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


def test_an_emitted_object_fails_the_query_naming_the_bolt_from_await_termination_and_stop(spark, tmp_path):
    write_batches(tmp_path / "in", [[{"key": "k", "ts": 0, "value": 7}]])
    b = TopologyBuilder()
    b.set_spout("events", FileSpout(tmp_path / "in", "json", FIELDS))
    b.set_bolt("averages", EmitsAverages(), parallelism=2).shuffle_grouping("events")
    handle = SparkRunner(spark, checkpoint_location=tmp_path / "ck").submit("objects", b.create_topology(), True)
    with pytest.raises(TypeError, match=UNSENDABLE) as waited:
        handle.await_termination(120)
    assert waited.value.__cause__ is None and waited.value.__suppress_context__, "one exception, not Spark's chain"
    with pytest.raises(TypeError, match=UNSENDABLE):
        handle.stop()
    assert handle.outputs() == []
    failure = str(handle.query.exception())
    assert re.search(r"squall: batch 0 failed: TypeError: bolt 'averages' task \d emitted", failure), failure


@pytest.mark.parametrize(("text", "cancelled"), [
    ("org.apache.spark.SparkException: Job 5 cancelled because Stage 3 was cancelled", True),
    ("[SPARK_JOB_CANCELLED] Job 12 cancelled part of cancelled job group 7", True),
    ("py4j.protocol.Py4JJavaError: java.lang.InterruptedException\n\tat java.base/...", True),
    ("Job aborted due to stage failure: Task 0 in stage 4.0 failed 1 times: org.apache.spark.api.python."
     "PythonException: worker crashed\n\tat org.apache.spark.InterruptibleIterator.hasNext(...)\n"
     "\tat org.apache.spark.util.UninterruptibleThread.run(...)", False),
    ("Connection reset by peer", False),
])
def test_only_spark_cancelling_or_interrupting_counts_as_the_stops_own_error(text, cancelled):
    """A real failure (its trace passes through InterruptibleIterator) is raised, even while a stop runs."""
    from pyspark.errors import PySparkException

    from topologies.failures import cancelled_by_stop

    assert cancelled_by_stop(PySparkException(message=text)) is cancelled
    assert not cancelled_by_stop(RuntimeError("Job 5 cancelled"))  # not Spark's: a bolt's own error
    wrapped = PySparkException(message="An error occurred while calling o81.collectToPython")
    wrapped.__cause__ = PySparkException(message=text)
    assert cancelled_by_stop(wrapped) is cancelled  # said by an error it was raised from
