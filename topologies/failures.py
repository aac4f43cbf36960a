"""How a failure crosses from where it happens to the user: from an executor to the driver, and through Spark.

A bolt task that raises on a Spark executor (distributed mode) fails its
Spark task with a :class:`TaskFailure`, whose one-line message carries the
bolt's exception as JSON; :func:`failure_in` finds it in the text of Spark's
job failure on the driver and rebuilds the bolt's exception (its own class
when the driver can import it, else ``RuntimeError``), noting the bolt, the
task and the executor's traceback.

What ``foreachBatch`` raises to Spark is kept short (:func:`reported_to_spark`).
Spark matches the text of a Python error in its stream thread against a
regular expression (``StreamExecution.isInterruptionException``, looking for
an interruption inside a Py4J error) whose recursion overflows the thread's
stack on a long text, such as a Spark job failure with its JVM stack: the
query's thread then dies printing a ``StackOverflowError``. A batch the query's
stop interrupted is reported with the text Spark recognises as an
interruption, so the stop ends the query without an error; any other failure
as one line naming the error. The full error stays with the executor for the
handle to raise.
"""

from __future__ import annotations

import builtins
import importlib
import json
import re

MARKER = "squall-task-failure "
_FOUND = re.compile(re.escape(MARKER) + r"(\{.*?\})(?=\s*$)", re.MULTILINE)
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):\n(?:.*\n)*?(?=.*" + re.escape(MARKER) + ")")
# The text Spark takes for an interruption of its stream thread (see the module docstring).
INTERRUPTED = ("py4j.protocol.Py4JJavaError: An error occurred while calling a Spark job of the batch: "
               "java.lang.InterruptedException (the query was stopped while the batch ran; it is run again "
               "when the query restarts)")
REPORT_CHARS = 600  # what Spark's expression reads without overflowing, with room to spare


class TaskFailure(RuntimeError):
    """A bolt task's exception on an executor, as one line of JSON after :data:`MARKER`."""

    @classmethod
    def of(cls, exc: BaseException, component: str, task: int) -> TaskFailure:
        """The failure of task ``task`` of bolt ``component`` that raised ``exc``."""
        kind = type(exc)
        data = {"module": kind.__module__, "type": kind.__qualname__, "message": str(exc), "component": component,
                "task": task}
        return cls(MARKER + json.dumps(data))


def failure_in(error: BaseException) -> BaseException | None:
    """The bolt's exception carried by a :class:`TaskFailure` in the text of ``error`` (None when there is none)."""
    text = str(error)
    found = _FOUND.search(text)
    if found is None:
        return None
    try:
        data = json.loads(found.group(1))
    except json.JSONDecodeError:
        return None
    rebuilt = _rebuilt(data["module"], data["type"], data["message"])
    rebuilt.add_note(f"raised by task {data['task']} of bolt {data['component']!r} on a Spark executor")
    traceback = _TRACEBACK.search(text)
    if traceback is not None:
        rebuilt.add_note("the executor's traceback:\n" + traceback.group(0).rstrip())
    return rebuilt


def _rebuilt(module: str, name: str, message: str) -> BaseException:
    """An exception of class ``module.name`` with ``message``, or a RuntimeError naming the class."""
    if module == "builtins":
        kind = getattr(builtins, name, None)
    else:
        try:
            kind = getattr(importlib.import_module(module), name, None)
        except Exception:
            kind = None
    if isinstance(kind, type) and issubclass(kind, Exception):
        try:
            return kind(message)
        except Exception:
            pass
    return RuntimeError(f"{module}.{name}: {message}")


# What Spark says when it cancels a job or interrupts a thread; whole words, not the "Interruptible" of
# InterruptibleIterator or UninterruptibleThread, which every executor's stack trace carries.
_CANCELLED = re.compile(r"\bcancell?ed\b|\binterrupted\b|InterruptedException|ClosedByInterrupt|TaskKilled|"
                        r"JOB_CANCELLED", re.IGNORECASE)


def cancelled_by_stop(error: BaseException) -> bool:
    """Whether ``error`` is Spark cancelling or interrupting the batch's work (the query stopping), not a bolt's.

    It must be an error from Spark or Py4J whose text, or the text of an error
    it was raised from, says a job or stage was cancelled or a thread
    interrupted: any other error, even one that comes while the query is
    being stopped, is a failure of its own and is raised.
    """
    from pyspark.errors import PySparkException

    try:
        from py4j.protocol import Py4JError
    except ImportError:  # pyspark-client (Spark Connect only) comes without py4j
        kinds: tuple[type[BaseException], ...] = (PySparkException,)
    else:
        kinds = (PySparkException, Py4JError)
    if not isinstance(error, kinds):
        return False
    seen: list[BaseException] = []
    cause: BaseException | None = error
    while cause is not None and cause not in seen:
        seen.append(cause)
        cause = cause.__cause__ or cause.__context__
    return any(_CANCELLED.search(str(e)) for e in seen)


def stopped_by(failure: BaseException) -> bool:
    """Whether the query's ``failure`` is only the report of a batch the stop interrupted (:data:`INTERRUPTED`).

    Spark takes that report for an interruption and ends the query cleanly in a
    classic session; under Spark Connect, where ``foreachBatch`` runs in the
    server's worker, the report comes back as the query's error.
    """
    return INTERRUPTED in str(failure)


def reported_to_spark(error: BaseException, batch_id: int) -> RuntimeError:
    """What ``foreachBatch`` raises to Spark for ``error``: short (see the module docstring)."""
    if cancelled_by_stop(error):
        return RuntimeError(INTERRUPTED)
    lines = str(error).strip().splitlines()
    first = lines[0] if lines else ""
    text = f"squall: batch {batch_id} failed: {type(error).__name__}: {first}"
    return RuntimeError(text[:REPORT_CHARS])
