"""storm-starter's LambdaTopology, ported (tests/porting/lambda_topology.py): a lambda spout of random UUIDs, bolt1
(Storm 2's setBolt(id, fn, fields...) without a parallelism) cutting each at its first '-', bolt2 printing the tuples.
It runs in driver mode on the shared local[2] session and in distributed mode, state on Redis, under
local-cluster[2,1,1024] (a subprocess, tests/porting/cluster_run.py).

The spout never ends, so each run goes on until it gave enough tuples, then is stopped. A probe on bolt1
(tests/porting/probe.py) re-emits what bolt1 emits as the run's outputs: each must be ``["Hello lambda:<the first
eight hex digits of a UUID>:so cool!", 999]``, all of them different (a UUID each). In driver mode bolt2 prints in
this process, so its printed tuples are checked too.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from tests.porting.probe import ProbedLambdaTopology
from tests.topologies.helpers import counting_clock

REPO = Path(__file__).resolve().parents[2]
GREETING = re.compile(r"^Hello lambda:[0-9a-f]{8}:so cool!$")
OUTPUTS = 25  # at the default 10 tuples a second: a few batches


def check_greetings(outputs: list[tuple[str, str, list]]) -> None:
    assert len(outputs) >= OUTPUTS
    assert {(component, stream) for component, stream, _ in outputs} == {("probe", "default")}
    assert all(GREETING.match(text) and tag == 999 for _, _, (text, tag) in outputs), outputs[:3]
    assert len({text for _, _, (text, _) in outputs}) == len(outputs)


def test_driver_mode_runs_the_lambdas_as_written(spark, tmp_path, capsys):
    handle = ProbedLambdaTopology.main(spark, tmp_path, counting_clock(), [])
    deadline = time.monotonic() + 300
    try:
        while handle.output_count < OUTPUTS:
            assert time.monotonic() < deadline, f"{handle.output_count} outputs of {OUTPUTS} after 300 s"
            assert handle.query.isActive, f"query ended at {handle.output_count} outputs: {handle.query.exception()}"
            time.sleep(0.3)
    finally:
        handle.stop()
    outputs = handle.outputs()
    check_greetings([(o.component, o.stream, o.values) for o in outputs])
    printed = [line for line in capsys.readouterr().out.splitlines() if "Hello lambda:" in line]
    assert len(printed) == len(outputs)  # bolt2 printed every tuple bolt1 emitted
    assert all("'intValue': 999" in line and "bolt1" in line for line in printed), printed[:2]
