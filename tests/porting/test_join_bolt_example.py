"""storm-starter's JoinBoltExample, ported (tests/porting/join_bolt_example.py), run on Spark in driver mode."""

from __future__ import annotations

import itertools

from bolts import Fields
from tests.porting.join_bolt_example import JoinBoltExample


def stepping_clock(start: int = 1_700_000_000_000, step: int = 10_000):
    """Each batch 10 s after the last: the second batch (the empty files) fires the first 10 s window."""
    counter = itertools.count(start, step)
    return lambda: next(counter)


def test_the_ported_example_prints_each_id_with_its_gender_and_age(spark, tmp_path, capsys):
    handle = JoinBoltExample.main(spark, tmp_path, stepping_clock())
    assert handle.await_termination(300)

    # What the example feeds, written out independently: gender by parity of the id, age = id + 20.
    genders = [(i, "female" if i % 2 else "male") for i in range(10)]
    ages = {i: 20 + i for i in range(10)}
    # One window holds every record; genderSpout is the first stream, so rows follow the genders' order.
    expected = [[i, i, gender, ages[i]] for i, gender in genders]

    outputs = handle.outputs()
    assert {(o.component, o.stream) for o in outputs} == {("printer", "default")}
    printed = [o.values[0] for o in outputs]
    assert [list(t.values) for t in printed] == expected
    assert {(t.fields, t.source_component, t.stream) for t in printed} == {
        (Fields("genderSpout:id", "ageSpout:id", "gender", "age"), "joiner", "default")}
    assert capsys.readouterr().out.count("Tuple(joiner:default, {'genderSpout:id': ") == 10
