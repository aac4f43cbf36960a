"""Metrics on Spark: a streaming query listener, and Ctrl-C on a driver

The in-process half: tests/topologies/test_metrics.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from topologies import SparkRunner
from topologies.examples import event_time_late
from topologies.metrics import BatchMetrics

ROOT = Path(__file__).resolve().parents[3]


def test_a_streaming_query_listener_sees_squalls_figures_for_every_batch(spark, tmp_path):
    seen: dict[int, tuple[dict, BatchMetrics | None]] = {}
    lock = threading.Lock()

    def on_progress(progress, metrics):
        with lock:
            seen[progress.batchId] = ({"numInputRows": progress.numInputRows, "name": progress.name}, metrics)

    runner = SparkRunner(spark, checkpoint_location=tmp_path)
    listener = runner.add_progress_listener("metrics-listener", on_progress)  # before submit: sees batch 0 too
    handle = runner.submit("metrics-listener", event_time_late.build_topology(), True)  # 6 files, one per batch
    try:
        assert handle.await_termination(180), "the run did not end within 180 s"
        deadline = time.monotonic() + 30  # the listener bus is asynchronous
        while len(seen) < len(handle.metrics_history()):
            assert time.monotonic() < deadline, f"after 30 s the listener had seen batches {sorted(seen)} only"
            time.sleep(0.2)
    finally:
        spark.streams.removeListener(listener)
    assert listener.errors == []
    history = handle.metrics_history()
    assert len(history) == 6 and sorted(seen) == [m.batch_id for m in history]
    for batch_id, (progress, metrics) in seen.items():
        assert progress["name"] == "metrics-listener"
        assert metrics is handle.metrics(batch_id) and metrics.batch_id == batch_id
        assert metrics.input_rows == progress["numInputRows"]
        assert metrics.bolts["window-sum"].tuples_in == progress["numInputRows"]
    assert sum(metrics.late_tuples for _, metrics in seen.values()) == 8
    assert handle.progress.last_batch is handle.metrics()
    # Spark's own observed metrics hold none of squall's figures: foreachBatch cannot add to them.
    assert not (handle.query.lastProgress or {}).get("observedMetrics")


def test_ctrl_c_stops_flushes_and_prints_one_summary_without_a_traceback(tmp_path, spark_process):
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    cmd = [sys.executable, "-m", "topologies.cli", "run", "topologies/examples/event_time_late.py",
           "--checkpoint", str(tmp_path / "ck"), "--trigger-interval", "500ms", "--progress-every", "0.5",
           "--master", "local[1]"]
    # stderr to a file: a pipe nobody reads while we wait could fill and block the run.
    err_file = (tmp_path / "stderr.txt").open("w")
    proc = spark_process.popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=err_file, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not any(" window-sum in " in line for line in lines):
            if proc.poll() is not None:
                break
            time.sleep(0.2)
        assert any(" window-sum in " in line for line in lines), "".join(lines) + (tmp_path / "stderr.txt").read_text()
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(300)
        except subprocess.TimeoutExpired:
            pytest.fail("no exit within 300 s of Ctrl-C:\n" + "".join(lines) + (tmp_path / "stderr.txt").read_text())
    finally:
        if proc.poll() is None:
            proc.kill()
        err_file.close()
    reader.join(10)
    err = (tmp_path / "stderr.txt").read_text()
    out = "".join(lines)
    assert code == 130, out + err
    assert "Traceback" not in out + err and "Py4J" not in err
    summaries = [line for line in lines if "stopped by Ctrl-C" in line]
    assert len(summaries) == 1 and "watermark end of time" in summaries[0]
    assert "9223372036854775807" not in out
    assert (tmp_path / "ck" / "output" / "event_time_late" / "final.jsonl").exists()  # the flush ran
