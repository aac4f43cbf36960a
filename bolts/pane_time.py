"""Panes carry their time: a windowed bolt fed only panes takes each pane's ``timestamp`` as its event time.

A *pane stream* is one that declares ``window_start``, ``window_end`` and
``timestamp``, as every ``WindowedAggregateBolt`` (and ``WindowedJoinBolt``)
pane stream does. The bolt that emitted a pane stamped it with its event time,
by default the window's last instant ``window_end - 1`` (see
:data:`PANE_TIME_FIELD`), so re-aggregating panes in that time puts each pane
back in the window it came from, and its lateness is judged as upstream judged
its tuples'.

:func:`with_pane_time` is applied where a bolt meets its inputs: by
``TopologyBuilder.create_topology`` (so driver and distributed placements, and
Spark Connect, run the same resolved bolt) and by ``BoltHarness``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import TypeVar

from bolts.base_bolt import BaseBolt
from bolts.event_time_options import EventTimeOptions

#: The field a pane carries its event time in, epoch milliseconds. ``with_timestamp_combiner`` chooses it; its
#: default, ``"end_of_window"``, is ``window_end - 1``: Beam's ``IntervalWindow.maxTimestamp()`` (Beam's default
#: ``TimestampCombiner.END_OF_WINDOW``), and Spark's ``window_time(window)``, which is ``window.end`` minus one
#: microsecond (Spark's smallest unit; pyspark.sql.functions.window_time, and
#: https://docs.databricks.com/sql/language-manual/functions/window_time.html): squall floors sub-millisecond
#: parts, so a Spark window's time read by squall is also ``end - 1``. The last instant *inside* the
#: end-exclusive window, so a pane re-windowed by the same windows lands in the one it came from.
PANE_TIME_FIELD = "timestamp"

#: The fields that make a stream a pane stream: its window bounds and its time.
PANE_TIME_FIELDS = ("window_start", "window_end", PANE_TIME_FIELD)

B = TypeVar("B", bound=BaseBolt)


def carries_pane_time(fields: Iterable[str]) -> bool:
    """Whether a stream with ``fields`` is a pane stream: it declares every one of :data:`PANE_TIME_FIELDS`."""
    names = set(fields)
    return all(name in names for name in PANE_TIME_FIELDS)


def with_pane_time(component: str, bolt: B, inputs: Mapping[str, Iterable[str]]) -> B:
    """``bolt`` as it runs on input streams with ``inputs``' fields (``"component:stream"`` to fields).

    A bolt with event-time settings (a windowed or aggregate bolt), no
    timestamp field or extractor, and only pane streams as inputs is returned
    as a copy taking its event time from :data:`PANE_TIME_FIELD` and, where
    the bolt supports it (``WindowedAggregateBolt``), its watermark from
    upstream alone (:class:`bolts.aggregate.input_watermarks.InputWatermarks`);
    the bolt passed in is left as configured. Any other bolt is returned as it is.
    No inputs: nothing to take time from, the bolt as it is.

    ``ValueError`` (:func:`refuse_ingress_time`) when a bolt that needs event
    time (an aggregation without ``with_windows``, or under
    ``with_spark_semantics()``) would otherwise take ingress time.
    """
    if not isinstance(bolt, EventTimeOptions) or bolt._timestamp_source() is not None or not inputs:
        return bolt
    lacking = {name: [f for f in PANE_TIME_FIELDS if f not in set(fields)] for name, fields in inputs.items()}
    lacking = {name: missing for name, missing in lacking.items() if missing}
    if not lacking:
        resolved = copy.deepcopy(bolt)
        resolved.with_timestamp_field(PANE_TIME_FIELD)
        return resolved._watermark_from_upstream()
    refuse_ingress_time(bolt, component, lacking)
    return bolt


def refuse_ingress_time(bolt: EventTimeOptions, component: str, lacking: Mapping[str, list[str]] | None = None) -> None:
    """``ValueError`` when ``bolt`` needs event time (``_event_time_need``) and has no timestamp field or extractor.

    The message names the method that makes it need event time, the bolt, and
    each input in ``lacking`` with the pane fields it does not declare (when the
    inputs are known). Nothing when the bolt has a time of its own or can run on
    ingress time.
    """
    need = bolt._event_time_need()
    if need is None or bolt._timestamp_source() is not None:
        return
    method, why = need
    who = f"bolt {component!r}" if component else "the bolt"
    inputs = ""
    if lacking:
        inputs = " and " + "; ".join(f"{name} is no pane stream (it lacks {', '.join(missing)})"
                                     for name, missing in lacking.items())
    msg = (
        f"{method}: {who} {why}, but it has no timestamp field or extractor{inputs}, so it would take ingress "
        "time; call with_timestamp_field(...) or with_timestamp_extractor(...), or subscribe it only to panes "
        f"(streams declaring {', '.join(PANE_TIME_FIELDS)}, as a WindowedAggregateBolt's do), whose "
        f"{PANE_TIME_FIELD!r} is then its event time"
    )
    raise ValueError(msg)
