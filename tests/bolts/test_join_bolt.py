"""JoinBolt: Storm's windowed join of several streams on one field each, in Python spelling.

Expected rows are written out by hand from the data (with the reason beside them), or come
from ``naive_join`` below: a nested-loop join over each window's tuples as the harness
recorded them, written from the semantics, not from the bolt.
"""

from __future__ import annotations

import copy
import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import ERROR_FIELDS, Fields, Tuple, TupleError
from bolts.storm.join_bolt import JoinBolt
from topologies import TopologyBuilder
from topologies.spouts import FileSpout
from topologies.testing import BoltHarness
from windowing import Count, Duration

STREAM, SOURCE = JoinBolt.Selector.STREAM, JoinBolt.Selector.SOURCE

USERS = ("userId", "name", "city")
ORDERS = ("orderId", "userId", "item", "price")
STORES = ("storeId", "storeName", "city")
CITIES = ("cityName", "country")
FIELDS = {"users": USERS, "orders": ORDERS, "stores": STORES, "cities": CITIES}


def harness(bolt, *streams, **options):
    return BoltHarness(bolt, fields={s: FIELDS[s] for s in streams}, streams=streams, **options)


def feed(h, stream, rows):
    for row in rows:
        h.feed(list(row), stream=stream)


def feed_from(h, component, stream, fields, values):
    """Deliver a tuple from another source component than the harness's own."""
    h.task.execute(Tuple(list(values), Fields(fields), stream, component))


def rows(h, stream="default"):
    return [values for s, values in h.emitted if s == stream]


def per_window(h, stream="default"):
    """What the bolt emitted on ``stream`` for each activation, in order."""
    bounds = [w.emitted_from for w in h.windows] + [len(h.emitted)]
    return [[v for s, v in h.emitted[a:b] if s == stream] for a, b in itertools.pairwise(bounds)]


# Inner and left joins ---------------------------------------------------------------------------------------
ANN, BOB, CY = (1, "ann", "paris"), (2, "bob", "oslo"), (3, "cy", "rome")
PEN, INK, CUP, HAT = (10, 2, "pen", 3), (11, 1, "ink", 5), (12, 2, "cup", 7), (13, 9, "hat", 1)


def users_and_orders(bolt):
    """One window of all seven tuples, users and orders interleaved."""
    h = harness(bolt.with_tumbling_window(Count(7)), "users", "orders")
    for stream, row in [("orders", PEN), ("users", ANN), ("orders", INK), ("users", BOB), ("orders", CUP),
                        ("users", CY), ("orders", HAT)]:
        h.feed(list(row), stream=stream)
    assert len(h.windows) == 1
    return h


def test_an_inner_join_pairs_each_first_stream_tuple_with_its_matches_in_window_order():
    h = users_and_orders(JoinBolt(STREAM, "users", "userId").join("orders", "userId", "users")
                         .select("userId,name,item,price"))
    assert rows(h) == [
        [1, "ann", "ink", 5],   # ann's one order
        [2, "bob", "pen", 3],   # bob's two, in window order
        [2, "bob", "cup", 7],
    ]                           # cy has none; the hat's user 9 is nobody
    assert h.bolt.output_streams("bolt") == {"default": Fields("userId", "name", "item", "price")}


def test_a_left_join_keeps_a_first_stream_tuple_without_match_with_nulls():
    h = users_and_orders(JoinBolt(STREAM, "users", "userId").left_join("orders", "userId", "users")
                         .select("userId, name, item, price"))
    assert rows(h) == [[1, "ann", "ink", 5], [2, "bob", "pen", 3], [2, "bob", "cup", 7], [3, "cy", None, None]]


def test_the_first_stream_drives_the_join_so_swapping_streams_changes_the_order_and_the_left_rows():
    h = users_and_orders(JoinBolt(STREAM, "orders", "userId").left_join("users", "userId", "orders")
                         .select("orderId,name"))
    assert rows(h) == [[10, "bob"], [11, "ann"], [12, "bob"], [13, None]]


def test_nulls_never_join_and_a_row_without_a_key_is_dropped_even_by_a_left_join():
    bolt = (JoinBolt(STREAM, "users", "userId").left_join("orders", "userId", "users").select("name,item")
            .with_tumbling_window(Count(4)))
    h = harness(bolt, "users", "orders")
    feed(h, "users", [(None, "nobody", "x"), (1, "ann", "paris")])
    feed(h, "orders", [(20, None, "ghost", 1), (21, 1, "ink", 2)])
    assert rows(h) == [["ann", "ink"]]  # the null user is dropped, the null order matches nothing


def test_a_join_field_the_stream_lacks_reads_as_null():
    bolt = (JoinBolt(STREAM, "users", "userId").left_join("orders", "user", "users").select("name,item")
            .with_tumbling_window(Count(2)))
    h = harness(bolt, "users", "orders")
    feed(h, "users", [ANN])
    feed(h, "orders", [INK])  # orders have userId, not user: no order ever matches
    assert rows(h) == [["ann", None]]


def test_without_joins_every_first_stream_tuple_is_emitted_null_keys_included():
    h = harness(JoinBolt(STREAM, "users", "userId").select("name, userId").with_tumbling_window(Count(2)), "users")
    feed(h, "users", [ANN, (None, "nobody", "x")])
    assert rows(h) == [["ann", 1], ["nobody", None]]


def test_keys_compare_by_value_lists_and_mappings_by_content():
    bolt = (JoinBolt(STREAM, "users", "userId").join("orders", "userId", "users").select("name,item")
            .with_tumbling_window(Count(5)))
    h = harness(bolt, "users", "orders")
    feed(h, "users", [([1, 2], "pair", "x"), ({"a": 1}, "map", "y"), (3, "three", "z")])
    feed(h, "orders", [(1, [1, 2], "list", 1), (2, 3.0, "float", 1)])
    assert rows(h) == [["pair", "list"], ["three", "float"]]  # 3 == 3.0, as in Python


# Chains of three streams ------------------------------------------------------------------------------------
PEOPLE = [(1, "ann", "paris"), (2, "bob", "oslo"), (3, "cy", "rome"), (4, "di", "paris"), (5, "ed", "nice")]
SHOPS = [(100, "s-paris", "paris"), (101, "s-rome", "rome"), (102, "s-rome2", "rome"), (103, "s-nice", "nice")]
PLACES = [("paris", "FR"), ("rome", "IT"), ("oslo", "NO")]  # no "nice"


def chain(bolt):
    h = harness(bolt.select("name,storeName,country").with_tumbling_window(Count(12)), "users", "stores", "cities")
    feed(h, "cities", PLACES)
    feed(h, "users", PEOPLE)
    feed(h, "stores", SHOPS)
    return rows(h)


def test_an_inner_chain_of_three_streams():
    got = chain(JoinBolt(STREAM, "users", "city").join("stores", "city", "users").join("cities", "cityName", "stores"))
    assert got == [["ann", "s-paris", "FR"], ["cy", "s-rome", "IT"], ["cy", "s-rome2", "IT"], ["di", "s-paris", "FR"]]
    # bob has no shop in oslo; ed's shop is in nice, which no city row names


def test_a_left_chain_drops_the_rows_whose_prior_stream_found_no_match():
    got = chain(JoinBolt(STREAM, "users", "city").left_join("stores", "city", "users")
                .left_join("cities", "cityName", "stores"))
    # bob found no shop, so his row has no stores:city to join cities on: dropped (Storm's rule, not SQL's);
    # ed's shop found no city: kept with a null country
    assert got == [["ann", "s-paris", "FR"], ["cy", "s-rome", "IT"], ["cy", "s-rome2", "IT"],
                   ["di", "s-paris", "FR"], ["ed", "s-nice", None]]


def test_a_left_chain_on_the_first_stream_keeps_every_user():
    got = chain(JoinBolt(STREAM, "users", "city").left_join("stores", "city", "users")
                .left_join("cities", "cityName", "users"))
    assert got == [["ann", "s-paris", "FR"], ["bob", None, "NO"], ["cy", "s-rome", "IT"], ["cy", "s-rome2", "IT"],
                   ["di", "s-paris", "FR"], ["ed", "s-nice", None]]


def test_a_mixed_chain_inner_then_left():
    got = chain(JoinBolt(STREAM, "users", "city").join("stores", "city", "users")
                .left_join("cities", "cityName", "users"))
    assert got == [["ann", "s-paris", "FR"], ["cy", "s-rome", "IT"], ["cy", "s-rome2", "IT"],
                   ["di", "s-paris", "FR"], ["ed", "s-nice", None]]


# Which stream a tuple belongs to: Selector.SOURCE and Selector.STREAM ------------------------------------------
def test_source_selection_joins_by_source_component_whatever_the_stream():
    bolt = (JoinBolt("genders", "id").join("ages", "id", "genders").select("genders:id,gender,age")
            .with_tumbling_window(Count(4)))
    assert bolt.selector is SOURCE
    h = BoltHarness(bolt, fields=("id",), streams=("default", "other"))
    feed_from(h, "genders", "default", ("id", "gender"), (1, "f"))
    feed_from(h, "ages", "other", ("id", "age"), (2, 40))
    feed_from(h, "genders", "other", ("id", "gender"), (2, "m"))  # another stream, the same component
    feed_from(h, "ages", "default", ("id", "age"), (1, 30))
    assert rows(h) == [[1, "f", 30], [2, "m", 40]]


def test_stream_selection_treats_one_stream_from_several_components_as_one():
    bolt = (JoinBolt(STREAM, "stream1", "key1").join("stream2", "userId", "stream1").select("userId,key1,v")
            .with_tumbling_window(Count(3)))
    h = BoltHarness(bolt, fields=("x",), streams=("stream1", "stream2"))
    feed_from(h, "bolt1", "stream1", ("key1", "v"), ("u1", "from bolt1"))
    feed_from(h, "bolt3", "stream2", ("userId",), ("u1",))
    feed_from(h, "bolt2", "stream1", ("key1", "v"), ("u1", "from bolt2"))
    assert rows(h) == [["u1", "u1", "from bolt1"], ["u1", "u1", "from bolt2"]]


# select: field names, qualified fields, nested fields ---------------------------------------------------------
def test_an_unqualified_field_takes_the_first_non_null_value_in_join_order_and_a_qualified_one_its_stream():
    bolt = (JoinBolt(STREAM, "users", "city").join("stores", "city", "users")
            .select("users:city, stores:city, city, userId, storeName, STORES:storeId")
            .with_tumbling_window(Count(3)))
    h = harness(bolt, "users", "stores")
    feed(h, "users", [(None, "nobody", "rome")])
    feed(h, "stores", [(101, "s-rome", "rome"), (None, None, "rome")])
    assert h.bolt.output_streams("bolt")["default"] == Fields(
        "users:city", "stores:city", "city", "userId", "storeName", "STORES:storeId")
    # userId is null in users and absent from stores: null; 'STORES:' matches stream 'stores' (case ignored)
    assert rows(h) == [["rome", "rome", "rome", None, "s-rome", 101], ["rome", "rome", "rome", None, None, None]]


def test_a_null_first_value_falls_through_to_the_next_stream():
    bolt = (JoinBolt(STREAM, "users", "city").join("stores", "city", "users").select("name,storeName")
            .with_tumbling_window(Count(2)))
    h = BoltHarness(bolt, fields={"users": ("city", "name"), "stores": ("city", "name", "storeName")},
                    streams=("users", "stores"))
    h.feed(["rome", None], stream="users")
    h.feed(["rome", "the shop's name", "s-rome"], stream="stores")
    assert rows(h) == [["the shop's name", "s-rome"]]


def test_nested_fields_are_read_through_mappings_in_joins_and_select():
    bolt = (JoinBolt(STREAM, "users", "outer.userId").join("orders", "buyer.id", "users")
            .select("outer.name, orders:buyer.id, outer.missing.deeper, item")
            .with_tumbling_window(Count(4)))
    h = BoltHarness(bolt, fields={"users": ("outer",), "orders": ("buyer", "item")}, streams=("users", "orders"))
    h.feed([{"userId": 1, "name": "ann"}], stream="users")
    h.feed([{"userId": 2, "name": "bob"}], stream="users")
    h.feed([{"id": 2}, "pen"], stream="orders")
    h.feed([None, "lost"], stream="orders")  # a null mapping: its key is null, it matches nothing
    assert rows(h) == [["bob", 2, None, "pen"]]
    assert h.bolt.output_streams("bolt")["default"] == Fields(
        "outer.name", "orders:buyer.id", "outer.missing.deeper", "item")


def test_a_colon_with_no_stream_names_an_unqualified_field():
    bolt = JoinBolt(STREAM, "users", "userId").select(":name, users : city").with_tumbling_window(Count(1))
    h = harness(bolt, "users")
    feed(h, "users", [ANN])
    assert h.bolt.output_streams("bolt") == {"default": Fields("name", "users:city")}
    assert rows(h) == [["ann", "paris"]]


# The output stream -----------------------------------------------------------------------------------------
def test_with_output_stream_declares_and_emits_on_that_stream_only():
    bolt = (JoinBolt(STREAM, "users", "userId").join("orders", "userId", "users").select("name,item")
            .with_output_stream("joined").with_error_stream("bad").with_tumbling_window(Count(2)))
    h = harness(bolt, "users", "orders")
    assert h.bolt.output_streams("bolt") == {"joined": Fields("name", "item"), "bad": Fields(ERROR_FIELDS)}
    feed(h, "users", [ANN])
    feed(h, "orders", [INK])
    assert h.emitted == [("joined", ["ann", "ink"])]


def test_the_output_stream_is_declared_beside_the_late_tuple_stream_and_must_differ_from_it():
    bolt = (JoinBolt(STREAM, "users", "userId").select("name").with_tumbling_window(Duration.seconds(1))
            .with_timestamp_field("ts").with_late_tuple_stream("late"))
    assert bolt.output_streams("j") == {"default": Fields("name"), "late": Fields("late_tuple")}
    with pytest.raises(ValueError, match=re.escape("with_late_tuple_stream: stream 'late' is also declared")):
        copy.deepcopy(bolt).with_output_stream("late").output_streams("j")


# Windows: count and time, sliding and tumbling ---------------------------------------------------------------
def pair_bolt():
    return JoinBolt(STREAM, "users", "userId").join("orders", "userId", "users").select("name,orderId")


def test_a_tumbling_count_window_joins_only_within_each_window():
    h = harness(pair_bolt().with_tumbling_window(Count(3)), "users", "orders")
    h.feed([1, "ann", "x"], stream="users")
    h.feed([10, 1, "a", 1], stream="orders")
    h.feed([11, 2, "b", 1], stream="orders")  # window 1: ann, 10, 11
    h.feed([2, "bob", "y"], stream="users")
    h.feed([12, 1, "c", 1], stream="orders")  # ann is in window 1 only
    h.feed([13, 2, "d", 1], stream="orders")  # window 2: bob, 12, 13
    assert per_window(h) == [[["ann", 10]], [["bob", 13]]]


def test_a_sliding_count_window_joins_again_what_it_still_holds():
    h = harness(pair_bolt().with_window(Count(4), Count(2)), "users", "orders")
    feed(h, "users", [ANN])
    feed(h, "orders", [(20, 1, "a", 1)])       # fires: [ann, 20]
    feed(h, "orders", [(21, 1, "b", 1)])
    feed(h, "users", [(1, "ann2", "x")])       # fires: [ann, 20, 21, ann2]
    feed(h, "orders", [(22, 3, "c", 1), (23, 1, "d", 1)])  # fires: [21, ann2, 22, 23]
    assert [len(w.tuples) for w in h.windows] == [2, 4, 4]
    assert per_window(h) == [
        [["ann", 20]],
        [["ann", 20], ["ann", 21], ["ann2", 20], ["ann2", 21]],  # ann's pair with 20 again: the window slid by 2
        [["ann2", 21], ["ann2", 23]],
    ]


def test_a_tumbling_time_window_joins_the_tuples_of_each_ten_seconds():
    h = harness(pair_bolt().with_tumbling_window(Duration.seconds(10)), "users", "orders")
    h.advance_to(1_000)
    h.feed([1, "ann", "x"], stream="users")
    h.advance_to(4_000)
    h.feed([10, 1, "a", 1], stream="orders")
    h.advance_to(12_000)                       # fires at 10 s: ann and 10
    h.feed([11, 1, "b", 1], stream="orders")   # ann is gone: no pair
    h.advance_to(20_000)
    assert [w.at for w in h.windows] == [10_000, 20_000]
    assert per_window(h) == [[["ann", 10]], []]


def test_a_sliding_time_window_pairs_the_same_tuples_in_every_window_that_holds_both():
    h = harness(pair_bolt().with_window(Duration.seconds(10), Duration.seconds(5)), "users", "orders")
    h.advance_to(1_000)
    h.feed([1, "ann", "x"], stream="users")
    h.advance_to(6_000)
    h.feed([10, 1, "a", 1], stream="orders")
    h.advance_to(20_000)                       # windows at 5, 10 and 15 s (none at 20 s: it holds nothing)
    assert [[t.values[0] for t in w.tuples] for w in h.windows] == [[1], [1, 10], [10]]
    assert per_window(h) == [[], [["ann", 10]], []]


def test_an_event_time_window_joins_by_timestamp_and_leaves_late_tuples_out():
    bolt = (JoinBolt(STREAM, "users", "userId").join("orders", "userId", "users").select("name,orderId")
            .with_tumbling_window(Duration.seconds(10)).with_timestamp_field("ts").with_lag(Duration.seconds(1))
            .with_watermark_interval(Duration.seconds(1)).with_late_tuple_stream("late"))
    h = BoltHarness(bolt, fields={"users": ("userId", "name", "ts"), "orders": ("orderId", "userId", "ts")},
                    streams=("users", "orders"), watermark_per_batch=True)
    h.feed_batch([[1, "ann", 2_000], [2, "bob", 14_000]], stream="users")
    h.feed_batch([[20, 2, 15_000], [21, 1, 9_000]], stream="orders")  # the watermark is now 13 s: [0, 10 s) fires
    h.feed_batch([[22, 1, 3_000]], stream="orders")                  # late: never joins ann
    h.close()
    assert per_window(h) == [[["ann", 21]], [["bob", 20]]]
    assert [late.values for late in h.late] == [(22, 1, 3_000)]


def test_every_window_method_returns_the_join_bolt():
    bolt = JoinBolt(STREAM, "users", "userId")
    configured = (bolt.join("orders", "userId", "users").left_join("stores", "storeId", "orders")
                  .select("name").with_output_stream("out").with_window(Count(5), Duration.seconds(1))
                  .with_tumbling_window(Duration.seconds(5)).with_timestamp_field("ts")
                  .with_lag(Duration.seconds(1)).with_watermark_interval(Duration.seconds(1))
                  .with_late_tuple_stream("late").with_error_stream("bad"))
    assert configured is bolt
    assert isinstance(JoinBolt("a", "k").with_window(Count(3)).with_timestamp_extractor(lambda t: 0), JoinBolt)
    assert bolt.streams == ("users", "orders", "stores")


# Bad configuration: refused at once, naming the method and the value --------------------------------------------
@pytest.mark.parametrize(
    ("configure", "error", "message"),
    [
        (lambda: JoinBolt("STREAM", "users", "userId"), TypeError,
         "JoinBolt: `selector` must be JoinBolt.Selector.STREAM or JoinBolt.Selector.SOURCE; got 'STREAM' (str)"),
        (lambda: JoinBolt(STREAM, "users"), TypeError,
         "JoinBolt: expects (src_or_stream_id, field_name) or (selector, src_or_stream_id, field_name); got "
         "(<Selector.STREAM: 'stream'>, 'users')"),
        (lambda: JoinBolt("users"), TypeError, "JoinBolt: expects (src_or_stream_id, field_name)"),
        (lambda: JoinBolt(3, "userId"), TypeError, "JoinBolt: `src_or_stream_id` must be a str; got 3 (int) instead"),
        (lambda: JoinBolt("users", None), TypeError, "JoinBolt: `field_name` must be a str; got None (NoneType)"),
        (lambda: JoinBolt("users", " "), ValueError, "JoinBolt: `field_name` must not be empty; got ' '"),
        (lambda: JoinBolt("users", "users:userId"), ValueError,
         "JoinBolt: join field 'users:userId' of stream 'users' must not name a stream (no ':')"),
        (lambda: JoinBolt("users", "outer..id"), ValueError,
         "JoinBolt: field 'outer..id' has an empty name before, between or after its dots"),
        (lambda: JoinBolt("users", "id").join("users", "id", "users"), ValueError,
         "join: stream 'users' is already part of the join ('users'); join a stream only once"),
        (lambda: JoinBolt("a", "id").join("b", "id", "a").left_join("b", "id", "a"), ValueError,
         "left_join: stream 'b' is already part of the join ('a', 'b')"),
        (lambda: JoinBolt("a", "id").join("c", "id", "b"), ValueError,
         "join: prior stream 'b' is not part of the join yet; the join has 'a'; a stream must be introduced"),
        (lambda: JoinBolt("a", "id").left_join("A", "id", "a"), ValueError,
         "left_join: stream 'A' differs only in case from 'a', already in the join"),
        (lambda: JoinBolt("a", "id").join("b", "b:id", "a"), ValueError,
         "join: join field 'b:id' of stream 'b' must not name a stream (no ':')"),
        (lambda: JoinBolt("a", "id").join("b", "id.", "a"), ValueError,
         "join: field 'id.' has an empty name before, between or after its dots"),
        (lambda: JoinBolt("a", "id").join(["b"], "id", "a"), TypeError,
         "join: `new_stream` must be a str; got ['b'] (list) instead"),
        (lambda: JoinBolt("a", "id").left_join("b", 7, "a"), TypeError,
         "left_join: `field` must be a str; got 7 (int) instead"),
        (lambda: JoinBolt("a", "id").join("b", "id", ""), ValueError, "join: `prior_stream` must not be empty"),
        (lambda: JoinBolt("a", "id").select(["id"]), TypeError,
         "select: `comma_separated_keys` must be a str like 'userId, ads:userId'; got ['id'] (list) instead"),
        (lambda: JoinBolt("a", "id").select(""), ValueError, "select: field 1 of '' is empty"),
        (lambda: JoinBolt("a", "id").select("id,,name"), ValueError, "select: field 2 of 'id,,name' is empty"),
        (lambda: JoinBolt("a", "id").select("id,"), ValueError, "select: field 2 of 'id,' is empty"),
        (lambda: JoinBolt("a", "id").select("a:"), ValueError, "select: 'a:' in 'a:' names no field after the ':'"),
        (lambda: JoinBolt("a", "id").select("x.y.,id"), ValueError,
         "select: field 'x.y.,id' has an empty name before, between or after its dots"),
        (lambda: JoinBolt("a", "id").select("id, name, id"), ValueError,
         "select: 'id' selected more than once in 'id, name, id'; output field names must be distinct"),
        (lambda: JoinBolt("a", "id").select("a:id, a : id"), ValueError, "select: 'a:id' selected more than once"),
        (lambda: JoinBolt("a", "id").with_output_stream(None), TypeError,
         "with_output_stream: `stream_name` must be a str; got None (NoneType) instead"),
        (lambda: JoinBolt("a", "id").with_output_stream(""), ValueError,
         "with_output_stream: `stream_name` must not be empty"),
        (lambda: JoinBolt("a", "id").with_window(Count(0)), ValueError,
         "with_window: `window_length` must be positive; got Count(0) instead"),
    ],
)
def test_bad_configuration_is_refused_at_once(configure, error, message):
    with pytest.raises(error, match=re.escape(message)):
        configure()


@pytest.mark.parametrize(
    ("bolt", "message"),
    [
        (JoinBolt(STREAM, "users", "userId").join("orders", "userId", "users"),
         "select: the JoinBolt of 'users', 'orders' has no output fields; call .select('field1, stream2:field2, ...')"),
        (JoinBolt(STREAM, "users", "userId").join("orders", "userId", "users").select("name, clicks:at"),
         "select: 'clicks:at' names stream 'clicks', which is not part of the join; the joined streams are: "
         "'users', 'orders'"),
    ],
)
def test_a_select_missing_or_naming_a_stream_outside_the_join_is_refused_when_built(bolt, message, tmp_path):
    bolt = bolt.with_tumbling_window(Count(2))
    with pytest.raises(ValueError, match=re.escape(message)):
        harness(copy.deepcopy(bolt), "users", "orders")
    builder = TopologyBuilder()
    builder.set_spout("users", FileSpout(tmp_path, "json", USERS, schema="userId INT, name STRING, city STRING",
                                         stream="users"))
    builder.set_spout("orders", FileSpout(tmp_path, "json", ORDERS, stream="orders",
                                          schema="orderId INT, userId INT, item STRING, price INT"))
    builder.set_bolt("join", bolt).fields_grouping("users", Fields("userId"), "users") \
        .fields_grouping("orders", Fields("userId"), "orders")
    with pytest.raises(ValueError, match=re.escape(message)):
        builder.create_topology()


def test_a_well_configured_join_builds_into_a_topology(tmp_path):
    builder = TopologyBuilder()
    builder.set_spout("genders", FileSpout(tmp_path, "json", ("id", "gender"), schema="id INT, gender STRING"))
    builder.set_spout("ages", FileSpout(tmp_path, "json", ("id", "age"), schema="id INT, age INT"))
    joiner = (JoinBolt("genders", "id").join("ages", "id", "genders").select("genders:id,ages:id,gender,age")
              .with_tumbling_window(Duration.seconds(10)))
    builder.set_bolt("joiner", joiner).fields_grouping("genders", Fields("id")).fields_grouping("ages", Fields("id"))
    topology = builder.create_topology()
    assert topology.streams["joiner"] == {"default": Fields("genders:id", "ages:id", "gender", "age")}


# Bad tuples at run time: TupleError, or the error stream -------------------------------------------------------
def test_a_tuple_from_a_stream_outside_the_join_fails_the_window_naming_bolt_stream_and_tuple():
    bolt = pair_bolt().with_tumbling_window(Count(2))
    h = BoltHarness(bolt, fields={"users": USERS, "orders": ORDERS, "clicks": ("userId",)},
                    streams=("users", "orders", "clicks"), component="joiner")
    h.feed([1, "ann", "x"], stream="users")
    with pytest.raises(TupleError, match=re.escape(
            "JoinBolt: bolt 'joiner' got a tuple from stream 'clicks', which is not part of the join ('users', "
            "'orders'); tuple: Tuple(spout:clicks, {'userId': 1})")):
        h.feed([1], stream="clicks")


def test_a_selector_that_does_not_fit_the_tuples_says_which_would():
    h = harness(JoinBolt("users", "userId").select("name").with_tumbling_window(Count(1)), "users")
    with pytest.raises(TupleError, match=re.escape(
            "got a tuple from source component 'spout', which is not part of the join ('users') (its stream is "
            "'users': did you mean JoinBolt.Selector.STREAM?)")):
        feed(h, "users", [ANN])


class Unhashable:
    __hash__ = None

    def __repr__(self):
        return "<unhashable>"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (["not a mapping", "pen"], "JoinBolt: bolt 'bolt' reads join field 'buyer.id', but 'buyer' holds "
                                   "'not a mapping' (str), which is not a mapping; tuple: Tuple(spout:orders, "),
        ([{"id": {"x": 1}}, {"sku": 5}], "JoinBolt: bolt 'bolt' reads selected field 'item.sku.code', but "
                                         "'item.sku' holds 5 (int), which is not a mapping"),
        ([{"id": Unhashable()}, "x"], "JoinBolt: bolt 'bolt' joins on field 'buyer.id', whose value <unhashable> "
                                      "(Unhashable) cannot be compared as a key; tuple: Tuple(spout:orders, "),
    ],
)
def test_a_field_that_cannot_be_read_is_a_tuple_error(row, message):
    bolt = (JoinBolt(STREAM, "users", "userId").join("orders", "buyer.id", "users").select("name, item.sku.code")
            .with_tumbling_window(Count(1)))
    h = BoltHarness(bolt, fields={"users": USERS, "orders": ("buyer", "item")}, streams=("users", "orders"))
    with pytest.raises(TupleError, match=re.escape(message)):
        h.feed(row, stream="orders")


def test_with_an_error_stream_a_bad_tuple_is_emitted_there_once_and_left_out_of_every_join():
    bolt = pair_bolt().with_window(Count(3), Count(1)).with_error_stream("bad")
    h = BoltHarness(bolt, fields={"users": USERS, "orders": ORDERS, "clicks": ("userId",)},
                    streams=("users", "orders", "clicks"), component="joiner")
    h.feed([1, "ann", "x"], stream="users")
    clicked = h.feed([1], stream="clicks")       # in three windows, reported in the first
    h.feed([10, 1, "a", 1], stream="orders")
    h.feed([11, 1, "b", 1], stream="orders")
    reason = ("JoinBolt: bolt 'joiner' got a tuple from stream 'clicks', which is not part of the join ('users', "
              "'orders'); tuple: Tuple(spout:clicks, {'userId': 1})")
    assert h.emitted == [("bad", [clicked, "joiner", reason]), ("default", ["ann", 10])]
    assert per_window(h, "bad") == [[], [[clicked, "joiner", reason]], [], []]


# The property: the bolt's rows are a nested-loop join of each window's tuples ------------------------------------
def read(tup, path):
    value = tup.get(path[0])
    for name in path[1:]:
        value = None if value is None else value.get(name)
    return value


def naive_join(tuples, clauses, select, by_source=False):
    """``clauses``: ``(stream, key field, prior stream or None, "inner"|"left")``; ``select``: ``(stream|None, field)``.

    Rows are dicts stream -> tuple (None for a left join's miss), built in join order by nested loops. A tuple's
    stream is its stream id, or with ``by_source`` its source component.
    """
    key_of = {stream: key for stream, key, _, _ in clauses}
    name = (lambda t: t.source_component) if by_source else (lambda t: t.stream)
    of_stream = {stream: [t for t in tuples if name(t) == stream] for stream in key_of}
    first = clauses[0][0]
    joined = [{first: t} for t in of_stream[first]]
    for stream, key, prior, how in clauses[1:]:
        step = []
        for row in joined:
            wanted = None if row[prior] is None else read(row[prior], (key_of[prior],))
            if wanted is None:
                continue
            matches = [t for t in of_stream[stream] if read(t, (key,)) == wanted]
            step += [{**row, stream: t} for t in matches] or ([{**row, stream: None}] if how == "left" else [])
        joined = step
    out = []
    for row in joined:
        values = []
        for qualifier, field in select:
            found = [read(row[s], (field,)) for s in key_of if row[s] is not None and qualifier in (None, s)]
            values.append(next((v for v in found if v is not None), None))
        out.append(values)
    return out


NAMES = ("a", "b", "c")
KEYS = st.sampled_from([None, 0, 1, 2])


@st.composite
def joins(draw):
    n = draw(st.integers(1, 3))
    clauses = [("a", "k", None, None)]
    for i in range(1, n):
        clauses.append((NAMES[i], draw(st.sampled_from(["k", "j"])), NAMES[draw(st.integers(0, i - 1))],
                        draw(st.sampled_from(["inner", "left"]))))
    options = [(None, "k"), (None, "v"), (None, "j"), *[(s, f) for s in NAMES[:n] for f in ("k", "v")]]
    select = draw(st.lists(st.sampled_from(options), min_size=1, max_size=4, unique=True))
    tuples = draw(st.lists(st.tuples(st.sampled_from(NAMES[:n]), KEYS, KEYS, st.integers(0, 9)), max_size=14))
    window = draw(st.sampled_from([(Count(20), None), (Count(4), Count(2)), (Count(3), Count(3)), (Count(5), None)]))
    return draw(st.sampled_from([STREAM, SOURCE])), clauses, select, tuples, window


@settings(max_examples=100, deadline=None)
@given(joins())
def test_every_window_gives_the_nested_loop_join_of_its_tuples(case):
    selector, clauses, select, tuples, (length, slide) = case
    bolt = JoinBolt(selector, "a", "k")
    for stream, key, prior, how in clauses[1:]:
        bolt = bolt.join(stream, key, prior) if how == "inner" else bolt.left_join(stream, key, prior)
    bolt.select(", ".join(field if s is None else f"{s}:{field}" for s, field in select))
    bolt = bolt.with_window(length, slide) if slide is not None else bolt.with_tumbling_window(length)
    if selector is STREAM:
        h = BoltHarness(bolt, fields=("k", "j", "v"), streams=tuple(c[0] for c in clauses))
        for stream, k, j, v in tuples:
            h.feed([k, j, v], stream=stream)
    else:  # every tuple on the default stream, from the component named like its stream of the join
        h = BoltHarness(bolt, fields=("k", "j", "v"))
        for component, k, j, v in tuples:
            feed_from(h, component, "default", ("k", "j", "v"), (k, j, v))
    h.close()
    assert per_window(h) == [naive_join(w.tuples, clauses, select, selector is SOURCE) for w in h.windows]


def test_subscriptions_must_be_exactly_the_joined_streams_when_built(tmp_path):
    def build(subscribe, selector=None):
        builder = TopologyBuilder()
        for name in ("genders", "ages", "other"):
            builder.set_spout(name, FileSpout(tmp_path, "json", ("id", "v"), schema="id INT, v STRING"))
        joiner = (JoinBolt("genders", "id") if selector is None else JoinBolt(selector, "genders", "id"))
        joiner = joiner.join("ages", "id", "genders").select("genders:id,v").with_tumbling_window(Count(2))
        declarer = builder.set_bolt("joiner", joiner)
        for component in subscribe:
            declarer.shuffle_grouping(component)
        return builder.create_topology()

    build(["genders", "ages"])
    with pytest.raises(ValueError, match=r"JoinBolt: bolt 'joiner' joins 'genders', 'ages' \(by source component\) "
                                         r"but does not subscribe to 'ages'"):
        build(["genders"])
    with pytest.raises(ValueError, match=r"subscribes to other:default, whose source component is not one it joins"):
        build(["genders", "ages", "other"])
    with pytest.raises(ValueError, match=r"\(by stream id\) but does not subscribe to 'genders', 'ages'"):
        build(["genders", "ages"], JoinBolt.Selector.STREAM)
