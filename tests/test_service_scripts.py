"""The scripts that start the test services use the interpreter they are given, and say so when it cannot work."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
HBASE_SH = REPO / "scripts" / "hbase.sh"


def run_start(python: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SQUALL_PYTHON": python, "SQUALL_HBASE_HOME": str(home)}
    return subprocess.run(["bash", str(HBASE_SH), "start", "1"], capture_output=True, text=True, timeout=60,
                          check=False, env=env)


@pytest.mark.skipif(shutil.which("java") is None, reason="needs java")
def test_hbase_start_fails_at_once_naming_an_interpreter_without_happybase(tmp_path):
    (tmp_path / "lib").mkdir()
    no_happybase = tmp_path / "python-without-happybase"
    no_happybase.write_text("#!/bin/sh\nexec python3 -I -S \"$@\"\n")  # no site-packages: no happybase
    no_happybase.chmod(0o755)
    result = run_start(str(no_happybase), tmp_path)
    assert result.returncode != 0
    assert f"'{no_happybase}' cannot import happybase" in result.stderr
    assert "SQUALL_PYTHON" in result.stderr


def test_the_interpreter_running_the_tests_can_check_hbase():
    check = subprocess.run([sys.executable, "-c", "import happybase"], capture_output=True, check=False)
    assert check.returncode == 0, "the tests' interpreter cannot import happybase: pip install -e '.[tests]'"
