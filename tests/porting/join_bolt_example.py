# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/JoinBoltExample.java.
#
# The structure, class names and method order are the Java file's; the changes are spelling, except:
# - The two FeederSpouts (org.apache.storm.testing.FeederSpout, fed tuple by tuple right after the submit)
#   are replaced by FeederSpout below: a FileSpout over a directory of JSON-lines files, whose feed()
#   appends one record to the directory's first file. Each directory also holds a second, empty file:
#   with one file per micro-batch, the fed records are the first batch and the empty files a second one,
#   which the run's clock (main's `clock`) starts 10 s later, so the 10 s tumbling window fires as
#   Storm's window timer fires it 10 s after the topology starts.
# - A bounded run (available_now) reads what the files hold when it starts, so main feeds the spouts
#   before it submits the topology, not after.
# - main takes a SparkSession, a working directory and the run's clock instead of `String[] args`,
#   and returns the topology's handle; NimbusClient.isLocalOverride() becomes a check of Spark's master.
# - PrinterBolt (storm-starter's bolt/PrinterBolt.java) prints each tuple as Storm's does, and also emits
#   it: in squall what no bolt subscribes to is the topology's output, which the run is checked against.
"""storm-starter's ``JoinBoltExample``: an inner join of gender and age records on ``id``, in 10 s windows."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from bolts import BaseBolt, Fields, Tuple
from bolts.storm.join_bolt import JoinBolt
from topologies import SparkRunner, TopologyBuilder, TopologyHandle
from topologies.spouts import FileSpout
from windowing import Duration

MTIME = 1_700_000_000  # Spark's file source reads the oldest file first: the fed records, then the empty file


class FeederSpout(FileSpout):
    """Storm's ``FeederSpout`` as files: ``feed(values)`` appends one JSON record; read one file per micro-batch."""

    def __init__(self, fields: Fields, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.fed = directory / "part-00000.json"
        self.fed.write_text("", encoding="utf-8")
        (directory / "part-00001.json").write_text("", encoding="utf-8")
        os.utime(directory / "part-00001.json", (MTIME + 1, MTIME + 1))
        os.utime(self.fed, (MTIME, MTIME))
        super().__init__(directory, "json", fields, max_files_per_trigger=1)

    def feed(self, values: Sequence[Any]) -> None:
        """Append one record with the spout's fields."""
        with self.fed.open("a", encoding="utf-8") as out:
            out.write(json.dumps(dict(zip(self.fields, values, strict=True))) + "\n")
        os.utime(self.fed, (MTIME, MTIME))


class PrinterBolt(BaseBolt):
    """storm-starter's ``PrinterBolt``: prints every tuple (and emits it, so that it is the topology's output)."""

    def execute(self, input: Tuple) -> None:
        """Print the tuple."""
        print(input)
        self.collector.emit([input])

    def declare_output_fields(self, declarer: Any) -> None:
        """The printed tuple."""
        declarer.declare(Fields("tuple"))


class JoinBoltExample:
    """Joins genders and ages on ``id`` in 10 s tumbling windows and prints the joined records."""

    @staticmethod
    def main(spark: SparkSession, work_dir: Path, clock: Callable[[], int]) -> TopologyHandle:
        """Build, feed and submit the topology; returns its handle (await it, then read its outputs)."""
        if not spark.conf.get("spark.master", "").startswith("local"):
            msg = "This example runs on a local Spark master only (local[...])"
            raise RuntimeError(msg)
        gender_spout = FeederSpout(Fields("id", "gender"), work_dir / "genders")
        age_spout = FeederSpout(Fields("id", "age"), work_dir / "ages")

        builder = TopologyBuilder()
        builder.set_spout("genderSpout", gender_spout)
        builder.set_spout("ageSpout", age_spout)

        # inner join of 'age' and 'gender' records on 'id' field
        joiner = (JoinBolt("genderSpout", "id")
                  .join("ageSpout", "id", "genderSpout")
                  .select("genderSpout:id,ageSpout:id,gender,age")
                  .with_tumbling_window(Duration.seconds(10)))

        builder.set_bolt("joiner", joiner) \
            .fields_grouping("genderSpout", Fields("id")) \
            .fields_grouping("ageSpout", Fields("id"))

        builder.set_bolt("printer", PrinterBolt()).shuffle_grouping("joiner")

        conf: dict[str, Any] = {}
        JoinBoltExample.generate_gender_data(gender_spout)  # fed before the submit: see the header

        JoinBoltExample.generate_age_data(age_spout)

        runner = SparkRunner(spark, conf=conf, checkpoint_location=work_dir / "checkpoint", clock=clock)
        return runner.submit("join-example", builder.create_topology(), available_now=True)

    @staticmethod
    def generate_age_data(age_spout: FeederSpout) -> None:
        """Ages 29 down to 20 for ids 9 down to 0."""
        for i in range(9, -1, -1):
            age_spout.feed([i, i + 20])

    @staticmethod
    def generate_gender_data(gender_spout: FeederSpout) -> None:
        """Ids 0 to 9, male when even, female when odd."""
        for i in range(10):
            gender: str
            if i % 2 == 0:
                gender = "male"
            else:
                gender = "female"
            gender_spout.feed([i, gender])
