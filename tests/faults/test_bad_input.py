"""Bad input has a documented place: an error stream, a counted drop, or a failure naming the record; never nulls.

On local Spark, over JSON and CSV files that mix good rows with the three classes of
bad record the issue names (a line that is not JSON, a CSV row with too few columns, a
timestamp "soon" under a BIGINT schema), in each of FileSpout's modes; and a tuple a
bolt rejects (a null timestamp) on the bolt's error stream, in driver and distributed
mode and in BoltHarness, or failing the batch with its values.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from bolts import BaseBolt, Fields, Tuple, TupleError
from tests.topologies.helpers import Record
from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import FileSpout, MalformedRecordError
from topologies.testing import BoltHarness
from windowing import Duration

SCHEMA = "key STRING, ts BIGINT, value BIGINT"
FIELDS = ("key", "ts", "value")
NOT_JSON = '{"key": "b", "ts": '
SOON_JSON = '{"key": "c", "ts": "soon", "value": 3}'
NO_TS_JSON = '{"key": "e", "value": 5}'  # well-formed JSON: its ts is null, which the event-time bolt rejects
JSON_LINES = ['{"key": "a", "ts": 1000, "value": 1}', NOT_JSON, SOON_JSON, '{"key": "d", "ts": 2000, "value": 4}',
              NO_TS_JSON]
CSV_LINES = ["key,ts,value", "a,1000,1", "b,2000", "c,soon,3", "d,2000,4"]
WINDOW = [0, 10_000, [1, 4], 2, 0]  # what the good rows give: one 10 s window holding a and d
NO_TS = Tuple(["e", None, 5], Fields(FIELDS), "default", "j")
BAD_TS = "with_timestamp_field: the timestamp in 'ts' must be an int of epoch milliseconds or a datetime; got "
NO_TS_REASON = f"{BAD_TS}None (NoneType) in Tuple(j:default, {{'key': 'e', 'ts': None, 'value': 5}})"


class ErrorSink(BaseBolt):
    """Subscribes to a spout's error stream and re-emits each record: a bolt can take malformed input."""

    def execute(self, input):
        self.collector.emit([input["raw"], input["file"], input["reason"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("raw", "file", "reason"))


def write_files(root: Path) -> tuple[Path, Path]:
    (root / "json").mkdir(parents=True)
    (root / "csv").mkdir(parents=True)
    (root / "json" / "part.json").write_text("\n".join(JSON_LINES) + "\n", encoding="utf-8")
    (root / "csv" / "part.csv").write_text("\n".join(CSV_LINES) + "\n", encoding="utf-8")
    return root / "json" / "part.json", root / "csv" / "part.csv"


def window_bolt():
    return Record().with_tumbling_window(Duration.seconds(10)).with_timestamp_field("ts").with_error_stream("rejected")


def topology(root: Path, mode: str = "PERMISSIVE", formats=("json", "csv")):
    b = TopologyBuilder()
    for fmt in formats:
        sid = fmt[0]  # "j", "c"
        b.set_spout(sid, FileSpout(root / fmt, fmt, FIELDS, schema=SCHEMA, mode=mode))
        b.set_bolt(f"w{sid}", window_bolt()).shuffle_grouping(sid)
    if mode == "PERMISSIVE" and "csv" in formats:
        b.set_bolt("sink", ErrorSink()).shuffle_grouping("c", "errors")
        # Fewer fields than the schema has: Spark alone would prune the other columns and miss the short row.
        b.set_spout("s", FileSpout(root / "csv", "csv", ("key", "ts"), schema=SCHEMA, mode=mode))
    return b.create_topology()


def run(spark, root: Path, topo, name: str, **runner):
    handle = SparkRunner(spark, checkpoint_location=root / f"ck-{name}", **runner).submit(name, topo, True)
    assert handle.await_termination(120)
    return [(o.component, o.stream, o.values) for o in handle.outputs()]


@pytest.fixture(scope="module")
def permissive(spark, tmp_path_factory):
    """The outputs of one PERMISSIVE run (the default mode) over both files, and the files."""
    root = tmp_path_factory.mktemp("permissive")
    json_file, csv_file = write_files(root)
    return run(spark, root, topology(root), "permissive"), json_file.as_uri(), csv_file.as_uri()


# One test per class of bad record: each goes to the spout's error stream, exactly, and nothing turns into nulls.
def test_a_line_that_is_not_json_goes_to_the_error_stream(permissive):
    outputs, json_file, _ = permissive
    errors = [values for component, stream, values in outputs if (component, stream) == ("j", "errors")]
    assert errors[0] == [NOT_JSON, json_file, "malformed JSON: Expecting value: line 1 column 20 (char 19)"]


def test_a_csv_row_with_too_few_columns_goes_to_the_error_stream_a_bolt_subscribes_to(permissive):
    outputs, _, csv_file = permissive
    sunk = [values for component, _, values in outputs if component == "sink"]
    assert sunk == [["b,2000", csv_file, "CSV row has 2 columns, expected 3 (key, ts, value)"],
                    ["c,soon,3", csv_file, "value 'soon' of field 'ts' is not a BIGINT"]]
    assert not [o for o in outputs if o[:2] == ("c", "errors")]  # subscribed: no longer a topology output


def test_the_whole_row_is_checked_even_when_the_spout_declares_fewer_fields(permissive):
    outputs, _, csv_file = permissive
    assert [values for component, stream, values in outputs if (component, stream) == ("s", "errors")] == [
        ["b,2000", csv_file, "CSV row has 2 columns, expected 3 (key, ts, value)"],
        ["c,soon,3", csv_file, "value 'soon' of field 'ts' is not a BIGINT"]]
    assert [values for component, stream, values in outputs if (component, stream) == ("s", "default")] == [
        ["a", 1_000], ["d", 2_000]]


def test_a_timestamp_soon_under_a_bigint_schema_goes_to_the_error_stream_with_its_value(permissive):
    outputs, json_file, _ = permissive
    errors = [values for component, stream, values in outputs if (component, stream) == ("j", "errors")]
    assert errors[1:] == [[SOON_JSON, json_file, "value 'soon' of field 'ts' is not a BIGINT"]]


def test_good_rows_still_give_their_windows_and_a_rejected_tuple_goes_to_the_bolt_error_stream(permissive):
    outputs, _, _ = permissive
    assert [(c, values) for c, stream, values in outputs if stream == "default" and c in ("wj", "wc")] == [
        ("wj", WINDOW), ("wc", WINDOW)]
    assert [values for c, stream, values in outputs if stream == "rejected"] == [[NO_TS, "wj", NO_TS_REASON]]
    assert len(outputs) == 2 + 2 + 2 + 2 + 2 + 1  # json, csv (sunk), subset errors and rows, windows, a rejection


def test_dropmalformed_drops_the_bad_records_and_counts_them(spark, tmp_path, caplog):
    write_files(tmp_path)
    with caplog.at_level(logging.WARNING, logger="squall.spouts"):
        outputs = run(spark, tmp_path, topology(tmp_path, "DROPMALFORMED"), "dropmalformed")
    assert [(c, s, v) for c, s, v in outputs if s != "rejected"] == [("wj", "default", WINDOW),
                                                                      ("wc", "default", WINDOW)]
    warnings = sorted(r.getMessage() for r in caplog.records if r.name == "squall.spouts")
    assert len(warnings) == 2
    assert warnings[0].startswith("FileSpout 'c': dropped 2 malformed csv record(s) of this batch "
                                  "(mode='DROPMALFORMED'); the first, in file://")
    assert "'b,2000' (CSV row has 2 columns, expected 3 (key, ts, value))" in warnings[0]
    assert warnings[1].startswith("FileSpout 'j': dropped 2 malformed json record(s)")


@pytest.mark.parametrize(("fmt", "raw", "reason"), [
    ("json", NOT_JSON, "malformed JSON: Expecting value: line 1 column 20 (char 19)"),
    ("csv", "b,2000", "CSV row has 2 columns, expected 3 (key, ts, value)"),
])
def test_failfast_fails_the_query_naming_the_file_and_the_record(spark, tmp_path, fmt, raw, reason):
    files = dict(zip(("json", "csv"), write_files(tmp_path), strict=True))
    handle = SparkRunner(spark, checkpoint_location=tmp_path / "ck").submit(
        f"failfast-{fmt}", topology(tmp_path, "FAILFAST", (fmt,)), True)
    with pytest.raises(MalformedRecordError) as info:
        handle.await_termination(120)
    assert str(info.value) == (
        f"FileSpout '{fmt[0]}': malformed {fmt} record in {files[fmt].as_uri()}: {raw!r} ({reason}); "
        f"2 malformed records in this batch. mode='FAILFAST' stops the query at the first one; with "
        "mode='PERMISSIVE' (the default) they go to the spout's error stream instead")
    assert handle.outputs() == []


def test_without_an_error_stream_a_rejected_tuple_fails_the_query_naming_its_values(spark, tmp_path):
    write_files(tmp_path)
    b = TopologyBuilder()
    b.set_spout("j", FileSpout(tmp_path / "json", "json", FIELDS, schema=SCHEMA))
    b.set_bolt("w", Record().with_tumbling_window(Duration.seconds(10)).with_timestamp_field("ts")).shuffle_grouping(
        "j")
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck")
    handle = runner.submit("no-error-stream", b.create_topology(), True)
    with pytest.raises(TupleError, match=re.escape(NO_TS_REASON)):
        handle.await_termination(120)
    assert handle.outputs() == []


def test_distributed_mode_routes_bad_input_as_driver_mode_does(spark, tmp_path, permissive, redis_url):
    write_files(tmp_path)
    outputs = run(spark, tmp_path, topology(tmp_path), "distributed", mode="distributed", state=redis_url)
    expected, json_file, csv_file = permissive
    here = {json_file: (tmp_path / "json" / "part.json").as_uri(), csv_file: (tmp_path / "csv" / "part.csv").as_uri()}
    expected = [(c, s, [here.get(v, v) if isinstance(v, str) else v for v in values]) for c, s, values in expected]
    assert sorted(map(repr, outputs)) == sorted(map(repr, expected))


# The same bolt in BoltHarness: the rejected tuple is recorded, emitted, and the windows are unchanged.
def test_the_harness_records_rejected_tuples_on_the_error_stream():
    h = BoltHarness(window_bolt(), fields=FIELDS, source_component="j", component="wj")
    h.feed_batch([["a", 1_000, 1], ["e", None, 5], ["x", "soon", 6], ["d", 2_000, 4]])
    h.close()
    bad = Tuple(["x", "soon", 6], Fields(FIELDS), "default", "j")
    assert h.rejected == [NO_TS, bad]
    assert [values for stream, values in h.emitted if stream == "rejected"] == [
        [NO_TS, "wj", NO_TS_REASON],
        [bad, "wj", f"{BAD_TS}'soon' (str) in Tuple(j:default, {{'key': 'x', 'ts': 'soon', 'value': 6}})"]]
    assert [values for stream, values in h.emitted if stream == "default"] == [WINDOW]


def test_the_harness_without_an_error_stream_raises_the_tuple_error_naming_the_values():
    bolt = Record().with_tumbling_window(Duration.seconds(10)).with_timestamp_field("ts")
    h = BoltHarness(bolt, fields=FIELDS, source_component="j")
    with pytest.raises(TupleError, match=re.escape(NO_TS_REASON)):
        h.feed(["e", None, 5])


# Refused when the spout is made: a message naming FileSpout, the parameter and the value.
@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"mode": "LENIENT"}, ValueError,
     "FileSpout: `mode` must be one of 'PERMISSIVE', 'DROPMALFORMED', 'FAILFAST'; got 'LENIENT' instead"),
    ({"mode": 1}, TypeError,
     "FileSpout: `mode` must be a str, one of 'PERMISSIVE', 'DROPMALFORMED', 'FAILFAST'; got 1 (int) instead"),
    ({"format": "parquet", "mode": "FAILFAST"}, ValueError,
     "FileSpout: `mode` applies to json and csv files only; got mode='FAILFAST' with format='parquet'"),
    ({"mode": "DROPMALFORMED", "error_stream": "bad"}, ValueError,
     "FileSpout: `error_stream` applies to mode='PERMISSIVE' on json and csv files; got error_stream='bad' but "
     "mode='DROPMALFORMED'"),
    ({"format": "parquet", "error_stream": "bad"}, ValueError,
     "got error_stream='bad' but format='parquet' has no malformed records"),
    ({"error_stream": ""}, TypeError, "FileSpout: `error_stream` must be a non-empty str; got '' instead"),
    ({"stream": "errors"}, ValueError, "FileSpout: `error_stream` must differ from `stream`; both are 'errors'"),
])
def test_bad_modes_and_error_streams_are_refused_when_the_spout_is_made(kwargs, error, message):
    args = {"format": "json", **kwargs}
    with pytest.raises(error, match=re.escape(message)):
        FileSpout("/unused", args.pop("format"), FIELDS, **args)


def test_the_spout_declares_its_error_stream_and_accepts_the_modes_in_any_case():
    assert FileSpout("/unused", "csv", FIELDS).output_streams() == {
        "default": Fields(FIELDS), "errors": Fields("raw", "file", "reason")}
    assert FileSpout("/unused", "json", FIELDS, error_stream="bad").output_streams()["bad"] == Fields(
        "raw", "file", "reason")
    assert list(FileSpout("/unused", "json", FIELDS, mode="failfast").output_streams()) == ["default"]
    assert list(FileSpout("/unused", "parquet", FIELDS).output_streams()) == ["default"]


COLUMNS = [{"name": "key", "type": "STRING", "null": False}, {"name": "ts", "type": "BIGINT", "null": True},
           {"name": "value", "type": "BIGINT", "null": False}]


@pytest.mark.parametrize(("fmt", "raw", "columns", "expected"), [
    ("csv", 'd,4000,5,"y,z"', COLUMNS, "CSV row has 4 columns, expected 3 (key, ts, value)"),
    ("csv", "f,,6", COLUMNS, "the record does not fit the schema (key STRING, ts BIGINT, value BIGINT)"),
    ("json", '{"key": "h", "ts": 8000.5, "value": 8}', COLUMNS, "value 8000.5 of field 'ts' is not a BIGINT"),
    ("json", '{"key": "j", "ts": true, "value": 10}', COLUMNS, "value true of field 'ts' is not a BIGINT"),
    ("json", "5", [{**c, "null": True} for c in COLUMNS], "malformed JSON: a line must hold one JSON object; got 5"),
    ("json", "{'key': 'q', 'ts': 'soon'}", COLUMNS,  # JSON Spark reads (single quotes) but Python does not
     "the record does not fit the schema (key STRING, ts BIGINT, value BIGINT)"),
])
def test_the_reason_names_what_is_wrong_and_is_never_empty(fmt, raw, columns, expected):
    from topologies.spouts.malformed import reason

    assert reason(fmt, raw, columns) == expected
