"""The plain bolt: one ``execute`` per tuple."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

from bolts.collector import OutputCollector, OutputFieldsDeclarer
from bolts.context import TopologyContext
from bolts.errors import ERROR_FIELDS
from bolts.tuples import Fields, Tuple

if TYPE_CHECKING:
    from bolts.task_input import TupleTable


class BaseBolt:
    """Storm's ``BaseRichBolt`` in Python spelling (also importable as :data:`BaseRichBolt`).

    Override ``execute(tuple)`` and ``declare_output_fields(declarer)``; keep the
    collector from ``prepare`` to emit. ``cleanup`` runs when the topology stops.
    ``with_error_stream(stream_id)`` sends the tuples the bolt rejects (a
    :class:`bolts.TupleError`) to a stream instead of failing the batch.
    """

    _error_stream: str | None = None

    def prepare(self, conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
        """Called once per task before any tuple; the default keeps the collector as ``self.collector``."""
        self.collector = collector

    def execute(self, input: Tuple) -> None:
        """Process one tuple. Bolts that take tuples one at a time must override this.

        A columnar bolt (one that overrides only :meth:`execute_table`) gets a
        lone tuple (a tick tuple, one fed to ``BoltHarness.feed``) there, as a
        table of one row.
        """
        if type(self).execute_table is not BaseBolt.execute_table:
            from bolts.task_input import TupleTable

            self.execute_table(TupleTable.of([input]))
            return
        msg = f"{type(self).__name__}.execute: override execute(self, input) to process tuples"
        raise TypeError(msg)

    def execute_table(self, input: TupleTable) -> None:
        """Process a run of tuples from one source task on one stream at once, as columns (``input.to_arrow()``).

        A bolt that overrides it is *columnar*: each micro-batch reaches it as
        one call per run of tuples (a spout's rows of one Spark partition, a
        table an upstream bolt emitted, or a stretch of tuples it emitted one
        at a time on one stream), in delivery order, and it
        emits Arrow tables with ``self.collector.emit_table(table)`` (``emit``
        works too). The default calls :meth:`execute` for each tuple.
        """
        for tup in input.get():
            self.execute(tup)

    def cleanup(self) -> None:
        """Called once when the topology stops (or the harness is closed)."""

    def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
        """Declare output streams with ``declarer.declare(Fields(...))``; the default declares none."""

    def get_component_configuration(self) -> dict[str, Any]:
        """Per-component configuration merged into ``conf`` at ``prepare`` (None, as Storm's null, means none)."""
        return {}

    def with_error_stream(self, stream_id: str) -> Self:
        """Emit each tuple the bolt rejects on ``stream_id`` instead of failing the batch.

        A tuple is rejected when processing it raises :class:`bolts.TupleError`
        (a missing or null timestamp, a missing key field, a value the aggregator
        cannot take, or a ``TupleError`` the bolt's own ``execute`` raises). The
        stream has the fields ``tuple`` (the input ``Tuple``, with its values,
        fields, stream and source), ``component`` (this bolt's id) and ``reason``
        (the error's message); it is declared for you. Without an error stream
        a ``TupleError`` fails the batch.
        """
        if not isinstance(stream_id, str):
            kind = type(stream_id).__name__
            msg = f"with_error_stream: `stream_id` must be a str; got {stream_id!r} ({kind}) instead"
            raise TypeError(msg)
        if not stream_id:
            msg = "with_error_stream: `stream_id` must not be empty"
            raise ValueError(msg)
        self._error_stream = stream_id
        return self

    @property
    def error_stream(self) -> str | None:
        """The stream rejected tuples go to (``with_error_stream``); None when a rejected tuple fails the batch."""
        return self._error_stream

    def output_streams(self, component: str = "") -> dict[str, Fields]:
        """The streams this bolt declares, with their fields, plus its error stream when one is set.

        ``ValueError`` naming ``with_error_stream`` when the error stream's id is
        a stream the bolt declares otherwise (its late-tuple stream included).
        """
        streams = self._declared_streams(component)
        stream = self.error_stream
        if stream is not None:
            fields = Fields(ERROR_FIELDS)
            if stream in streams and streams[stream] != fields:
                who = f"bolt {component!r}" if component else type(self).__name__
                msg = (
                    f"with_error_stream: {who} already declares stream {stream!r} as {streams[stream]!r}; "
                    f"choose a stream id that is none of: {', '.join(sorted(streams))}"
                )
                raise ValueError(msg)
            streams[stream] = fields
        return streams

    def direct_streams(self, component: str = "") -> frozenset[str]:
        """The streams the bolt declares direct (``declare_stream(id, True, fields)``): sent to with ``emit_direct``."""
        declarer = OutputFieldsDeclarer(component)
        self.declare_output_fields(declarer)
        return frozenset(declarer.direct_streams)

    def _declared_streams(self, component: str) -> dict[str, Fields]:
        """The streams ``declare_output_fields`` declares (windowed bolts add their late-tuple stream)."""
        declarer = OutputFieldsDeclarer(component)
        self.declare_output_fields(declarer)
        return declarer.streams


#: Storm's name for the plain bolt: a port keeps ``class SplitSentence(BaseRichBolt)`` as it is.
BaseRichBolt = BaseBolt
