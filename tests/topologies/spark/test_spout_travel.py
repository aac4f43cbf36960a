"""A spout travels to wherever the bolts run (distributed mode, Spark Connect), or is refused at submit, named.

``DataFrameSpout`` leaves its DataFrame behind when it travels: the query was
built from it at submit (that it runs in distributed mode under
``local-cluster`` and under Connect is the ``storm_kinds`` case of
tests/cluster/test_every_placement.py).
"""

from __future__ import annotations

import threading

import pytest
from pyspark import cloudpickle

from bolts import BaseBolt, Fields
from tests.topologies.helpers import FIELDS, SCHEMA
from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import DataFrameSpout, FileSpout


class Echo(BaseBolt):
    def execute(self, input):
        self.collector.emit([input["value"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))


class LockedSpout(FileSpout):
    """A file spout that holds a lock: it cannot be pickled to another process."""

    def __init__(self, path):
        super().__init__(path, "json", FIELDS, schema=SCHEMA)
        self.lock = threading.Lock()


def test_a_spout_that_cannot_travel_is_refused_at_submit_naming_it(spark, redis_url, tmp_path):
    b = TopologyBuilder()
    b.set_spout("locked", LockedSpout(str(tmp_path / "in")))
    b.set_bolt("echo", Echo()).shuffle_grouping("locked")
    runner = SparkRunner(spark, mode="distributed", state=redis_url, checkpoint_location=tmp_path / "ck")
    with pytest.raises(TypeError, match=r"submit: spout 'locked' \(LockedSpout\) cannot travel .* cannot be "
                                        r"pickled: TypeError: cannot pickle '_thread.lock' object"):
        runner.submit("locked", b.create_topology(), available_now=True)
    assert not spark.streams.active  # nothing started


def test_a_dataframe_spout_travels_without_its_dataframe(spark, tmp_path):
    (tmp_path / "in").mkdir()
    df = spark.readStream.schema(SCHEMA).json(str(tmp_path / "in"))
    spout = DataFrameSpout(df, FIELDS)
    copy = cloudpickle.loads(cloudpickle.dumps(spout))
    assert copy.fields == spout.fields and copy.stream == spout.stream
    assert spout.dataframe(spark) is spout.df  # the one that was made here still has it
    with pytest.raises(RuntimeError, match=r"this copy was sent to another process and left its DataFrame behind"):
        copy.dataframe(spark)
