"""Building squall's wheel from a clean copy and running commands in fresh venvs (the packaging tests' helpers).

The copy holds what a fresh clone would (tracked files plus new files git does not ignore), so
stray build output or egg-info in the working tree cannot hide a packaging bug. Commands run
without the variables that would let a venv see the repo or stop pip from building in isolation.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 900
# Variables that would let the venv see the repo, or stop pip from building in isolation
# (pyproject.toml needs setuptools>=68; the interpreter may have an older one).
DROPPED_ENV = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PIP_NO_BUILD_ISOLATION", "PIP_USER")


def clean_env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key not in DROPPED_ENV}


def run(cmd: list[str], what: str, cwd: Path, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    """Run ``cmd``; on failure, fail the test with the command, its stdout tail and its whole stderr."""
    try:
        result = subprocess.run(cmd, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=timeout,
                                check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{what} timed out after {timeout}s:\n$ {' '.join(cmd)}\n{exc.stderr or ''}", pytrace=False)
    if result.returncode != 0:
        stdout_tail = "\n".join(result.stdout.splitlines()[-30:])
        pytest.fail(
            f"{what} failed (exit {result.returncode}):\n$ {' '.join(cmd)}\n"
            f"--- stdout (last 30 lines) ---\n{stdout_tail}\n--- stderr ---\n{result.stderr}",
            pytrace=False,
        )
    return result


def bin_path(venv: Path, name: str) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin") / name


def clone_files() -> list[str]:
    """Paths a fresh clone plus new untracked, non-ignored files would hold (deleted files left out)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip(f"{ROOT} is not a git checkout; cannot tell which files a clone would hold")
    listing = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], "git ls-files", ROOT)
    return sorted({path for path in listing.stdout.split("\0") if path and (ROOT / path).is_file()})


def copy_clone(target: Path) -> Path:
    """Copy what a fresh clone would hold to ``target``; ``target``."""
    for path in clone_files():
        dest = target / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / path, dest, follow_symlinks=False)
    return target


def build_wheel(source: Path, dist: Path) -> Path:
    """``pip wheel --no-deps`` of ``source`` into ``dist``; the one squall wheel."""
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(dist), str(source)], "building the wheel", dist)
    wheels = sorted(dist.glob("squall-*.whl"))
    assert len(wheels) == 1, f"expected one squall wheel in {dist}, found {[w.name for w in dist.iterdir()]}"
    return wheels[0]


def make_venv(home: Path, *requirements: str) -> Path:
    """A fresh venv at ``home`` (no system site packages) with ``requirements`` pip-installed; ``home``."""
    run([sys.executable, "-m", "venv", str(home)], "creating the venv", home.parent)
    run([str(bin_path(home, "python")), "-m", "pip", "install", *requirements], f"installing {requirements}",
        home.parent)
    return home


def requirements_of(wheel: Path, *extras: str) -> list[str]:
    """The wheel's requirements (its ``Requires-Dist`` lines outside every extra, and those of ``extras``)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(name).decode()
    lines = [line.removeprefix("Requires-Dist:").strip() for line in metadata.splitlines()
             if line.startswith("Requires-Dist:")]
    wanted = [line for line in lines if "extra ==" not in line]
    for extra in extras:
        wanted += [line.partition(";")[0].strip() for line in lines
                   if line.replace("'", '"').endswith(f'extra == "{extra}"')]
    return wanted
