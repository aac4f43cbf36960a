"""storm-starter's SlidingWindowTopology, ported (tests/porting/sliding_window_topology.py), run on Spark in driver
mode.

Expected values, from the integers the spout's files hold (read back from the files): the count window of 30 sliding
by 10 fires after every 10th tuple, over the last 30 tuples (fewer while it fills up), so the k-th sum is the sum of
values k*10-29 .. k*10; the tumbling window of 3 averages sums 1-3, 4-6, 7-9 with Java's int division (// here).
Count windows do not depend on time or on how the tuples are cut into batches.
"""

from __future__ import annotations

import random

from tests.porting.sliding_window_topology import SlidingWindowTopology
from tests.porting.spout import RandomIntegerSpout, read_rows
from tests.topologies.helpers import counting_clock


def test_the_printer_prints_the_average_of_every_three_sliding_sums(spark, tmp_path, capsys):
    RandomIntegerSpout.emit(tmp_path / "integer", [30, 30, 30], random.Random(1))

    handle = SlidingWindowTopology.main(spark, tmp_path, counting_clock(), ["sliding-window"])
    assert handle.await_termination(300)

    values = [row["value"] for rows in read_rows(tmp_path / "integer") for row in rows]
    sums = [sum(values[max(0, k * 10 - 30):k * 10]) for k in range(1, len(values) // 10 + 1)]
    averages = [sum(sums[i:i + 3]) // 3 for i in range(0, len(sums), 3)]
    assert len(averages) == 3

    outputs = handle.outputs()
    assert {(o.component, o.stream) for o in outputs} == {("printer", "default")}
    printed = [o.values[0] for o in outputs]
    assert [t.values for t in printed] == [(avg,) for avg in averages]
    assert {(t.source_component, t.stream) for t in printed} == {("tumblingavg", "default")}
    assert capsys.readouterr().out.count("Tuple(tumblingavg:default, {'avg': ") == 3
