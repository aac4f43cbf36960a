"""``squall run --remote``: a topology file run against a Spark Connect server, from the shell."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.connect_fixtures import REPO


def test_squall_run_remote_prints_the_outputs_of_a_classic_run(connect_url, tmp_path):
    example = REPO / "topologies" / "examples" / "sliding_window.py"
    outputs = {}
    for where in (["--remote", connect_url], ["--master", "local[2]"]):
        proc = subprocess.run(
            [sys.executable, "-m", "topologies.cli", "run", str(example), *where, "--available-now",
             "--print-outputs", "--checkpoint", str(tmp_path / where[0].strip("-"))],
            cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
        assert proc.returncode == 0, proc.stderr[-4000:]
        assert "[sliding_window] done:" in proc.stdout
        outputs[where[0]] = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert outputs["--remote"] == outputs["--master"]
    assert len(outputs["--remote"]) == 40
