"""side_by_side, the test runners' way to run independent queries two at a time: order, width, restarts, bounds."""

from __future__ import annotations

import pytest

from tests.topologies.helpers import side_by_side


class Handle:
    """A query handle that records when it is awaited; ``ends`` is what await_termination answers."""

    def __init__(self, log: list[str], name: str, ends: bool = True) -> None:
        self.log, self.name, self.ends = log, name, ends

    def await_termination(self, timeout: float) -> bool:
        self.log.append(f"await {self.name}")
        return self.ends


def run(log: list[str], name: str, queries: int, ends: bool = True):
    for q in range(queries):
        log.append(f"submit {name}{q}")
        yield Handle(log, f"{name}{q}", ends)
    return name.upper()


def test_runs_go_two_at_a_time_in_order_and_a_restart_waits_for_its_first_query():
    log: list[str] = []
    got = side_by_side({"a": run(log, "a", 2), "b": run(log, "b", 1), "c": run(log, "c", 1)})
    assert got == {"a": "A", "b": "B", "c": "C"}
    assert log == ["submit a0", "submit b0", "await a0", "submit a1", "await b0", "submit c0",
                   "await a1", "await c0"]


def test_a_run_without_a_query_gives_its_result_alone_and_among_others():
    assert side_by_side({"x": run([], "x", 0)}) == {"x": "X"}
    assert side_by_side({"x": run([], "x", 0), "y": run([], "y", 1)}, width=1) == {"x": "X", "y": "Y"}


def test_a_query_that_does_not_end_stops_the_runner_naming_the_run():
    with pytest.raises(SystemExit, match="slow: a query did not end within 5 s"):
        side_by_side({"slow": run([], "s", 1, ends=False)}, timeout=5)
