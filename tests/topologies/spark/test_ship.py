"""What squall ships to executors: its packages and the user's bolt modules, in a zip named by its content."""

from __future__ import annotations

import importlib.util
import sys
import zipfile

from tests.cluster.cases import CASES
from tests.topologies.helpers import FIELDS, SCHEMA, Record
from topologies import TopologyBuilder
from topologies.engine.ship import SQUALL_PACKAGES, build_zip, needs_shipping, ship_code, user_modules
from topologies.spouts import FileSpout
from windowing import Count

USER_MODULE = '''
from squall import BaseBolt, Fields

class Upper(BaseBolt):
    def execute(self, input):
        self.collector.emit([input["key"].upper()])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key"))
'''


def test_local_masters_need_no_shipping_and_clusters_do():
    assert not needs_shipping("local") and not needs_shipping("local[2]") and not needs_shipping("local[*, 3]")
    for master in ("local-cluster[2,1,1024]", "spark://127.0.0.1:7077", "yarn", "k8s://https://host:443"):
        assert needs_shipping(master)


def test_the_user_package_is_shipped_and_squall_and_third_party_modules_are_not(tmp_path):
    mixed = next(c for c in CASES if c.name == "mixed")  # bolts defined in tests.cluster.cases
    assert "tests" in user_modules(mixed.build(tmp_path, None))
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(tmp_path, "json", FIELDS, schema=SCHEMA))
    builder.set_bolt("agg", Record().with_tumbling_window(Count.of(2)), parallelism=1).shuffle_grouping("events")
    modules = user_modules(builder.create_topology())
    assert not set(modules) & {*SQUALL_PACKAGES, "pyarrow", "numpy", "msgpack", "pyspark"}


def test_a_module_loaded_from_a_path_ships_under_its_module_name_and_the_zip_is_cached(tmp_path, monkeypatch):
    source = tmp_path / "my_topology.py"
    source.write_text(USER_MODULE)
    spec = importlib.util.spec_from_file_location("squall_topology_my_topology", source)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "squall_topology_my_topology", module)
    spec.loader.exec_module(module)
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(tmp_path, "json", FIELDS, schema=SCHEMA))
    builder.set_bolt("up", module.Upper(), parallelism=1).shuffle_grouping("events")
    topology = builder.create_topology()
    assert user_modules(topology) == ["squall_topology_my_topology"]
    zip_path = build_zip([*SQUALL_PACKAGES, *user_modules(topology)], tmp_path / "zips")
    names = zipfile.ZipFile(zip_path).namelist()
    assert {"squall_topology_my_topology.py", "topologies/runner.py", "squall/__init__.py"} <= set(names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert build_zip([*SQUALL_PACKAGES, *user_modules(topology)], tmp_path / "zips") == zip_path  # same content
    source.write_text(USER_MODULE + "\n# changed\n")
    assert build_zip([*SQUALL_PACKAGES, "squall_topology_my_topology"], tmp_path / "zips") != zip_path


def test_a_local_master_ships_nothing(spark, tmp_path):
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(tmp_path, "json", FIELDS, schema=SCHEMA))
    builder.set_bolt("w", Record().with_tumbling_window(Count.of(2)), parallelism=1).shuffle_grouping("events")
    assert ship_code(spark, builder.create_topology()) is None
