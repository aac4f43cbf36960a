"""Every ```python block in README.md and docs/*.md runs as written.

A file's blocks run in order in one namespace (later blocks build on earlier ones), in a
temporary working directory. ``SparkSession.builder.getOrCreate()`` in a block returns the
test run's session. A block that cannot run here is skipped only when the line before its
fence is ``<!-- not run: <reason> -->``; each such block is reported as a skipped test.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(?P<reason>.+?)\s*-->$")
NEEDS_SPARK = re.compile(r"\bspark\b|SparkSession|SparkRunner|FileSpout|DataFrameSpout|RateSpout|run_bounded")


@dataclass(frozen=True)
class Block:
    """One fenced python block: its first code line (1-based), its source, and why it is not run (if so)."""

    line: int
    source: str
    not_run: str | None


def doc_files() -> list[Path]:
    """README.md, then docs/*.md by name."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """The top-level ```python blocks of ``path``, with the ``not run`` marker on the line before each fence."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    previous = ""
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if lines[i].startswith("```python"):
            start = i + 1
            end = start
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            marker = NOT_RUN.match(previous)
            found.append(Block(start + 1, "\n".join(lines[start:end]) + "\n", marker and marker["reason"]))
            i = end + 1
            previous = ""
            continue
        if stripped:
            previous = stripped
        i += 1
    return found


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


FILES = [p for p in doc_files() if any(b.not_run is None for b in blocks(p))]
NOT_RUN_BLOCKS = [(p, b) for p in doc_files() for b in blocks(p) if b.not_run is not None]


def test_some_blocks_are_found():
    assert FILES, "no ```python block found in README.md or docs/"


@pytest.mark.spark
@pytest.mark.parametrize("path", FILES, ids=rel)
def test_blocks_run_as_written(path, request, tmp_path, monkeypatch):
    runnable = [b for b in blocks(path) if b.not_run is None]
    if any(NEEDS_SPARK.search(b.source) for b in runnable):
        request.getfixturevalue("spark")  # getOrCreate() in a block now returns the test run's session
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"docs_{path.stem.replace('-', '_')}"}
    for block in runnable:
        # Pad with newlines so a traceback's line numbers are the doc file's.
        code = compile("\n" * (block.line - 1) + block.source, rel(path), "exec")
        error = run_block(code, namespace)
        if error is not None:
            pytest.fail(f"{rel(path)}: the block at line {block.line} does not run as written:\n{error}", pytrace=False)


def run_block(code, namespace) -> str | None:
    """Run ``code`` in ``namespace``; the end of its traceback when it raises, else None."""
    try:
        exec(code, namespace)
    except Exception as exc:
        return "".join(traceback.format_exception(exc)[-6:])
    return None


@pytest.mark.parametrize(
    ("path", "block"), NOT_RUN_BLOCKS, ids=[f"{rel(p)}:{b.line}" for p, b in NOT_RUN_BLOCKS] or None
)
def test_blocks_not_run(path, block):
    pytest.skip(f"{rel(path)}:{block.line} not run: {block.not_run}")


def test_markers_precede_a_block():
    """A ``not run`` comment that is not right before a python block is a mistake (it would not skip anything)."""
    stray = []
    for path in doc_files():
        lines = path.read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines):
            if NOT_RUN.match(line.strip()):
                following = next((x for x in lines[n + 1:] if x.strip()), "")
                if not following.startswith("```python"):
                    stray.append(f"{rel(path)}:{n + 1}")
    assert not stray, f"`<!-- not run: ... -->` must be followed by a ```python block: {', '.join(stray)}"
