"""Every placement gives driver mode's outputs, for every kind of bolt: one suite, parametrised by placement.

Each case of :mod:`tests.cluster.cases` (the shipped examples, and together
every kind of bolt: plain, basic, rich, stateful, windowed, stateful windowed,
persistent, paged and message-id windows, aggregations with retractions, a
join, lambda bolts, ticking bolts, direct emits, custom and the other
groupings, objects between tasks, read from file spouts and a
``DataFrameSpout``) runs once in driver mode in the shared classic ``local[2]``
session: the reference. Then in every other placement, each in a process of
its own, each run a new query:

- ``distributed/local-cluster/redis``: distributed mode under
  ``local-cluster[2,1,1024]`` (two executor processes, so tasks really move
  between them from batch to batch) with Redis state; ``mixed`` (every kind of
  bolt state) with HBase state too;
- ``driver/connect/memory``, ``distributed/connect/redis``: under a Spark
  Connect session to a local Connect server (its own JVM; ``foreachBatch`` in a
  Python process beside it); the cases with bolt state of every kind
  (``mixed``, ``storm_kinds``) also in driver mode with Redis, and ``mixed`` with
  HBase in both modes.

Outputs must be equal, in order. The cluster run also writes README's windows
through a Parquet ``TableSink`` from the executors, and records where each task
ran: the suite checks that tasks moved, since a run where nothing moves proves
nothing.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.cluster.cases import CASES, PROBE_DIR, driver_outputs, keyed_rows, write_all
from tests.connect_fixtures import run_connect

REPO = Path(__file__).resolve().parents[2]
CONNECT = [("driver", "memory"), ("distributed", "redis")]
PLACEMENTS = ["distributed/local-cluster/redis", *(f"{mode}/connect/{store}" for mode, store in CONNECT)]
STATEFUL = ("mixed", "storm_kinds")  # every kind of bolt state: on every store, in every mode
MORE = [("mixed", "distributed/local-cluster/hbase"), ("mixed", "driver/connect/hbase"),
        ("mixed", "distributed/connect/hbase"), *((case, "driver/connect/redis") for case in STATEFUL)]


def runs_of(placement: str) -> str:
    """The fixture whose runs hold ``placement``'s outputs (:func:`outputs_of` reaches it at run time)."""
    return "cluster_runs" if placement.split("/")[1] == "local-cluster" else "connect_runs"



@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return write_all(tmp_path_factory.mktemp("placements"))


@pytest.fixture(scope="module")
def reference(spark, data) -> dict[str, list]:
    """Each case in driver mode in the classic session."""
    return driver_outputs(spark, data)


@pytest.fixture(scope="module")
def cluster_runs(data, redis_url, hbase_url, spark_process, local_cluster) -> dict[str, list]:
    args = {"master": local_cluster, "data": str(data / "data"), "checkpoint": str(data / "ck"),
            "state": redis_url, "runs": 1, "name": f"eq{uuid.uuid4().hex[:6]}", "probe": str(data / "probe"),
            "table": str(data / "table"), "more": [["mixed", hbase_url]]}
    return spark_process.answer("tests.cluster.equivalence_run", args, timeout=1500)


@pytest.fixture(scope="module")
def connect_runs(connect_url, data, redis_url, hbase_url) -> dict[str, dict]:
    urls = {"memory": "memory://", "redis": redis_url, "hbase": hbase_url}
    runs = [[c.name, mode, urls[store]] for c in CASES for mode, store in CONNECT]
    runs += [["mixed", mode, urls["hbase"]] for mode in ("driver", "distributed")]
    runs += [[case, "driver", urls["redis"]] for case in STATEFUL]
    args = {"url": connect_url, "data": str(data / "data"), "checkpoint": str(data / "ck-connect"), "runs": runs}
    return run_connect("tests.connect.connect_run", args)  # type: ignore[return-value]


def outputs_of(placement: str, case: str, request: pytest.FixtureRequest) -> list:
    """The outputs of ``case`` in ``placement`` (``mode/where/store``), checked for the run's own figures."""
    mode, where, store = placement.split("/")
    if where == "local-cluster":
        runs = request.getfixturevalue("cluster_runs")
        return runs[case][0] if store == "redis" else runs[f"{case}/{store}"]
    got = request.getfixturevalue("connect_runs")[f"{case}/{mode}/{store}"]
    assert got["count"] == len(got["outputs"])
    assert got["batches"] > 0 and got["rows"] > 0
    return got["outputs"]


@pytest.mark.parametrize("placement", [pytest.param(p, marks=pytest.mark.needs(runs_of(p))) for p in PLACEMENTS])
@pytest.mark.parametrize("case", [c.name for c in CASES])
def test_every_placement_gives_the_outputs_of_driver_mode(case, placement, reference, request):
    expected = reference[case]
    assert expected, f"case {case} gave no outputs in driver mode"
    assert outputs_of(placement, case, request) == expected, f"case {case} in {placement} differs from driver mode"


@pytest.mark.parametrize(("case", "placement"),
                         [pytest.param(c, p, marks=pytest.mark.needs(runs_of(p)), id=f"{c}-{p}") for c, p in MORE])
def test_bolt_state_of_every_kind_gives_the_outputs_of_driver_mode_on_every_store(case, placement, reference,
                                                                                   request):
    assert outputs_of(placement, case, request) == reference[case]


def test_the_bolt_kinds_of_the_suite_are_all_there(reference):
    """The suite runs what it says: every kind of bolt has outputs in the reference (ticks included)."""
    components = {o[0] for outputs in reference.values() for o in outputs}
    assert {"sums", "ticks", "halves", "tally", "stateful", "paged", "msgid", "agg_total", "agg_ingress",
            "join"} <= components
    # The ingress-time sums: one pane per key at the end of input, together every event's value.
    ingress = [o[3] for o in reference["mixed"] if o[0] == "agg_ingress"]
    events = [row for rows in keyed_rows() for row in rows]
    assert sorted((pane[0], pane[3]) for pane in ingress) == sorted(
        (key, sum(r["value"] for r in events if r["key"] == key)) for key in {r["key"] for r in events})
    # The columnar bolt's tables: summed per key downstream (ten times the input's sums), its small rows as outputs.
    scaled = [o[3] for o in reference["mixed"] if o[0] == "scaled_sums"]
    assert sorted((pane[0], pane[3]) for pane in scaled) == sorted(
        (key, 10 * sum(r["value"] for r in events if r["key"] == key)) for key in {r["key"] for r in events})
    small = [tuple(o[3]) for o in reference["mixed"] if o[0] == "scaled" and o[2] == "small"]
    assert sorted(small) == sorted((r["key"], r["ts"], r["value"]) for r in events if r["value"] < 10)
    assert any(o[3][0] > 0 for o in reference["storm_kinds"] if o[0] == "ticks")  # a tick counted tuples
    # The join's right spout reads through `where="value % 3 <> 0"`: its rows met, and none the predicate drops.
    rights = [right for o in reference["join"] if o[0] == "join" for _, right in o[3][3]]
    assert rights and all(row["value"] % 3 != 0 for row in rights)


def test_a_table_sink_writes_driver_modes_windows_from_the_executors(spark, data, reference, cluster_runs):
    """README's windows through a TableSink on the cluster: driver mode's printer outputs, none on the driver."""
    expected = sorted((source, float(value)) for component, _, _, (source, value) in reference["sliding_window"]
                      if component == "printer")
    assert not [o for o in cluster_runs["table_outputs"] if o[0] == "printer"], "the sunk stream reached the driver"
    table = spark.read.parquet(str(data / "table"))
    assert table.dtypes == [("source", "string"), ("value", "double"), ("batch_id", "int")]
    assert sorted((r.source, r.value) for r in table.collect()) == expected


def test_tasks_ran_in_both_executor_processes(data, cluster_runs):
    """The probe's tasks ran in both executor JVMs, and some task in both: tasks moved between batches."""
    pids_of_task: dict[str, set[str]] = {}
    for f in (data / "probe" / "0").iterdir():
        pids_of_task.setdefault(f.name, set()).update(line.split()[0] for line in f.read_text().splitlines())
    assert pids_of_task, f"the probe recorded nothing; conf key {PROBE_DIR!r} did not reach the executors"
    all_pids = set().union(*pids_of_task.values())
    assert len(all_pids) >= 2, f"every task ran in one executor {all_pids}"
    moved = {task: pids for task, pids in pids_of_task.items() if len(pids) > 1}
    assert moved, f"no task ran in more than one executor: {pids_of_task}"


def test_the_workers_keep_their_warm_tasks_out_of_pysparks_collections(data, cluster_runs):
    """Executors' Python workers freeze what they hold after running squall's partitions (``worker_collector``).

    PySpark collects every object after each task a worker runs; frozen, the
    warm tasks' windows are skipped. The probe's task reads it in its worker:
    after a worker's first squall partition, the count is above zero.
    """
    frozen = [int(line.split()[1]) for f in (data / "probe" / "0").iterdir() for line in f.read_text().splitlines()]
    assert frozen, "the probe recorded nothing"
    assert max(frozen) > 0, f"no worker had frozen anything when the probe ran: {sorted(set(frozen))}"
