"""Storm's bolt API beyond windows, run by both placements with no Spark (distributed stages run in-process).

Each grouping is checked against what it means (the expected task is worked
out here from the tuple's values, not by squall's routing), ``emit``'s task ids
against the task that received the tuple, and distributed mode against driver
mode, with every task rebuilt from the store at every batch.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from tests.storm_api.topology import FIELDS, conf, rows, storm_api
from topologies.engine import BatchClock, batch_loop


def batches() -> list[list[list]]:
    return [[[r[f] for f in FIELDS] for r in file] for file in rows()]


def clock():
    ticks = iter(range(1_000_000, 10**12, 1_000))
    return lambda: next(ticks)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """The topology's outputs in driver mode (every placement gives the same: tests/cluster/test_every_placement.py)."""
    tmp = tmp_path_factory.mktemp("storm_api")
    executor = batch_loop(storm_api(tmp / "unused"), BatchClock(tmp / "d", clock()), conf=conf())
    for batch_id, batch in enumerate(batches()):
        executor.run(batch_id, {"events": batch})
    executor.flush()
    return executor.log.all()


def by(outputs, component, stream="default"):
    return [o for o in outputs if o.component == component and o.stream == stream]


def test_emit_returns_the_task_ids_the_tuple_reached(outputs):
    out = outputs
    sent = {o.values[0]: o.values[1] for o in by(out, "split", "sent")}
    got = {o.values[0]: o.values[1] for o in by(out, "count", "got")}
    rows = [r for b in batches() for r in b]
    assert sorted(sent) == sorted(got) == [r[3] for r in rows]
    assert all(sent[m] == [got[m]] for m in sent)


def test_task_ids_are_storms_components_sorted_tasks_from_one(outputs):
    # Components sorted: count(3) custom(3) events(1) none(2) sink(2) split(2): count's ids are 1, 2, 3.
    got = by(outputs, "count", "got")
    assert {o.values[1] for o in got} <= {1, 2, 3}
    assert all(o.values[1] == o.task + 1 for o in got)


def test_partial_key_grouping_sends_a_key_to_at_most_two_tasks_and_balances(outputs):
    tasks = defaultdict(set)
    for o in by(outputs, "count", "got"):
        tasks[o.values[0]].add(o.values[1])
    keys = {r[3]: r[0] for b in batches() for r in b}
    per_key = defaultdict(set)
    for msgid, task in ((m, t) for m, ts in tasks.items() for t in ts):
        per_key[keys[msgid]].add(task)
    assert all(1 <= len(ts) <= 2 for ts in per_key.values())
    assert any(len(ts) == 2 for ts in per_key.values())  # a hot key was split
    load = Counter(t for ts in tasks.values() for t in ts)
    assert max(load.values()) - min(load.values()) <= len(keys) // 3


def test_direct_emits_reach_the_named_task_only(outputs):
    got = by(outputs, "sink")
    assert sorted(o.values[0] for o in got) == [r[3] for b in batches() for r in b]
    assert all(o.values[2] == o.values[1] % 2 == o.task for o in got)


def test_a_custom_grouping_chooses_the_task(outputs):
    got = by(outputs, "custom")
    assert sorted(o.values[0] for o in got) == [r[3] for b in batches() for r in b]
    assert all(o.values[2] == o.values[1] % 3 for o in got)


def test_none_and_local_or_shuffle_take_turns_as_shuffle_does(outputs):
    got = by(outputs, "none")
    assert Counter(o.values[2] for o in got) == Counter({0: 30, 1: 30})


def test_the_context_names_sources_targets_and_fields(outputs):
    facts = by(outputs, "count", "facts")
    assert sorted(o.values[0] for o in facts) == [1, 2, 3]
    sources, targets, fields = facts[0].values[1]
    assert sources == [["split", "default"]]
    assert targets == ["to"]  # the streams someone subscribes to
    assert fields == ["msgid", "tasks"]


def test_task_ids_read_after_their_batch_are_the_ones_of_that_batch(tmp_path):
    from topologies.engine.routing import RoutingTable, TaskRoutes

    routes = TaskRoutes(RoutingTable.of(storm_api(tmp_path)), "events", 0)
    routes.begin({})
    first = [routes.targets("default", ["k1", 0, 3, m]) for m in range(4)]
    routes.begin({("events", 0, "default", "none"): 1})  # the next batch, its shuffle one turn on
    later = routes.targets("default", ["k1", 0, 3, 9])
    # Ids: count 1-3, custom 4-6, events 7, none 8-9, sink 10-11, split 12-13. Split's and none's shuffles take
    # turns 0, 1, 0, 1; custom sends value 3 to its task 3 % 3 = 0. In the next batch split starts again from its
    # counter (absent: 0) and none from the 1 given.
    assert [list(ids) for ids in first] == [[12, 4, 8], [13, 4, 9], [12, 4, 8], [13, 4, 9]]
    assert later == [12, 4, 9] and len(later) == 3 and repr(later) == "[12, 4, 9]"
