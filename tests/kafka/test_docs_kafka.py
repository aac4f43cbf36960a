"""The docs' python blocks of files that need a Kafka broker, run as written (see tests/test_docs.py).

Here, beside the other Kafka tests, so that they share the run's one broker
(``tests/kafka/conftest.py``); ``KAFKA_BOOTSTRAP_SERVERS`` is set to it, and
``REDIS_URL`` to the run's Redis when the file reads it. docs/spark.md's Kafka
example is also run again, as its text says a user may: a second run resumes
from the checkpoint and Redis, and ``start_afresh`` makes the next run start over.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_docs import KAFKA_FILES, ROOT, Block, blocks, marks, rel, run_block, run_file

SPARK_MD = ROOT / "docs" / "spark.md"
KEY = re.compile(r"^sums/(?:final-after-)?(\d+)/\d+ (default|late) ")


@pytest.mark.parametrize("path", [pytest.param(p, marks=marks(p), id=rel(p)) for p in KAFKA_FILES])
def test_blocks_run_as_written(path, request, tmp_path, monkeypatch):
    run_file(path, request, tmp_path, monkeypatch)


def block_with(text: str) -> Block:
    """The python block of docs/spark.md that holds ``text``."""
    return next(b for b in blocks(SPARK_MD) if text in b.source)


def run(block: Block, namespace: dict, capsys: pytest.CaptureFixture) -> list[str]:
    """Run ``block`` in ``namespace`` (failing with its traceback if it raises); the lines it printed."""
    capsys.readouterr()
    code = compile("\n" * (block.line - 1) + block.source, rel(SPARK_MD), "exec")
    error = run_block(code, namespace)
    assert error is None, f"{rel(SPARK_MD)}: the block at line {block.line} fails:\n{error}"
    return capsys.readouterr().out.splitlines()


def batches(lines: list[str]) -> list[int]:
    """The batch ids of the printed outputs' keys (``sums/<batch>/<i>``, ``sums/final-after-<batch>/<i>``)."""
    others = [line for line in lines if not KEY.match(line)]
    assert not others, f"lines that are not outputs of the example: {others}"
    return [int(KEY.match(line)[1]) for line in lines]


def test_the_kafka_example_resumes_when_run_again_and_starts_afresh_on_purpose(
        kafka, kafka_spark, redis_url, tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrap)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.chdir(tmp_path)
    example, afresh = block_with('KAFKA = os.environ.get("KAFKA_BOOTSTRAP_SERVERS"'), block_with("def start_afresh")
    namespace: dict = {"__name__": "docs_spark_again", "spark": kafka_spark}
    try:
        # The other test may have run the example on this broker and Redis: start_afresh first, with the
        # example's own settings (its KAFKA, REDIS and CHECKPOINT lines).
        settings = [line for line in example.source.splitlines()
                    if line.startswith(("KAFKA =", "REDIS =", "CHECKPOINT ="))]
        assert len(settings) == 3, settings
        exec("import os\n" + "\n".join(settings), namespace)
        run(afresh, namespace, capsys)

        first = batches(run(example, namespace, capsys))
        assert first[0] == 0, first  # a fresh query: batch 0 on
        second = batches(run(example, namespace, capsys))  # the same checkpoint and Redis: resumes
        assert second and min(second) > max(first), (first, second)
        run(afresh, namespace, capsys)
        third = batches(run(example, namespace, capsys))
        assert third[0] == 0, third  # started over
    finally:
        namespace.clear()
