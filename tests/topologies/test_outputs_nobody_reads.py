"""Nothing comes to the batch loop that no sink reads: an output stream nobody reads goes nowhere.

With ``outputs_in_memory=0`` and no other sink of the driver's (``output_dir``,
``on_output``, a ``KafkaSink``), a terminal stream's tuples are dropped where
the task emitted them: in distributed mode no output row leaves the executors,
only the tasks' status rows. A stream some sink reads still comes back whole.
"""

from __future__ import annotations

import itertools
import uuid

import pyarrow as pa
import pyarrow.compute as pc

from tests.cluster.cases import FIELDS, keyed_rows, mixed
from tests.topologies.helpers import loop_of
from topologies.engine.placements import chunks
from topologies.engine.placements.local_frames import LocalFrames


class CountingFrames(LocalFrames):
    """Keeps every table handed to the batch loop."""

    def __init__(self) -> None:
        super().__init__()
        self.received: list[pa.Table] = []

    def driver_rows(self, frame: pa.Table) -> pa.Table:
        rows = super().driver_rows(frame)
        self.received.append(rows)
        return rows


def run(tmp_path, **options):
    frames = CountingFrames()
    url = "memory://"
    loop = loop_of(mixed(tmp_path), itertools.count(1_000, 1_000), tmp_path / uuid.uuid4().hex, mode="distributed",
                   backend=chunks.worker_backend(url), name=f"drop-{uuid.uuid4().hex[:6]}", state_url=url,
                   frames=frames, **options)
    for batch_id, rows in enumerate(keyed_rows(3, 6)):
        loop.run(batch_id, {"events": [[r[f] for f in FIELDS] for r in rows]})
    loop.flush()
    out = sum(pc.sum(pc.equal(t.column("target"), chunks.OUT)).as_py() or 0 for t in frames.received)
    return loop, out


def test_outputs_no_sink_reads_stay_where_they_were_emitted(tmp_path):
    loop, out = run(tmp_path, outputs_in_memory=0)
    assert out == 0 and loop.log.all() == []
    assert loop.figures()["windows_fired"] > 0  # the tasks ran: their windows fired, their outputs went nowhere


def test_a_stream_a_sink_reads_comes_back_whole(tmp_path):
    seen = []
    _, out = run(tmp_path, outputs_in_memory=0, on_output=lambda key, records: seen.extend(records))
    reference, _ = run(tmp_path)
    assert out > 0 and seen == reference.log.all()
