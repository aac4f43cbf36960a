"""storm-starter's PersistentWindowingTopology, ported (tests/porting/persistent_windowing_topology.py), run on Spark
in driver mode with its window and state persisted in Redis (named the Storm way, by topology.state.provider and
its config), across a restart: a first run over four files, then a new SparkRunner on the same checkpoint and the
same Redis over four more.

Expected values, from the integers the spout's files hold (read back from the files). Processing time: the clocks
put batch b (file b) at T0 + 2 s * b, the second run's going on from the first's. The window of 10 s sliding by 2 s
fires at every batch from batch 1, as the batch starts, before its tuples; squall ends a window fired at t at
t - 1 ms (docs/windowing.md), so it holds the tuples that arrived from t - 10 s to t - 2 s: the batches b-5 .. b-1.
Each output is (global average, window average): the window's values' mean, and the mean over every window so far
of the values they held (a value counts once per window holding it), from sums and counts that the restart carries
over in the state, as it carries the window's tuples (batch 4's window still holds batches 0 to 3).
"""

from __future__ import annotations

import random
import uuid
from urllib.parse import urlsplit

from squall import open_backend
from tests.porting.persistent_windowing_topology import PersistentWindowingTopology
from tests.porting.spout import RandomIntegerSpout, read_rows
from tests.topologies.helpers import counting_clock

T0, STEP = 1_700_000_000_000, 2_000


def expected_averages(values_of_batch: list[list[int]]) -> list[tuple[float, float]]:
    averages, global_sum, global_count = [], 0, 0
    for b in range(1, len(values_of_batch)):
        window = [v for values in values_of_batch[max(0, b - 5):b] for v in values]
        global_sum, global_count = global_sum + sum(window), global_count + len(window)
        averages.append((global_sum / global_count, sum(window) / len(window)))
    return averages


def test_the_window_and_the_global_average_go_on_from_redis_after_a_restart(spark, tmp_path, redis_url):
    name = f"persistent-windowing-{uuid.uuid4().hex[:6]}"
    url = urlsplit(redis_url)
    jedis = {"host": url.hostname, "port": url.port, "database": int(url.path.strip("/") or 0)}
    rand = random.Random(6)
    RandomIntegerSpout.emit(tmp_path / "spout", [3, 2, 4, 3], rand)
    first = PersistentWindowingTopology.main(spark, tmp_path, counting_clock(T0, STEP), [name],
                                             jedis_pool_config=jedis)
    assert first.await_termination(300)

    RandomIntegerSpout.emit(tmp_path / "spout", [2, 3, 1, 2], rand)
    second = PersistentWindowingTopology.main(spark, tmp_path, counting_clock(T0 + 4 * STEP, STEP), [name],
                                              jedis_pool_config=jedis)
    assert second.await_termination(300)

    expected = expected_averages([[row["value"] for row in rows] for rows in read_rows(tmp_path / "spout")])
    got = []
    for handle in (first, second):
        outputs = handle.outputs()
        assert {(o.component, o.stream) for o in outputs} == {("printer", "default")}
        averages = [o.values[0] for o in outputs]
        assert all(type(a) is PersistentWindowingTopology.Averages for a in averages)
        got.append([(a.global_, a.window) for a in averages])
    assert got == [expected[:3], expected[3:]]
    with open_backend(redis_url) as redis:  # the store the provider's config names: the test's redis-server
        assert redis.namespace(f"{name}/avgbolt/0").committed_batch_id() == 7
