"""A shutdown flush killed and completed leaves nothing behind for later input.

An ``available_now`` run ends with a flush that sends the end of time through
every task. When the driver is killed inside it, the next submit of the same
name completes it; more files then arrive and a third submit processes them.
Those files' windows must fire as they do after a flush that was never
interrupted: the completed flush must not leave any task's watermark at the end
of time (which would make every later tuple late) nor write its outputs twice.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.cluster.cases import keyed_rows
from tests.faults.runs import KILLED, completed, write_input
from topologies.examples._run import MTIME_BASE

pytestmark = pytest.mark.faults

FIRST_FILES, MORE_FILES = 5, 2


def _more_input(data):
    """Files 5 and 6 of the same stream: later event times, read after the first five."""
    for n, rows in enumerate(keyed_rows(FIRST_FILES + MORE_FILES)[FIRST_FILES:], start=FIRST_FILES):
        path = data / f"part-{n:05d}.json"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        os.utime(path, (MTIME_BASE + n, MTIME_BASE + n))


def _two_submits(query, data, kill=None):
    if kill is not None:
        result = query.run(kill=kill)
        assert result.returncode == KILLED, f"not killed at {kill}: exit {result.returncode}\n{result.stderr[-3000:]}"
        assert query.killed_at() == kill
    completed(query.run())  # the first files, or the flush the killed process began
    first = query.outputs()
    _more_input(data)
    completed(query.run())
    return first, query.outputs() - first


@pytest.fixture(scope="module")
def baseline(tmp_path_factory, redis_url, fault_query):
    """The input, and the outputs of an uninterrupted flush and of the later files after it."""
    root = tmp_path_factory.mktemp("flush-baseline")
    base_data = write_input(root / "input")
    expected_first, expected_more = _two_submits(fault_query(base_data, root / "run", redis_url), base_data)
    more_windows = [line for line in expected_more.elements() if '"default"' in line]
    assert sum(expected_first.values()) > 150 and len(more_windows) > 20  # the later files fill real windows
    return base_data, expected_first, expected_more


@pytest.mark.parametrize("point", ["flush-begun", "flush-closing", "flush-written"])
def test_input_after_a_killed_and_completed_flush_is_processed_as_after_an_uninterrupted_one(tmp_path, redis_url,
                                                                                            baseline, point,
                                                                                            fault_query):
    base_data, expected_first, expected_more = baseline
    data = tmp_path / "input-killed"
    shutil.copytree(base_data, data)
    for path in data.glob("part-*.json"):  # the copy without the later files, with the same read order
        if int(path.stem.split("-")[1]) >= FIRST_FILES:
            path.unlink()
    query = fault_query(data, tmp_path / "killed", redis_url)
    first, more = _two_submits(query, data, kill={"point": point, "batch": None, "hit": 1})
    assert first == expected_first, f"the flush differs: lost {expected_first - first}, extra {first - expected_first}"
    assert more == expected_more, f"the later files differ: lost {expected_more - more}, extra {more - expected_more}"
