"""Storm 2's lambda spouts: ``set_spout(id, supplier)`` and ``LambdaSpout``, on Spark.

The supplier runs where Spark plans the batches and each batch's end offset records its values
(topologies/spouts/lambda_source.py). Checked here: the refusals at ``set_spout``; the bounds (a count, batches of
one second's worth under ``available_now``); the values coming through in call order, each call once; and a batch
Spark runs again after a failure giving the tuples of its first attempt, with a supplier that never returns the
same value twice (a UUID), so a second call could not go unseen. The topology of the replay has no bolt: the spout's
stream is the output, so what the replayed batch shows is what the source gave (a bolt's committed emissions would
be re-sent as they were, whatever the spout gave).
"""

from __future__ import annotations

import itertools
import threading
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from squall import Fields, LambdaSpout, TopologyBuilder
from topologies.spouts.lambda_source import AVAILABLE_NOW, decode_values, encode_values

needs_available_now = pytest.mark.skipif(not AVAILABLE_NOW, reason="availableNow for Python sources: PySpark 4.2+")


LOCK = threading.Lock()


def takes_one(x):
    return x


def test_a_supplier_becomes_a_lambda_spout_declaring_the_field_lambda():
    b = TopologyBuilder()
    b.set_spout("spout1", lambda: str(uuid.uuid4()), 2)
    topology = b.create_topology()
    spout = topology.spouts["spout1"].spout
    assert isinstance(spout, LambdaSpout) and topology.parallelism("spout1") == 2
    assert spout.output_streams() == {"default": Fields("lambda")}
    assert spout.count is None and not spout.supports_available_now  # endless, as Storm's


@pytest.mark.parametrize(("spout", "message"), [
    (takes_one, r"^set_spout: `supplier` must take no arguments; got <function takes_one at 0x[0-9a-f]+> taking 1$"),
    (lambda a, b=1: a, r"^set_spout: `supplier` must take no arguments; got <function <lambda> .*> taking 1$"),
    (3, r"^set_spout: `spout` must be a Spout \(FileSpout, RateSpout, KafkaSpout, DataFrameSpout, LambdaSpout\) or a "
        r"function taking no arguments \(Storm's lambda spout\); got 3 \(int\) instead$"),
    (LambdaSpout, r"^set_spout: got the class LambdaSpout, not a spout; pass an instance, LambdaSpout\(\.\.\.\)$"),
    (lambda lock=LOCK: 1, r"^set_spout: `supplier` must pickle, as Spark sends it to the process that "
                                      r"calls it; .* does not: TypeError: cannot pickle '_thread.lock' object$"),
])
def test_set_spout_refuses_what_is_neither_a_spout_nor_a_supplier_naming_the_method_and_value(spout, message):
    with pytest.raises(TypeError, match=message):
        TopologyBuilder().set_spout("s", spout)


def test_a_supplier_with_only_optional_arguments_is_a_supplier():
    b = TopologyBuilder()
    b.set_spout("s", lambda n=1, *rest, **named: n)
    b.set_spout("t", itertools.count().__next__)  # a builtin without a signature: taken as it is
    assert set(b.create_topology().spouts) == {"s", "t"}


@pytest.mark.parametrize(("settings", "error", "message"), [
    ({"rows_per_second": 0}, ValueError, r"^LambdaSpout: `rows_per_second` must be a positive number; got 0 instead$"),
    ({"rows_per_second": "10"}, TypeError,
     r"^LambdaSpout: `rows_per_second` must be a number; got '10' \(str\) instead$"),
    ({"count": 0}, ValueError, r"^LambdaSpout: `count` must be positive; got 0 instead$"),
    ({"count": 2.0}, TypeError, r"^LambdaSpout: `count` must be an int; got 2.0 \(float\) instead$"),
    ({"value_type": ""}, TypeError, r"^LambdaSpout: `value_type` must be a Spark DDL type such as 'STRING'"),
])
def test_lambda_spout_settings_are_checked_when_it_is_made(settings, error, message):
    with pytest.raises(error, match=message):
        LambdaSpout(lambda: 1, **settings)


def test_the_recorded_values_come_back_as_their_own_types():
    values = ["a", 1, 2.5, float("inf"), None, True, b"\x00\xff", Decimal("1.10"), date(2024, 1, 2),
              datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), [1, [2]], {"k": [1], 2: "x"}]
    back = decode_values(encode_values(values))
    assert back == values and [type(v) for v in back] == [type(v) for v in values]
    assert decode_values(encode_values([(1, 2)])) == [[1, 2]]
    with pytest.raises(TypeError, match=r"a lambda spout's values must be None, bool, .*; got <object object"):
        encode_values([object()])


def counted_topology(count, rows_per_second, value_type="STRING"):
    counter = itertools.count()
    b = TopologyBuilder()
    b.set_spout("numbers", LambdaSpout(lambda: f"v{next(counter)}", rows_per_second=rows_per_second, count=count,
                                       value_type=value_type))
    b.set_bolt("upper", lambda t, c: c.emit([t.get_string_by_field("lambda").upper()]), "word") \
        .shuffle_grouping("numbers")
    return b.create_topology()


class Crash(RuntimeError):
    pass
