"""Storm's ``BaseBasicBolt``: a bolt whose tuples are acked for it, and failed by raising ``FailedException``."""

from __future__ import annotations

from typing import Any

from bolts.base_bolt import BaseBolt
from bolts.collector import LOG, OutputCollector
from bolts.context import TopologyContext
from bolts.errors import TupleError
from bolts.task import PlainBoltTask
from bolts.tuples import Tuple


class FailedException(RuntimeError):
    """Raised from a basic bolt's ``execute`` to fail the input tuple: the batch fails, and Spark replays it."""


class ReportedFailedException(FailedException):
    """A :class:`FailedException` that is also reported (``report_error``) before the tuple fails."""


class BasicOutputCollector:
    """What a basic bolt emits with: every emit is anchored to the input tuple, as in Storm.

    ``emit`` and ``emit_direct`` take the orders of
    :class:`~bolts.collector.OutputCollector` without anchors and return the
    same task ids; ``report_error`` and ``reset_timeout`` pass through.
    """

    def __init__(self, out: OutputCollector) -> None:
        self.out = out
        self.input: Tuple | None = None

    def emit(self, *args: Any, stream: str | None = None) -> list[int]:
        """Emit ``values`` (or ``stream, values``), anchored to the tuple being executed."""
        return self.out.emit(*args, stream=stream)

    def emit_direct(self, task_id: int, *args: Any, stream: str | None = None) -> None:
        """Emit to one task on a direct stream (see :meth:`OutputCollector.emit_direct`)."""
        self.out.emit_direct(task_id, *args, stream=stream)

    def report_error(self, error: BaseException | str) -> None:
        """Report an error without failing the tuple (see :meth:`OutputCollector.report_error`)."""
        self.out.report_error(error)

    def reset_timeout(self, input: Tuple) -> None:
        """Storm's ``resetTimeout``: nothing to do here."""
        self.out.reset_timeout(input)

    def get_output_collector(self) -> OutputCollector:
        """Storm's ``getOutputCollector``: the collector behind this one."""
        return self.out


class BaseBasicBolt(BaseBolt):
    """Storm's ``BaseBasicBolt``: override ``execute(self, input, collector)`` and ``declare_output_fields``.

    ``prepare(self, conf, context)`` takes no collector: ``execute`` is given a
    :class:`BasicOutputCollector` with each tuple. A tuple is acked when
    ``execute`` returns; raising :class:`FailedException` fails it, which fails
    the batch so Spark replays it (a :class:`ReportedFailedException` is
    reported first). A :class:`~bolts.TupleError` goes to the error stream as in
    every bolt (``with_error_stream``).
    """

    def prepare(self, conf: dict[str, Any], context: TopologyContext) -> None:  # type: ignore[override]
        """Called once per task before any tuple; the default does nothing."""

    def execute(self, input: Tuple, collector: BasicOutputCollector) -> None:  # type: ignore[override]
        """Process one tuple, emitting with ``collector``. Basic bolts must override this."""
        msg = f"{type(self).__name__}.execute: override execute(self, input, collector) to process tuples"
        raise TypeError(msg)


class BasicBoltTask(PlainBoltTask):
    """Runs a :class:`BaseBasicBolt`: a :class:`BasicOutputCollector` per task, ``FailedException`` fails the tuple."""

    basic: BasicOutputCollector

    @property
    def columnar(self) -> bool:
        """Never: a basic bolt's ``execute`` takes one tuple and a collector."""
        return False

    def call_prepare(self, conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
        """Call the basic bolt's two-argument ``prepare``."""
        self.basic = BasicOutputCollector(collector)
        self.bolt.prepare(conf, context)

    def execute(self, tup: Tuple) -> None:
        """Call ``execute(tup, collector)``; a ``FailedException`` fails the tuple, a ``TupleError`` rejects it."""
        self.basic.input = tup
        try:
            self.bolt.execute(tup, self.basic)
        except TupleError as error:
            self.reject(tup, error)
        except FailedException as error:
            if isinstance(error, ReportedFailedException):
                self.basic.out.report_error(error)
                if self.basic.out.error_stream is not None:  # that tuple fails with its batch: the log keeps it
                    LOG.error("bolt %r task %d reported an error: %s: %s", self.component, self.task_index,
                              type(error).__name__, error)
            self.basic.out.fail(tup)
            try:
                self.basic.out.raise_if_failed()
            except RuntimeError as failed:
                raise failed from error
        finally:
            self.basic.input = None
        if self.basic.out.failed:  # the bolt called fail() on the underlying collector itself
            self.basic.out.raise_if_failed()
