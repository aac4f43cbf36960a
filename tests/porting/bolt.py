# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/bolt/: PrinterBolt.java,
# SlidingWindowSumBolt.java, WordCountBolt.java, RollingCountBolt.java, RollingCountAggBolt.java,
# AbstractRankerBolt.java, IntermediateRankingsBolt.java and TotalRankingsBolt.java, one class each, in the Java
# files' structure and method order.
#
# The changes are spelling (overloaded constructors as default arguments, field initialisers in __init__, private
# fields with a leading underscore, log4j's Logger as logging, abstract methods with abc), except:
# - PrinterBolt prints each tuple as Storm's does, and also emits it (one field, "tuple"): in squall what no bolt
#   subscribes to is the topology's output, which the runs are checked against.
"""storm-starter's bolts: a printer, a sliding-window sum, a word count, and the rolling top-N bolts."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Any

from squall import (
    BaseBasicBolt,
    BaseRichBolt,
    BaseWindowedBolt,
    BasicOutputCollector,
    Config,
    Fields,
    OutputCollector,
    OutputFieldsDeclarer,
    TopologyContext,
    Tuple,
    TupleUtils,
    TupleWindow,
)
from tests.porting.tools import (
    NthLastModifiedTimeTracker,
    Rankable,
    RankableObjectWithFields,
    Rankings,
    SlidingWindowCounter,
)


class PrinterBolt(BaseBasicBolt):
    """Prints every tuple (and emits it: see the header)."""

    def execute(self, tuple: Tuple, collector: BasicOutputCollector) -> None:
        """Print the tuple."""
        print(tuple)
        collector.emit([tuple])

    def declare_output_fields(self, ofd: OutputFieldsDeclarer) -> None:
        """The printed tuple (Storm's declares nothing)."""
        ofd.declare(Fields("tuple"))


class SlidingWindowSumBolt(BaseWindowedBolt):
    """Computes sliding window sum."""

    LOG = logging.getLogger("SlidingWindowSumBolt")
    _collector: OutputCollector

    def __init__(self) -> None:
        self._sum = 0

    def prepare(self, topo_conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
        """Keep the collector."""
        self._collector = collector

    def execute(self, input_window: TupleWindow) -> None:
        """Add the new tuples' values to the sum, subtract the expired ones', emit the sum."""
        # The inputWindow gives a view of
        # (a) all the events in the window
        # (b) events that expired since last activation of the window
        # (c) events that newly arrived since last activation of the window
        tuples_in_window = input_window.get()
        new_tuples = input_window.get_new()
        expired_tuples = input_window.get_expired()

        self.LOG.debug("Events in current window: %d", len(tuples_in_window))
        # Instead of iterating over all the tuples in the window to compute
        # the sum, the values for the new events are added and old events are
        # subtracted. Similar optimizations might be possible in other
        # windowing computations.
        for tuple in new_tuples:
            self._sum += tuple.get_value(0)
        for tuple in expired_tuples:
            self._sum -= tuple.get_value(0)
        self._collector.emit([self._sum])

    def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
        """One field, ``sum``."""
        declarer.declare(Fields("sum"))


class WordCountBolt(BaseBasicBolt):
    """Counts each word and emits it with its count so far."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def execute(self, tuple: Tuple, collector: BasicOutputCollector) -> None:
        """Count the word; emit it with its count."""
        word = tuple.get_string(0)
        count = self.counts.get(word)
        if count is None:
            count = 0
        count += 1
        self.counts[word] = count
        collector.emit([word, count])

    def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
        """Fields ``word, count``."""
        declarer.declare(Fields("word", "count"))


class RollingCountBolt(BaseRichBolt):
    """Rolling counts of incoming objects, i.e. sliding window based counting.

    Configured by the length of the sliding window in seconds and the emit frequency in seconds: at every tick it
    emits, per object, the object, its count over the window, and the actual length of the window (which can be
    shorter during the startup phase, when the window is still "loading up").
    """

    LOG = logging.getLogger("RollingCountBolt")
    NUM_WINDOW_CHUNKS = 5
    DEFAULT_SLIDING_WINDOW_IN_SECONDS = NUM_WINDOW_CHUNKS * 60
    DEFAULT_EMIT_FREQUENCY_IN_SECONDS = DEFAULT_SLIDING_WINDOW_IN_SECONDS // NUM_WINDOW_CHUNKS
    WINDOW_LENGTH_WARNING_TEMPLATE = (
        "Actual window length is %d seconds when it should be %d seconds"
        " (you can safely ignore this warning during the startup phase)")
    _collector: OutputCollector
    _last_modified_tracker: NthLastModifiedTimeTracker

    def __init__(self, window_length_in_seconds: int = DEFAULT_SLIDING_WINDOW_IN_SECONDS,
                 emit_frequency_in_seconds: int = DEFAULT_EMIT_FREQUENCY_IN_SECONDS) -> None:
        self._window_length_in_seconds = window_length_in_seconds
        self._emit_frequency_in_seconds = emit_frequency_in_seconds
        self._counter: SlidingWindowCounter[Any] = SlidingWindowCounter(self._derive_num_window_chunks_from(
            self._window_length_in_seconds, self._emit_frequency_in_seconds))

    def _derive_num_window_chunks_from(self, window_length_in_seconds: int,
                                       window_update_frequency_in_seconds: int) -> int:
        return window_length_in_seconds // window_update_frequency_in_seconds

    def prepare(self, topo_conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
        """Keep the collector; start tracking the window's actual length."""
        self._collector = collector
        self._last_modified_tracker = NthLastModifiedTimeTracker(self._derive_num_window_chunks_from(
            self._window_length_in_seconds, self._emit_frequency_in_seconds))

    def execute(self, tuple: Tuple) -> None:
        """At a tick emit the window's counts; else count the tuple's object."""
        if TupleUtils.is_tick(tuple):
            self.LOG.debug("Received tick tuple, triggering emit of current window counts")
            self._emit_current_window_counts()
        else:
            self._count_obj_and_ack(tuple)

    def _emit_current_window_counts(self) -> None:
        counts = self._counter.get_counts_then_advance_window()
        actual_window_length_in_seconds = self._last_modified_tracker.seconds_since_oldest_modification()
        self._last_modified_tracker.mark_as_modified()
        if actual_window_length_in_seconds != self._window_length_in_seconds:
            self.LOG.warning(self.WINDOW_LENGTH_WARNING_TEMPLATE, actual_window_length_in_seconds,
                             self._window_length_in_seconds)
        self._emit(counts, actual_window_length_in_seconds)

    def _emit(self, counts: dict[Any, int], actual_window_length_in_seconds: int) -> None:
        for obj, count in counts.items():
            self._collector.emit([obj, count, actual_window_length_in_seconds])

    def _count_obj_and_ack(self, tuple: Tuple) -> None:
        obj = tuple.get_value(0)
        self._counter.increment_count(obj)
        self._collector.ack(tuple)

    def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
        """Fields ``obj, count, actualWindowLengthInSeconds``."""
        declarer.declare(Fields("obj", "count", "actualWindowLengthInSeconds"))

    def get_component_configuration(self) -> dict[str, Any]:
        """A tick every emit frequency."""
        conf: dict[str, Any] = {}
        conf[Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS] = self._emit_frequency_in_seconds
        return conf


class RollingCountAggBolt(BaseRichBolt):
    """Aggregates the counts of one object from several upstream bolt tasks (a partial key grouping splits them)."""

    LOG = logging.getLogger("RollingCountAggBolt")
    _collector: OutputCollector

    def __init__(self) -> None:
        # Mapping of key->upstreamBolt->count
        self._counts: dict[Any, dict[int, int]] = {}

    def prepare(self, topo_conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
        """Keep the collector."""
        self._collector = collector

    def execute(self, tuple: Tuple) -> None:
        """Keep the tuple's count as its source task's; emit the object with the sum over the source tasks."""
        obj = tuple.get_value(0)
        count = tuple.get_long(1)
        source = tuple.get_source_task()
        sub_counts = self._counts.get(obj)
        if sub_counts is None:
            sub_counts = {}
            self._counts[obj] = sub_counts
        # Update the current count for this object
        sub_counts[source] = count
        # Output the sum of all the known counts so for this key
        sum = 0
        for val in sub_counts.values():
            sum += val
        self._collector.emit([obj, sum])

    def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
        """Fields ``obj, count``."""
        declarer.declare(Fields("obj", "count"))


class AbstractRankerBolt(BaseBasicBolt, ABC):
    """The basic behaviour of bolts that rank objects by their count.

    ``execute`` is a template method: subclasses say how incoming tuples are processed, i.e. how the objects
    embedded within those tuples are retrieved and counted.
    """

    DEFAULT_EMIT_FREQUENCY_IN_SECONDS = 2
    DEFAULT_COUNT = 10

    def __init__(self, top_n: int = DEFAULT_COUNT,
                 emit_frequency_in_seconds: int = DEFAULT_EMIT_FREQUENCY_IN_SECONDS) -> None:
        if top_n < 1:
            msg = f"topN must be >= 1 (you requested {top_n})"
            raise ValueError(msg)
        if emit_frequency_in_seconds < 1:
            msg = f"The emit frequency must be >= 1 seconds (you requested {emit_frequency_in_seconds} seconds)"
            raise ValueError(msg)
        self._count = top_n
        self._emit_frequency_in_seconds = emit_frequency_in_seconds
        self._rankings = Rankings(self._count)

    def get_rankings(self) -> Rankings:
        """The bolt's rankings."""
        return self._rankings

    def execute(self, tuple: Tuple, collector: BasicOutputCollector) -> None:
        """At a tick emit the rankings; else update them with the tuple (a template method)."""
        if TupleUtils.is_tick(tuple):
            self.get_logger().debug("Received tick tuple, triggering emit of current rankings")
            self._emit_rankings(collector)
        else:
            self.update_rankings_with_tuple(tuple)

    @abstractmethod
    def update_rankings_with_tuple(self, tuple: Tuple) -> None:
        """Update the rankings with one tuple."""

    def _emit_rankings(self, collector: BasicOutputCollector) -> None:
        collector.emit([self._rankings.copy()])
        self.get_logger().debug("Rankings: %s", self._rankings)

    def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
        """One field, ``rankings``."""
        declarer.declare(Fields("rankings"))

    def get_component_configuration(self) -> dict[str, Any]:
        """A tick every emit frequency."""
        conf: dict[str, Any] = {}
        conf[Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS] = self._emit_frequency_in_seconds
        return conf

    @abstractmethod
    def get_logger(self) -> logging.Logger:
        """The subclass's logger."""


class IntermediateRankingsBolt(AbstractRankerBolt):
    """Ranks incoming objects by their count; input tuples are ``(object, object_count, more fields...)``."""

    LOG = logging.getLogger("IntermediateRankingsBolt")

    def update_rankings_with_tuple(self, tuple: Tuple) -> None:
        """Rank the tuple's object with its count."""
        rankable: Rankable = RankableObjectWithFields.from_(tuple)
        super().get_rankings().update_with(rankable)

    def get_logger(self) -> logging.Logger:
        """This class's logger."""
        return self.LOG


class TotalRankingsBolt(AbstractRankerBolt):
    """Merges incoming rankings (from IntermediateRankingsBolt, with a global grouping) into one."""

    LOG = logging.getLogger("TotalRankingsBolt")

    def update_rankings_with_tuple(self, tuple: Tuple) -> None:
        """Merge the tuple's rankings; drop zero counts."""
        rankings_to_be_merged: Rankings = tuple.get_value(0)
        super().get_rankings().update_with(rankings_to_be_merged)
        super().get_rankings().prune_zero_counts()

    def get_logger(self) -> logging.Logger:
        """This class's logger."""
        return self.LOG
