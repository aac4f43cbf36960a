"""storm-starter's WordCountTopology, ported, in distributed mode under local-cluster[2,1,1024]

Driver mode: tests/porting/test_word_count_topology.py.
"""

from __future__ import annotations

import uuid

from tests.porting.test_word_count_topology import check_counts, write_sentences


def test_distributed_mode_on_two_executors_counts_every_word_with_state_on_redis(tmp_path, redis_url,
                                                                                spark_process, local_cluster):
    occurrences = write_sentences(tmp_path)
    args = {"master": local_cluster, "runs": [{"topology": "word_count", "work_dir": str(tmp_path),
                                                           "name": f"word-count-{uuid.uuid4().hex[:6]}",
                                                           "state": redis_url}]}
    (outputs,) = spark_process.answer("tests.porting.cluster_run", args, timeout=600)
    check_counts([tuple(o) for o in outputs], occurrences)
