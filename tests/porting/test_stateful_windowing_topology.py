"""storm-starter's StatefulWindowingTopology, ported (tests/porting/stateful_windowing_topology.py), run on Spark in
driver mode with its state on Redis, across a restart: a first run over 10 tuples, then a new SparkRunner on the same
checkpoint and the same Redis over 11 more.

Expected values, from the integers the spout's files hold (read back from the files): the count window of 5 sliding
by 3 fires after every 3rd tuple, over the last 5 tuples (fewer while it fills up); WindowSumBolt adds each window's
values to its sum, so after the k-th window the sum is the total, over windows 1..k, of the values they hold. The
restart changes nothing of that: the window, its count towards the next slide (10 is not a multiple of 3) and the
sum all go on, so the first run prints the sums after tuples 3, 6 and 9 and the second after 12, 15, 18 and 21.
"""

from __future__ import annotations

import itertools
import random
import uuid

from tests.porting.spout import RandomIntegerSpout, read_rows
from tests.porting.stateful_windowing_topology import StatefulWindowingTopology
from tests.topologies.helpers import counting_clock


def test_the_window_sums_go_on_from_the_redis_state_after_a_restart(spark, tmp_path, redis_url):
    name = f"stateful-windowing-{uuid.uuid4().hex[:6]}"
    rand = random.Random(4)
    RandomIntegerSpout.emit(tmp_path / "spout", [4, 6], rand)
    first = StatefulWindowingTopology.main(spark, tmp_path, counting_clock(), [name], state=redis_url)
    assert first.await_termination(300)

    RandomIntegerSpout.emit(tmp_path / "spout", [5, 6], rand)
    second = StatefulWindowingTopology.main(spark, tmp_path, counting_clock(200_000), [name], state=redis_url)
    assert second.await_termination(300)

    values = [row["value"] for rows in read_rows(tmp_path / "spout") for row in rows]
    windows = [sum(values[max(0, n - 5):n]) for n in range(3, len(values) + 1, 3)]
    sums = list(itertools.accumulate(windows))
    got = []
    for handle in (first, second):
        outputs = handle.outputs()
        assert {(o.component, o.stream) for o in outputs} == {("printer", "default")}
        got.append([o.values[0].values for o in outputs])
    assert got == [[(s,) for s in sums[:3]], [(s,) for s in sums[3:]]]
