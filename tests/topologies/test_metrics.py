"""Per-batch figures: recorded per bolt in both modes, paired with Spark's progress by a listener, shown by the CLI."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import pytest

from tests.topologies.helpers import counting_clock
from topologies.cli import parser
from topologies.engine import BatchClock, BatchLoop, batch_loop
from topologies.engine.placements import chunks
from topologies.engine.placements.local_frames import LocalFrames
from topologies.examples import event_time_late
from topologies.metrics import END_OF_TIME, BatchMetrics, BoltMetrics, MetricsHistory, format_watermark
from topologies.runner import Progress

ROOT = Path(__file__).resolve().parents[2]


def readings(batch: int, n: int = 20, late: int = 0) -> list[list[object]]:
    """``n`` readings 250 ms apart from ``batch * 5 s``, plus ``late`` readings 30 s behind them."""
    base = batch * 5_000
    rows: list[list[object]] = [[f"s{i % 3}", base + i * 250, 1] for i in range(n)]
    rows += [["s0", max(0, base - 30_000), 100] for _ in range(late)]
    return rows


BATCHES = [readings(0), readings(1), readings(2, late=2), readings(3, late=1)]


def test_history_keeps_the_last_batches_and_a_replay_replaces_its_entry():
    history = MetricsHistory(keep=3)
    for b in range(5):
        history.record(BatchMetrics(batch_id=b, input_rows=b, time_ms=0, watermark=None))
    assert [m.batch_id for m in history] == [2, 3, 4]
    assert history.get(1) is None
    history.record(BatchMetrics(batch_id=3, input_rows=99, time_ms=0, watermark=None, replay=True))
    assert [m.batch_id for m in history] == [2, 4, 3]
    assert history.get(3).input_rows == 99 and history.get().batch_id == 3
    with pytest.raises(ValueError, match="`keep` must be a positive int"):
        MetricsHistory(keep=0)


def test_the_watermark_reads_as_utc_time_with_its_lag_and_end_of_time_by_name():
    assert format_watermark(1_795_403_702_125) == "2026-11-23T03:15:02.125Z"
    assert format_watermark(1_795_403_702_125, 1_795_403_706_325) == "2026-11-23T03:15:02.125Z (lag 4.2 s)"
    assert format_watermark(END_OF_TIME, 1_795_403_706_325) == "end of time"
    assert format_watermark(None) == "-"
    bolts = {"sum": BoltMetrics(tuples_in=40, tuples_out=3, windows_fired=3, state_bytes=1300, batch_ms=4.12)}
    progress = Progress(
        batches=2, last_batch_id=1, input_rows=40, rows_per_second=10.0, watermark=1_795_403_702_125,
        windows_fired=3, late_tuples=0, replays=0, wall_clock_ms=1_795_403_706_325,
        last_batch=BatchMetrics(batch_id=1, input_rows=40, time_ms=0, watermark=None, bolts=bolts),
    )
    assert progress.line().startswith("run: batches 2  rows 40  replays 0  windows fired 3  late tuples 0  "
                                      "watermark 2026-11-23T03:15:02.125Z (lag 4.2 s)")
    assert progress.line().endswith("| last batch 1: rows/s 10.0  sum in 40 out 3 fired 3 late 0 state 1.3 KB 4.1 ms")
    replayed = BatchMetrics(batch_id=1, input_rows=40, time_ms=0, watermark=None, bolts=bolts, replay=True)
    assert "| last batch 1 (replay): rows/s" in dataclasses.replace(progress, last_batch=replayed).line()
    assert progress.watermark_lag_ms == 4_200
    assert "9223372036854775807" not in Progress(1, 0, 1, 0.0, END_OF_TIME, 0, 0, 0, wall_clock_ms=0).line()


def run_driver(tmp_path, batches=BATCHES) -> BatchLoop:
    executor = batch_loop(event_time_late.build_topology(str(tmp_path)), BatchClock(tmp_path / "d", counting_clock()))
    for batch_id, rows in enumerate(batches):
        executor.run(batch_id, {"sensor": rows})
    return executor


def test_driver_mode_records_each_bolts_figures_per_batch(tmp_path):
    executor = run_driver(tmp_path)
    history = list(executor.metrics)
    assert [m.batch_id for m in history] == [0, 1, 2, 3]
    assert [m.input_rows for m in history] == [20, 20, 22, 21]
    assert [m.bolts["window-sum"].tuples_in for m in history] == [20, 20, 22, 21]
    assert [m.bolts["window-sum"].late_tuples for m in history] == [0, 0, 2, 1]
    assert [m.bolts["late-log"].tuples_in for m in history] == [0, 0, 2, 1]  # the late stream feeds it
    assert [m.bolts["late-log"].tuples_out for m in history] == [0, 0, 2, 1]
    assert sum(m.windows_fired for m in history) == executor.totals.windows_fired > 0
    assert sum(m.late_tuples for m in history) == executor.totals.late_tuples == 3
    outputs = len([o for o in executor.log.all() if o.component == "window-sum"])
    assert sum(m.bolts["window-sum"].tuples_out for m in history) == outputs + 3  # its outputs plus late tuples
    assert all(m.bolts["window-sum"].state_bytes > 0 and m.bolts["window-sum"].batch_ms > 0 for m in history)
    assert history[-1].watermark == executor.counters()[0]
    assert 15_000 - 2_000 < history[-1].watermark <= 15_000 + 19 * 250 - 2_000  # the last batch's readings, lag 2 s
    assert history[-1].bolts["window-sum"].watermark == history[-1].watermark


def test_a_replayed_batch_replaces_its_entry_with_what_the_replay_did(tmp_path):
    executor = run_driver(tmp_path)
    first, totals = executor.metrics.get(3), executor.figures()
    executor.run(3, {"sensor": BATCHES[3]})  # Spark runs the last batch id again
    again = executor.metrics.get(3)
    assert again.replay and not first.replay and len(executor.metrics) == 4
    for bid in ("window-sum", "late-log"):
        a, b = first.bolts[bid], again.bolts[bid]
        # Every task's store holds batch 3: the tasks re-send their committed emissions and figures without running.
        assert (a.tuples_in, a.tuples_out, a.windows_fired, a.late_tuples) == (
            b.tuples_in, b.tuples_out, b.windows_fired, b.late_tuples)
        assert b.state_bytes == 0
    assert again.watermark == first.watermark
    assert executor.figures() == {**totals, "replays": 1}  # the batch counts once


def test_a_batch_run_again_in_a_new_process_is_a_replay(tmp_path):
    from state_backends import open_backend

    store = f"memory://replays-{uuid.uuid4().hex[:8]}"  # named: a second executor finds the first one's commits
    first = batch_loop(event_time_late.build_topology(str(tmp_path)), BatchClock(tmp_path / "d", counting_clock()),
                       backend=open_backend(store))
    for batch_id, rows in enumerate(BATCHES):
        first.run(batch_id, {"sensor": rows})
    assert first.figures()["replays"] == 0 and not any(m.replay for m in first.metrics)
    again = batch_loop(event_time_late.build_topology(str(tmp_path)), BatchClock(tmp_path / "d", counting_clock()),
                       backend=open_backend(store))
    again.run(3, {"sensor": BATCHES[3]})  # the process died before Spark committed batch 3: Spark runs it again
    assert again.metrics.get(3).replay
    assert again.figures()["replays"] == 1 and again.figures()["batches"] == 1


class FailOnce(Exception):
    pass


@pytest.mark.parametrize("placement", ["driver", "distributed"])
def test_the_windows_of_a_failed_batch_count_once_when_it_runs_again(tmp_path, monkeypatch, placement):
    from state_backends import open_backend
    from topologies.engine import stored_task as stored

    def executor(name: str) -> BatchLoop:
        topology, clock = event_time_late.build_topology(str(tmp_path)), BatchClock(tmp_path / name, counting_clock())
        if placement == "driver":
            return batch_loop(topology, clock)
        return batch_loop(topology, clock, mode="distributed", backend=open_backend("memory://"),
                          name=f"{name}-{uuid.uuid4().hex[:8]}", state_url="memory://",
                          frames=LocalFrames(fresh_tasks=True))

    chunks.worker_backend("memory://")
    clean = executor("clean")
    for batch_id, rows in enumerate(BATCHES):
        clean.run(batch_id, {"sensor": rows})
    failing, original, failed = executor("failing"), stored.run_task, []

    def fail_in_batch_2(task, batch, now, *args, **kwargs):  # after the task ran: its windows fired
        original(task, batch, now, *args, **kwargs)
        if now == clean.metrics.get(2).time_ms and task.component == "late-log" and len(failed) < 2:
            failed.append(task.component)
            raise FailOnce("the bolt fails batch 2, twice")

    monkeypatch.setattr(stored, "run_task", fail_in_batch_2)
    for batch_id, rows in enumerate(BATCHES):
        if batch_id == 2:
            for _ in range(2):  # the second attempt, a replay, fails too: it counts only once one completes
                with pytest.raises(FailOnce):
                    failing.run(batch_id, {"sensor": rows})
        failing.run(batch_id, {"sensor": rows})  # batch 2: Spark runs it again
    assert failed == ["late-log", "late-log"]
    assert failing.metrics.get(2).replay and failing.figures()["replays"] == 1
    assert failing.figures()["windows_fired"] == clean.figures()["windows_fired"] > 0
    assert failing.figures()["late_tuples"] == clean.figures()["late_tuples"] == 3


def test_distributed_mode_records_the_same_figures_as_driver_mode(tmp_path, monkeypatch):
    from state_backends import open_backend

    driver = run_driver(tmp_path)
    chunks.worker_backend("memory://")
    distributed = batch_loop(event_time_late.build_topology(str(tmp_path)),
                             BatchClock(tmp_path / "x", counting_clock()), mode="distributed",
                             backend=open_backend("memory://"), name=f"metrics-{uuid.uuid4().hex[:8]}",
                             state_url="memory://", frames=LocalFrames(fresh_tasks=True))
    for batch_id, rows in enumerate(BATCHES):
        distributed.run(batch_id, {"sensor": rows})

    def figures(m: BatchMetrics):
        return m.input_rows, m.watermark, {
            bid: (b.tuples_in, b.tuples_out, b.windows_fired, b.late_tuples, b.state_bytes > 0, b.watermark)
            for bid, b in m.bolts.items()
        }

    assert [figures(m) for m in distributed.metrics] == [figures(m) for m in driver.metrics]


def test_run_takes_a_log_level_and_defaults_to_a_quiet_one():
    args = parser().parse_args(["run", "t.py"])
    assert args.log_level == "ERROR"
    assert parser().parse_args(["run", "t.py", "--log-level", "warn"]).log_level == "WARN"
    with pytest.raises(SystemExit):
        parser().parse_args(["run", "t.py", "--log-level", "LOUD"])
