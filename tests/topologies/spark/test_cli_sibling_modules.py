"""``squall run file.py`` imports the file's sibling modules and packages, and ships them to Spark's workers.

The topology file imports a bolt from a module beside it and a helper from a
package beside it, with nothing on ``PYTHONPATH``. In driver mode the run
must find them; in distributed mode under ``local-cluster[2,1,1024]`` the
executors' Python workers, which never see that directory, must run the bolt
too (the runner ships the modules the bolts come from, helpers beside them
included).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.service_fixtures import REPO
from topologies.cli import load_topology, main
from topologies.examples.word_count import SENTENCES

TOPOLOGY = """
from sibling_shout_bolts import Shout
from topologies import TopologyBuilder
from topologies.spouts import FileSpout


def build_topology():
    builder = TopologyBuilder()
    builder.set_spout("sentences", FileSpout({data!r}, "json", ("sentence",), schema="sentence STRING"))
    builder.set_bolt("shout", Shout(), parallelism=2).shuffle_grouping("sentences")
    return builder.create_topology()
"""

BOLTS = """
from bolts import BaseBolt, Fields
from sibling_shout_helpers import loud


class Shout(BaseBolt):
    def execute(self, input):
        self.collector.emit([loud(input["sentence"])])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("loud"))
"""

HELPERS = """
def loud(text):
    return text.upper() + "!"
"""


def write_topology(root: Path) -> Path:
    """The topology file, its sibling module and package, and two input files; returns the topology file."""
    data = root / "in"
    data.mkdir(parents=True)
    for n in range(2):
        lines = [json.dumps({"sentence": s}) for s in SENTENCES[n::2]]
        (data / f"part-{n}.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    project = root / "project"
    (project / "sibling_shout_helpers").mkdir(parents=True)
    (project / "sibling_shout_helpers" / "__init__.py").write_text(HELPERS, encoding="utf-8")
    (project / "sibling_shout_bolts.py").write_text(BOLTS, encoding="utf-8")
    path = project / "shout.py"
    path.write_text(TOPOLOGY.format(data=str(data)), encoding="utf-8")
    return path


def final_outputs(checkpoint: Path) -> Counter[str]:
    files = sorted((checkpoint / "output" / "shout").glob("*.jsonl"))
    return Counter(json.loads(line)["values"][0] for f in files for line in f.read_text().splitlines())


EXPECTED = Counter(s.upper() + "!" for s in SENTENCES)


def test_a_topology_file_imports_its_sibling_module_and_package(spark, tmp_path):
    path = write_topology(tmp_path)
    assert main(["run", str(path), "--available-now", "--checkpoint", str(tmp_path / "ck")]) == 0
    assert final_outputs(tmp_path / "ck") == EXPECTED


@pytest.mark.parametrize("neighbour", ["bolts.py", "windowing/__init__.py", "squall.py"])
def test_a_neighbour_named_like_a_squall_package_is_refused_by_name(tmp_path, neighbour):
    path = write_topology(tmp_path)
    (path.parent / neighbour).parent.mkdir(parents=True, exist_ok=True)
    (path.parent / neighbour).write_text("class SplitSentence: ...\n", encoding="utf-8")
    name = neighbour.split("/")[0].removesuffix(".py")
    with pytest.raises(SystemExit, match=rf"{neighbour.replace('/', '.')}.* has the name of squall's package "
                                         rf"'{name}', which squall imports first; rename it \(for example to "
                                         rf"{name}_shout\)"):
        load_topology(str(path))


def test_a_topology_file_beside_squalls_own_packages_loads(tmp_path):
    """A file at the root of a squall checkout: the packages beside it are squall's own."""
    path = REPO / f"shout_{tmp_path.name}.py"
    path.write_text("from topologies.examples.word_count import build_topology\n", encoding="utf-8")
    try:
        assert load_topology(str(path)).spouts
    finally:
        path.unlink()
