"""Draw the figures of docs/plots.md: ``python docs/img/make_plots.py [OUT_DIR]`` (default: docs/img).

Each figure is ``squall plot docs/img/<name>.py --out <OUT_DIR>/<name>.png``.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # run from a checkout: the repository root holds the packages

from topologies.cli import main  # noqa: E402

FIGURES = ("storm_watermark", "sliding_count", "early_late", "session_merge")


def make(out_dir: Path = HERE) -> list[Path]:
    """Draw every figure into ``out_dir``; returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in FIGURES:
        out = out_dir / f"{name}.png"
        main(["plot", str(HERE / f"{name}.py"), "--out", str(out)])
        written.append(out)
    return written


if __name__ == "__main__":
    make(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
