"""squall's answer to :class:`Case` jobs: ``WindowedAggregateBolt`` sums and counts with ``with_spark_semantics()``.

Many cases run in one topology (each its own spouts and bolts, so each its
own watermark), read from the same files as Spark's queries, one file per batch
and input. :class:`SquallRuns` runs it with the ``availableNow`` trigger, once
or more (a restart), and gives each case's windows. Append mode is the default trigger; update mode is
the documented recipe: ``Repeatedly(AfterCount(1))``, ``ACCUMULATING``, and the
``"fire_if_non_empty"`` on-time behavior.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.spark_semantics.spark_side import Windows
from tests.spark_semantics.streams import FIELDS, SCHEMA, Case


def build_topology(cases: list[Case], root: Path, mode: str = "append") -> Any:
    """One topology holding every case: spouts ``<case>i<n>``, bolts ``<case>sum`` and ``<case>cnt``."""
    from squall import Duration, Fields, FileSpout, TopologyBuilder, WindowedAggregateBolt
    from windowing import aggregators
    from windowing.accumulation import AccumulationMode
    from windowing.triggers import AfterCount, Repeatedly

    builder = TopologyBuilder()
    for case in cases:
        spouts = []
        for number in range(len(case.inputs)):
            sid = f"{case.name}i{number}"
            builder.set_spout(sid, FileSpout(root / case.name / f"in{number}", "parquet", FIELDS, schema=SCHEMA,
                                             max_files_per_trigger=1))
            spouts.append(sid)
        for suffix, aggregator in (("sum", aggregators.sum("v")), ("cnt", aggregators.count())):
            bolt = (WindowedAggregateBolt(aggregator, key_fields=("key",)).with_windows(assigner_of(case))
                    .with_timestamp_field("ts").with_lag(Duration.milliseconds(case.delay_ms))
                    .with_spark_semantics(case.policy))
            if mode == "update":  # Spark's update mode: each batch emits the windows it changed, accumulated
                bolt = (bolt.with_trigger(Repeatedly(AfterCount(1))).with_accumulation_mode(
                    AccumulationMode.ACCUMULATING).with_on_time_behavior("fire_if_non_empty"))
            declarer = builder.set_bolt(f"{case.name}{suffix}", bolt, parallelism=case.parallelism)
            for sid in spouts:
                declarer.fields_grouping(sid, Fields("key"))
    return builder.create_topology()


def assigner_of(case: Case) -> Any:
    """The case's window as a squall assigner (Spark's ``window`` or ``session_window``)."""
    from windowing import Duration
    from windowing.assigners import FixedWindows, Sessions, SlidingWindows

    size, offset = Duration.milliseconds(case.size_ms), Duration.milliseconds(case.offset_ms)
    if case.kind == "session":
        return Sessions(size)
    if case.kind == "sliding":
        return SlidingWindows(size, Duration.milliseconds(case.slide_ms), offset)
    return FixedWindows(size, offset)


def windows_of(outputs: list[Any], cases: list[Case], mode: str = "append") -> dict[str, Windows]:
    """Each case's windows from a run's outputs; in append mode, AssertionError when a window is emitted twice."""
    values: dict[str, dict[tuple[str, int, int], list[int]]] = {}
    for out in outputs:
        if out.stream == "default":
            key, start, end, value = out.values[:4]
            values.setdefault(out.component, {}).setdefault((key, int(start), int(end)), []).append(int(value))
    result = {}
    for case in cases:
        sums, counts = values.get(f"{case.name}sum", {}), values.get(f"{case.name}cnt", {})
        if set(sums) != set(counts) or any(len(sums[w]) != len(counts[w]) for w in sums):
            raise AssertionError(f"{case.name}: the sum and count bolts emitted different panes")
        if mode == "append" and any(len(v) > 1 for v in sums.values()):
            raise AssertionError(f"{case.name}: squall emitted a window twice: {sums}")
        result[case.name] = {w: tuple(zip(sorted(sums[w]), sorted(counts[w]), strict=True)) for w in sums}
    return result


class SquallRuns:
    """One topology of ``cases``, submitted with ``availableNow`` as often as :meth:`run` is called.

    Each submit resumes from the checkpoint and the store (a restart). Outputs
    are kept by run and batch key, as a sink must keep them (a replayed batch
    replaces its first outputs; each run's shutdown flush has its own).
    """

    def __init__(self, spark: Any, cases: list[Case], root: Path, tag: str, placement: str = "driver",
                 state: str = "memory://", mode: str = "append") -> None:
        from squall import SparkRunner
        from topologies.runner import is_connect

        self.cases, self.tag, self.mode = cases, tag, mode
        self.remote = is_connect(spark)  # foreachBatch runs in the server's process: outputs come from the handles
        self.kept: dict[tuple[int, Any], list[Any]] = {}
        self.runs = 0
        self._fail_at: int | None = None
        self.failed: list[int] = []
        self.runner = SparkRunner(spark, mode=placement, state=state, checkpoint_location=root / "squall-ck" / tag,
                                  outputs_in_memory=None, on_output=None if self.remote else self._on_output)
        self.topology = build_topology(cases, root, mode)
        self.handles: list[Any] = []

    def _on_output(self, key: Any, outputs: list[Any]) -> None:
        if key == self._fail_at and not self.failed:
            self.failed.append(key)
            msg = f"the sink fails batch {key} once"
            raise RuntimeError(msg)
        self.kept[self.runs, key] = list(outputs)

    def run(self, fail_at: int | None = None) -> None:
        """Submit and wait for the end.

        With ``fail_at`` the sink fails that batch once, and the topology is
        submitted again: Spark runs the failed batch again.
        """
        self._fail_at, self.failed = fail_at, []
        for attempt in range(2):
            handle = self.runner.submit(f"diff-{self.tag}", self.topology, available_now=True)
            self.handles.append(handle)
            try:
                ended = handle.await_termination(1800)
            except Exception as failed:
                if fail_at is None or attempt:
                    raise
                try:
                    handle.stop()
                except Exception as again:  # stop() raises the query's failure again: the sink's, expected
                    if again is not failed:
                        raise
                continue
            handle.stop()
            if not ended:
                raise AssertionError(f"squall's run {self.tag} did not end within 1800 s")
            break
        if fail_at is not None and not self.failed:
            raise AssertionError(f"run {self.tag} never reached batch {fail_at}")
        self.runs += 1

    def windows(self) -> dict[str, Windows]:
        """Each case's windows over every run so far."""
        if self.remote:
            outputs = [o for handle in self.handles for o in handle.outputs()]
        else:
            order = sorted(self.kept, key=lambda k: (k[0], k[1] == "final", k[1] if k[1] != "final" else 0))
            outputs = [o for k in order for o in self.kept[k]]
        return windows_of(outputs, self.cases, self.mode)
