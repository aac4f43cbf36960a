"""Marks: the status rows a task sends the tasks reading it when a batch's layers run in one Spark job.

A task of a bolt whose upstream bolts ran in the same job takes the lowest
watermark of their tasks from the marks it was sent, as the batch loop would
have told it had it waited for them (:func:`lowest_watermark`).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bolts import BaseBolt
from topologies.engine.figures import TaskStatus, lowest_watermark
from topologies.engine.placements.chunks import MARK_ORDER, Chunks, marked_watermark, marks_apart
from topologies.engine.stage import StageSpec


def spec(watermark_from: dict[str, int]) -> StageSpec:
    return StageSpec(topology="t", generation="g", component="down", bolt=BaseBolt(), parallelism=1, inputs=(),
                     conf={}, state_url="memory://", batch_id=3, now_ms=0, watermark=None,
                     watermark_from=watermark_from)


def marks(statuses: dict[tuple[str, int], int | None], copies: int = 1) -> Chunks:
    chunks = Chunks()
    for _ in range(copies):
        for (bolt, task), watermark in statuses.items():
            chunks.add("down", 0, bolt, task, "", (MARK_ORDER, task, 0, 0),
                       TaskStatus(task, watermark, 0, 0, 0, 0, 0).pack())
    return chunks


watermarks = st.one_of(st.none(), st.integers(-(2**62), 2**62))


@given(st.lists(watermarks, min_size=1, max_size=4), st.lists(watermarks, min_size=1, max_size=3),
       st.integers(1, 2))
def test_the_marked_watermark_is_the_lowest_of_every_upstream_task(a, b, copies):
    statuses = {("a", i): w for i, w in enumerate(a)} | {("b", i): w for i, w in enumerate(b)}
    got = marked_watermark(spec({"a": len(a), "b": len(b)}), marks(statuses, copies).table())
    assert got == lowest_watermark([*a, *b])


def test_a_missing_mark_names_the_bolt_and_its_tasks():
    with pytest.raises(RuntimeError, match=r"bolt 'down': no mark from the upstream tasks \[\('a', 1\), \('b', 0\)\]"):
        marked_watermark(spec({"a": 2, "b": 1}), marks({("a", 0): 5}).table())


def test_a_tasks_marks_are_taken_apart_from_its_chunks():
    chunks = marks({("a", 0): 5})
    chunks.add("down", 0, "a", 0, "", (1, 0, 0, 0), b"tuples")
    rows, found = marks_apart(chunks.table())
    assert rows.column("payload").to_pylist() == [b"tuples"]
    assert found.column("source").to_pylist() == ["a"] and found.column("o1").to_pylist() == [MARK_ORDER]
