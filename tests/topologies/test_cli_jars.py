"""`squall run --jars`, and how the CLI finds Spark's Kafka connector for a topology with a KafkaSpout.

The run itself, against a real broker, is tests/kafka/test_cli_kafka.py.
"""

import argparse

import pytest

from bolts import BaseBolt, Fields
from topologies import TopologyBuilder, cli
from topologies.spouts import FileSpout, KafkaSpout


class Echo(BaseBolt):
    def execute(self, input):
        self.collector.emit([input["value"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))


def topology(spout):
    builder = TopologyBuilder()
    builder.set_spout("in", spout)
    builder.set_bolt("echo", Echo()).shuffle_grouping("in")
    return builder.create_topology()


def test_jars_are_parsed_into_a_tuple():
    args = cli.parser().parse_args(["run", "t.py", "--jars", "a.jar, /x/b.jar,"])
    assert args.jars == ("a.jar", "/x/b.jar")
    assert cli.parser().parse_args(["run", "t.py"]).jars == ()
    with pytest.raises(argparse.ArgumentTypeError, match="--jars: expected comma-separated jar paths"):
        cli.parse_jars(" , ")


def test_a_kafka_spout_is_recognised():
    assert cli.uses_kafka(topology(KafkaSpout("t", "127.0.0.1:9092", value_format="string")))
    assert not cli.uses_kafka(topology(FileSpout("/data", format="json", fields=("value",),
                                                 schema="value BIGINT")))


def test_missing_connector_jars_say_how_to_get_them(monkeypatch, tmp_path):
    monkeypatch.setattr(cli, "has_class", lambda spark, name: False)  # a session without the Kafka source
    monkeypatch.setenv("SQUALL_SPARK_KAFKA_HOME", str(tmp_path))  # which holds no jars
    with pytest.raises(SystemExit) as err:
        cli.add_kafka_connector(object(), "t.py")
    message = str(err.value)
    assert message.startswith("squall run: t.py reads Kafka (a KafkaSpout), but the session has no Kafka source")
    assert "scripts/install_services.sh" in message
    assert message.endswith("or name the connector's jars with --jars")


def test_a_session_with_the_kafka_source_gets_nothing_added(monkeypatch):
    monkeypatch.setattr(cli, "has_class", lambda spark, name: name == cli.KAFKA_SOURCE)
    assert cli.add_kafka_connector(object(), "t.py") == []
