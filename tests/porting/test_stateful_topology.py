"""storm-starter's StatefulTopology, ported (tests/porting/stateful_topology.py), run on Spark in driver mode with its
state on Redis, across a restart: a first run over two files, then a new SparkRunner on the same checkpoint and the
same Redis over two more files.

Expected values, from the integers the spout's files hold (read back from the files): "partialsum" emits the running
sum of the values, P_i = v_1 + ... + v_i, going on across the restart (its KeyValueState holds the sum), which the
printer prints; "total" sums the partial sums it gets through the two printer tasks, so its outputs rise by each P_i
once, in an order the printer tasks decide (compared as a multiset of increments), and end each run at the sum of
every P_i so far: the second run starts from the first run's total.
"""

from __future__ import annotations

import itertools
import random
import re
import uuid
from collections import Counter

from tests.porting.spout import RandomIntegerSpout, read_rows
from tests.porting.stateful_topology import StatefulTopology
from tests.topologies.helpers import counting_clock


def increments(start: int, totals: list[int]) -> Counter[int]:
    return Counter(b - a for a, b in itertools.pairwise([start, *totals]))


def test_the_sums_go_on_from_the_redis_state_after_a_restart(spark, tmp_path, redis_url, capsys):
    name = f"stateful-{uuid.uuid4().hex[:6]}"
    rand = random.Random(3)
    RandomIntegerSpout.emit(tmp_path / "spout", [6, 5], rand)
    first = StatefulTopology.main(spark, tmp_path, counting_clock(), [name], state=redis_url)
    assert first.await_termination(300)
    first_printed = capsys.readouterr().out

    RandomIntegerSpout.emit(tmp_path / "spout", [4, 7], rand)  # the spout emits more while the topology is down
    second = StatefulTopology.main(spark, tmp_path, counting_clock(200_000), [name], state=redis_url)
    assert second.await_termination(300)
    second_printed = capsys.readouterr().out

    values = [row["value"] for rows in read_rows(tmp_path / "spout") for row in rows]
    partial = list(itertools.accumulate(values))
    run1, run2 = partial[:11], partial[11:]
    for handle in (first, second):
        assert {(o.component, o.stream) for o in handle.outputs()} == {("total", "default")}
    totals1 = [o.values[0] for o in first.outputs()]
    totals2 = [o.values[0] for o in second.outputs()]
    assert increments(0, totals1) == Counter(run1)
    assert totals1[-1] == sum(run1)
    assert increments(sum(run1), totals2) == Counter(run2)  # the total goes on from the first run's
    assert totals2[-1] == sum(partial)

    def printed(out: str) -> Counter[int]:
        return Counter(int(v) for v in re.findall(r"Tuple\(partialsum:default, \{'value': (\d+)\}", out))

    assert printed(first_printed) == Counter(run1)
    assert printed(second_printed) == Counter(run2)  # the partial sum goes on too
