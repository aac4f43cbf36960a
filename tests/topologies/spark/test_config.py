"""A Config on Spark: the user's keys reach every prepare, through the runner and through ``squall run``

The in-process half: tests/topologies/test_config.py.
"""

from __future__ import annotations

import json

from tests.bolts_for_tests import ConfEcho
from tests.topologies.test_config import write_file
from topologies import cli
from topologies.config import (
    Config,
)
from topologies.runner import SparkRunner


def test_a_configs_keys_reach_every_prepare_through_the_runner(spark, tmp_path):
    from topologies import TopologyBuilder
    from topologies.spouts import FileSpout

    path = write_file(tmp_path)  # for its input file
    builder = TopologyBuilder()
    builder.set_spout("in", FileSpout(str(path.parent / "in"), "json", ("value",), schema="value BIGINT"))
    builder.set_bolt("echo", ConfEcho(), parallelism=2).shuffle_grouping("in")
    conf = Config({"my.threshold": 10, "my.label": {"nested": [1, 2]}})
    conf.set_num_workers(3)
    runner = SparkRunner(spark, conf=conf, checkpoint_location=tmp_path / "ck")
    handle = runner.submit("conf-echo", builder.create_topology(), available_now=True)
    assert handle.await_termination(120)
    rows = sorted(o.values for o in handle.outputs())
    assert rows == [[v, 10, {"nested": [1, 2]}, 3] for v in (1, 2, 3)]


def test_squall_run_hands_the_files_conf_and_options_to_prepare(spark, tmp_path, capsys):
    path = write_file(tmp_path)
    assert cli.main(["run", str(path), "--available-now", "--checkpoint", str(tmp_path / "ck"),
                     "-c", "my.label=cli", "--print-outputs"]) == 0
    out, err = capsys.readouterr()
    assert "Storm setting(s) in conf have no effect on Spark: topology.workers (" in err
    values = sorted(json.loads(line)["values"] for line in out.splitlines() if line.startswith("{"))
    assert values == [[v, 10, "cli", 3] for v in (1, 2, 3)]
