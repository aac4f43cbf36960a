"""Random windowed-aggregation cases for the differential test against Spark: streams, windows, delays, batch splits.

A :class:`Case` is one job as a Spark user writes it: one or two input
streams of ``(key STRING, ts TIMESTAMP, v BIGINT)`` rows, split into
micro-batches (one Parquet file per batch and input, read with
``maxFilesPerTrigger`` 1), a window (tumbling, sliding or session), a
watermark delay and, with two inputs, Spark's multiple-watermark policy. The
rows are what makes the two engines' rules differ: disorder, rows exactly on
window edges and one millisecond before them, rows far behind the watermark,
batches with no row, and batches that move the watermark past windows that
later rows still reach.

:func:`random_case` draws one from a seed (the same seed gives the same case).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

BASE_MS = 1_700_000_000_000  # a multiple of every window size and slide drawn here
KEYS = ("k0", "k1", "k2")
SCHEMA = "key STRING, ts TIMESTAMP, v BIGINT"
FIELDS = ("key", "ts", "v")

Row = tuple[str, int, int]  # key, epoch ms, value


@dataclass(frozen=True)
class Case:
    """One job: its window, delay, policy, and each input's rows per batch."""

    seed: int
    kind: str  # "tumbling", "sliding" or "session"
    size_ms: int  # the window size (tumbling, sliding) or the session gap
    slide_ms: int  # the slide (sliding); the size otherwise
    offset_ms: int  # Spark's startTime (tumbling, sliding): below the slide
    delay_ms: int
    policy: str  # "min" or "max": Spark's spark.sql.streaming.multipleWatermarkPolicy
    parallelism: int  # the squall bolts' tasks (fields grouping on the key)
    inputs: tuple[tuple[tuple[Row, ...], ...], ...]  # per input, per batch, the rows

    @property
    def name(self) -> str:
        """A name usable as a component and query name."""
        return f"c{self.seed}"

    def describe(self) -> str:
        """The case in one line, for a failure message."""
        shape = {"tumbling": f"tumbling {self.size_ms} ms", "sliding": f"sliding {self.size_ms}/{self.slide_ms} ms",
                 "session": f"session gap {self.size_ms} ms"}[self.kind] + (
                     f" offset {self.offset_ms} ms" if self.offset_ms else "")
        batches = "/".join(str(len(b)) for b in self.inputs[0])
        return (f"seed {self.seed}: {shape}, delay {self.delay_ms} ms, {len(self.inputs)} input(s) policy "
                f"{self.policy}, parallelism {self.parallelism}, rows per batch {batches}")

    def write(self, root: Path, batches: range | None = None) -> list[Path]:
        """Write each input's batches (``batches``: their indices; all by default) as Parquet files, one per batch.

        Files are named and dated in batch order; returns the inputs' directories.
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        dirs = []
        for number, per_batch in enumerate(self.inputs):
            directory = root / self.name / f"in{number}"
            directory.mkdir(parents=True, exist_ok=True)
            for index, rows in enumerate(per_batch):
                if batches is not None and index not in batches:
                    continue
                table = pa.table({
                    "key": pa.array([r[0] for r in rows], pa.string()),
                    "ts": pa.array([r[1] for r in rows], pa.timestamp("ms", tz="UTC")),
                    "v": pa.array([r[2] for r in rows], pa.int64()),
                })
                path = directory / f"part-{index:03d}.parquet"
                pq.write_table(table, path)
                # Spark's file source takes the oldest file first: one second apart, the order is the batch order.
                stamp = 1_600_000_000 + index
                os.utime(path, (stamp, stamp))
            dirs.append(directory)
        return dirs


def random_case(seed: int, kinds: tuple[str, ...] = ("tumbling", "sliding", "session")) -> Case:
    """A case drawn from ``seed``: 2-6 batches, three keys, windows of 2-10 s, delays of 0-5 s."""
    rng = random.Random(seed)
    kind = rng.choice(kinds)
    if kind == "session":
        size = rng.choice([1000, 1500, 2000, 3000, 5000])
        slide = size
    else:
        size = rng.randrange(2, 11) * 1000
        slide = size if kind == "tumbling" else rng.choice([s for s in (500, 1000, 2000, 2500, 5000) if s < size])
    delay = rng.choice([0, 0, 500, 1000, 2000, 3000, 5000])
    inputs = 2 if rng.random() < 0.25 else 1
    batches = rng.randrange(2, 7)
    frontier = [BASE_MS + rng.randrange(0, 20_000) for _ in range(inputs)]
    data = []
    for number in range(inputs):
        per_batch = []
        for _ in range(batches):
            frontier[number] += rng.choice([0, 500, 1000, 2000, 3000, 5000, 8000])
            per_batch.append(tuple(_row(rng, frontier[number], size, slide, delay) for _ in range(_count(rng))))
        data.append(tuple(per_batch))
    # Drawn apart, so a seed gives the rows it gave before offsets were drawn.
    offset_rng = random.Random(-1 - seed)
    offset = 0 if kind == "session" or offset_rng.random() < 0.6 else offset_rng.randrange(1, slide)
    return Case(seed, kind, size, slide, offset, delay, rng.choice(["min", "max"]), rng.choice([1, 1, 2, 3]),
                tuple(data))


def _count(rng: random.Random) -> int:
    return 0 if rng.random() < 0.08 else rng.randrange(1, 10)


def _row(rng: random.Random, frontier: int, size: int, slide: int, delay: int) -> Row:
    """A row near ``frontier``: disordered, on a window edge, just before one, or far behind."""
    roll = rng.random()
    if roll < 0.2:  # on an edge of a window (a multiple of the slide), or one millisecond before it
        ts = frontier - frontier % slide - rng.choice([0, 1]) - slide * rng.randrange(0, 3)
    elif roll < 0.3:  # far behind: behind any watermark the delay allows
        ts = frontier - delay - rng.randrange(size, 4 * size + 1)
    elif roll < 0.45:  # around the watermark of the batch before
        ts = frontier - delay - rng.randrange(-1000, 3000)
    else:  # disorder around the frontier
        ts = frontier - rng.randrange(0, 4000)
    return rng.choice(KEYS), ts, rng.randrange(1, 100)


def cases_in_turn(first_seed: int, count: int) -> list[Case]:
    """``count`` cases drawn from the seeds ``first_seed`` on, with the window kinds in turn."""
    kinds = ("tumbling", "sliding", "session")
    return [random_case(seed, kinds=(kinds[seed % 3],)) for seed in range(first_seed, first_seed + count)]
