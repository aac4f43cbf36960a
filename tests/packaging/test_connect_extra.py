"""`pip install "squall[connect]"` gives a Connect client without the full PySpark, and README's example runs on it.

A fresh venv gets the wheel with the `connect` extra. It must hold `pyspark-client`, not
`pyspark`: no `pyspark/jars`, and `pip show pyspark` finds nothing. The client is pinned to
the server's version (within the extra's range), so a newer client on PyPI cannot skew the
run. From that venv, README's main example (the sliding event-time `SlidingSum` on a
`FileSpout`, fields grouping, parallelism 2, `memory://` state, `available_now`), taken from
README.md as written with only the session line changed to
`SparkSession.builder.remote(url)`, runs against a local Connect server started from the
tests' full PySpark (:class:`tests.connect_fixtures.ConnectServer`), and prints the windows
README.md says it prints. The server's Python processes run in a venv of their own that has
squall's dependencies but not squall, so the run works only because the client shipped squall
with ``spark.addArtifacts(..., pyfile=True)``, as it must on a cluster that never installed it.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.packaging.wheels import ROOT, bin_path, clean_env, make_venv, requirements_of, run
from tests.test_docs import blocks

README = ROOT / "README.md"
CLASSIC_SESSION = 'spark = SparkSession.builder.master("local[2]").getOrCreate()'
DRIVER_RUN = 'mode="driver", state="memory://"'
REMOTE_SESSION = "spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()"
LINE = re.compile(r"task (?P<task>\d+): window \((?P<start>-?[\d.]+) s, (?P<end>-?[\d.]+) s\] sums to (?P<sum>\d+)")


def readme_example(state_url: str | None = None) -> str:
    """README's windowed bolt and its Spark run, as one script whose session is a Connect client of ``argv[1]``.

    With ``state_url`` the run is in distributed mode with that state instead of driver mode with ``memory://``.
    """
    code = [b.source for b in blocks(README)]
    bolt = next(c for c in code if "class SlidingSum(BaseWindowedBolt)" in c)
    spark_run = next(c for c in code if "runner.submit(" in c)
    assert CLASSIC_SESSION in spark_run, f"README's Spark example no longer builds its session with {CLASSIC_SESSION}"
    if state_url is not None:
        assert DRIVER_RUN in spark_run, f"README's Spark example no longer runs with {DRIVER_RUN}"
        spark_run = spark_run.replace(DRIVER_RUN, f'mode="distributed", state="{state_url}"')
    return "import sys\n" + bolt + "\n" + spark_run.replace(CLASSIC_SESSION, REMOTE_SESSION) + "\nspark.stop()\n"


def stated_windows() -> tuple[str, list[float]]:
    """What README.md says the example prints: one line it quotes, and the ends of every task's windows (s)."""
    text = " ".join(README.read_text(encoding="utf-8").split())
    quoted = re.search(r"It prints each task's 20 s windows, one every 10 s \(`(?P<line>[^`]+)`", text)
    assert quoted, "README.md no longer quotes a line the Spark example prints"
    in_batches = re.search(r"The windows ending at ([-\d, and]+) s fire in the batches", text)
    at_flush = re.search(r"the last two, ending at ([-\d, and]+) s, at the shutdown flush", text)
    assert in_batches and at_flush, "README.md no longer says which windows the Spark example fires"
    return quoted["line"], [float(e) for part in (in_batches[1], at_flush[1]) for e in re.findall(r"-?\d+", part)]


def expected_sum(start: float, end: float) -> int:
    """One key's rows in (start, end], as README's example writes them: value 1 at 0 s, 1 s, ... 29 s."""
    return sum(1 for ts in range(0, 30) if start < ts <= end)


@pytest.fixture(scope="module")
def connect_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with ``<wheel>[connect,redis]``, its client pinned to the server's (the tests' pyspark) version.

    ``redis`` for the distributed run's state; it brings redis-py only.
    """
    import pyspark

    home = tmp_path_factory.mktemp("connect-venv") / "env"
    return make_venv(home, f"{wheel}[connect,redis]", f"pyspark-client=={pyspark.__version__}")


@pytest.fixture(scope="module")
def server_without_squall(wheel: Path, tmp_path_factory: pytest.TempPathFactory, start_connect_server):
    """A Connect server whose Python processes run in a venv with squall's dependencies but not squall."""
    import pyspark

    home = tmp_path_factory.mktemp("server-python") / "env"
    make_venv(home, f"pyspark-client=={pyspark.__version__}", *requirements_of(wheel, "connect", "redis"))
    python = str(bin_path(home, "python"))
    probe = subprocess.run([python, "-c", "import topologies"], cwd=home, env=clean_env(), capture_output=True,
                           text=True, timeout=120, check=False)
    assert probe.returncode != 0, "the server's Python imports squall's topologies without it being shipped"
    server = start_connect_server(tmp_path_factory.mktemp("connect-without-squall"), python=python)
    yield server
    server.stop()


def test_the_connect_extra_installs_the_client_and_no_full_pyspark(connect_venv, tmp_path):
    python = str(bin_path(connect_venv, "python"))
    purelib = Path(run([python, "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                       "finding the venv's site-packages", tmp_path).stdout.strip())
    assert purelib.is_relative_to(connect_venv), f"the venv's site-packages {purelib} is outside {connect_venv}"
    assert not (purelib / "pyspark" / "jars").exists(), f"{purelib}/pyspark/jars exists: the full PySpark is installed"
    assert (purelib / "pyspark" / "sql" / "connect").is_dir(), f"no pyspark/sql/connect in {purelib}"
    client = run([python, "-m", "pip", "show", "pyspark-client"], "pip show pyspark-client", tmp_path)
    assert "Name: pyspark-client" in client.stdout, client.stdout
    full = subprocess.run([python, "-m", "pip", "show", "pyspark"], cwd=tmp_path, env=clean_env(), capture_output=True,
                          text=True, timeout=120, check=False)
    assert full.returncode != 0, f"`pip show pyspark` finds the full PySpark in the venv:\n{full.stdout}"


@pytest.fixture
def own_redis_url(tmp_path, start_redis) -> Iterator[str]:
    """A Redis of this test's own: README's query name must not leave state where the docs' runs of it look."""
    server = start_redis(workdir=tmp_path)
    try:
        yield f"redis://127.0.0.1:{server.port}/0"
    finally:
        server.stop()


@pytest.mark.parametrize("mode", ["driver", pytest.param("distributed", marks=pytest.mark.needs("own_redis_url"))])
def test_readmes_example_runs_under_connect_from_the_connect_extra(connect_venv, server_without_squall, tmp_path,
                                                                   request, mode):
    connect_url = server_without_squall.url
    script = tmp_path / "readme_example.py"
    state_url = request.getfixturevalue("own_redis_url") if mode == "distributed" else None
    script.write_text(readme_example(state_url), encoding="utf-8")
    # -I: the venv's own packages only (neither the repo nor the cwd on sys.path), so squall comes from the wheel.
    result = run([str(bin_path(connect_venv, "python")), "-I", str(script), connect_url],
                 "README's example under Spark Connect", tmp_path, timeout=600)
    printed = [m.groupdict() for m in map(LINE.fullmatch, result.stdout.splitlines()) if m]
    assert printed, f"the example printed no window:\n{result.stdout}\n{result.stderr[-3000:]}"

    quoted, ends = stated_windows()
    assert quoted in result.stdout.splitlines(), f"README says the example prints {quoted!r}; it printed:\n" \
        f"{result.stdout}"
    expected = [{"task": str(task), "start": f"{end - 20:g}", "end": f"{end:g}",
                 "sum": str(expected_sum(end - 20, end))} for task in (0, 1) for end in ends]
    by_task = sorted(printed, key=lambda w: int(w["task"]))  # each task's windows in emission order
    assert by_task == expected
