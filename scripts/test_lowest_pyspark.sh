#!/usr/bin/env bash
# The Spark tests on the lowest PySpark squall supports, in a venv of their own (CI runs this after the main tests).
#
#   scripts/test_lowest_pyspark.sh [version] [--venv-only | pytest options...]
#
# The version defaults to the floor of setup.py's PYSPARK_RANGE (the `spark` and `connect` extras: pyspark>=X,<5).
# The venv ($SQUALL_LOWEST_VENV, default <repo>/.cache/pyspark-<version>/venv) gets squall (editable) and its
# `tests` extra from PyPI (or pip's cache), with the extra's pinned pyspark swapped for this version; it is kept
# and brought up to date on the next run. Needs python3 (3.11+; $SQUALL_PYTHON), Java 17 and redis-server
# (scripts/install_services.sh).
#
# The subset, chosen to cover what squall asks of PySpark (toArrow, mapInArrow, groupBy().applyInArrow,
# foreachBatch, and under Spark Connect remote("local[2]")) in ~5 minutes of tests on two cores: every test marked
# `spark` under tests/topologies, tests/bolts and tests/faults (driver and distributed placements on local[2], the
# distributed stages under Spark Connect, checkpoints and replay, idle time, bad input, errors, the CLI, metrics,
# pyarrow storage paths), but not `cluster` or tests/topologies/spark/test_spark_distributed.py (local-cluster runs, minutes
# each), `faults` (SIGKILL runs), `kafka` (a broker and the connector jars), `connect` (the Connect-server suite,
# ~10 minutes) or `packaging`. Measured on the CI machine (2 cores): 4-5 minutes of tests; 5-7 with a new venv.
# Extra arguments go to pytest after the subset (e.g. `-x`, `-k replay`); it exits with pytest's status.
# `--venv-only` makes or updates the venv and runs no test (CI does that while the main tests run).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$PWD"
PYTHON="${SQUALL_PYTHON:-python3}"
export PIP_DISABLE_PIP_VERSION_CHECK=1

die() { echo "test_lowest_pyspark.sh: $*" >&2; exit 1; }

# The `spark` extra's floor, read from setup.py without installing anything.
floor() {
  "$PYTHON" - <<'PY'
import re, sys
text = open("setup.py", encoding="utf-8").read()
match = re.search(r'^PYSPARK_RANGE = "\s*>=\s*([0-9][0-9.]*)', text, re.M)
if not match:
    sys.exit("test_lowest_pyspark.sh: no PYSPARK_RANGE = \">=X,...\" in setup.py")
print(match.group(1))
PY
}

if [[ "${1:-}" =~ ^[0-9] ]]; then VERSION="$1"; shift; else VERSION="$(floor)"; fi
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "expected a pyspark version like 4.0.4; got '$VERSION' instead"
VENV_ONLY=0
if [ "${1:-}" = "--venv-only" ]; then VENV_ONLY=1; shift; fi
VENV="${SQUALL_LOWEST_VENV:-$REPO/.cache/pyspark-$VERSION/venv}"
PY="$VENV/bin/python"

started=$SECONDS
if [ ! -x "$PY" ]; then
  echo "test_lowest_pyspark.sh: making $VENV"
  "$PYTHON" -m venv "$VENV"
  "$PY" -m pip install -q --upgrade pip
fi
# squall itself (editable, so its metadata is setup.py's as it is now), then its requirements and its `tests` extra
# as that metadata lists them, the extra's pinned pyspark swapped for this version (its extras kept); one resolve,
# a no-op when the venv already has them.
"$PY" -m pip install -q --no-deps -e "$REPO" 2>/dev/null
# -I: the venv's own record of squall (its dist-info), never the checkout's squall.egg-info in the working
# directory, which any setuptools run in the checkout rewrites (CI's main run goes on beside this).
mapfile -t reqs < <("$PY" -I - "$VERSION" <<'PY'
import re, sys
from importlib.metadata import requires
for req in requires("squall") or []:
    spec, _, marker = (part.strip() for part in req.partition(";"))
    if not marker or re.search(r"""extra\s*==\s*["']tests["']""", marker):
        pyspark = re.match(r"(pyspark\s*(\[[^\]]*\])?)\s*[<>=!~(]", spec)
        print(f"{pyspark.group(1)}=={sys.argv[1]}" if pyspark else spec)
PY
)
printf '%s\n' "${reqs[@]}" | grep -q "^pyspark.*==$VERSION\$" \
  || die "setup.py's tests extra has no pyspark to replace; squall's requirements as the venv has them: ${reqs[*]:-none}"
"$PY" -m pip install -q "${reqs[@]}"
"$PY" -c "import pyspark; print('test_lowest_pyspark.sh: pyspark', pyspark.__version__, 'from', pyspark.__file__)"
echo "test_lowest_pyspark.sh: venv ready after $((SECONDS - started)) s"
[ "$VENV_ONLY" = 0 ] || exit 0

# The venv's python everywhere: the tests' subprocesses run `python` and Spark's workers PYSPARK_PYTHON; SPARK_HOME
# must not point at another installation.
unset SPARK_HOME PYTHONPATH
# These tests start few JVMs: making a class archive for this PySpark (tests/jvm_archive.py) would cost more than it saves.
export SQUALL_TESTS_NO_JVM_ARCHIVE=1
export SQUALL_TEST_TIMES="$(dirname "$VENV")/test-times.json"  # .cache/test-times.json stays the main run's
export PATH="$VENV/bin:$PATH" PYSPARK_PYTHON="$PY" PYSPARK_DRIVER_PYTHON="$PY"
"$PY" -m pytest -q -p no:cacheprovider \
  -m "spark and not cluster and not faults and not kafka and not connect and not packaging" \
  --ignore=tests/topologies/spark/test_spark_distributed.py \
  tests/topologies tests/bolts tests/faults "$@"
echo "test_lowest_pyspark.sh: pyspark $VERSION passed in $((SECONDS - started)) s"
