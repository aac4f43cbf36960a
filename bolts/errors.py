"""Errors a bolt raises at run time for a bad tuple, and the stream a bolt can send such tuples to instead."""

from __future__ import annotations

#: The fields of a bolt's error stream (``with_error_stream``): the rejected input ``Tuple`` itself, the id of
#: the bolt that rejected it, and the reason (the ``TupleError``'s message).
ERROR_FIELDS = ("tuple", "component", "reason")


class TupleError(ValueError):
    """A tuple the bolt cannot process (a missing timestamp field, a timestamp that is not an int).

    The message names the configuration method, the field and the tuple. The
    Spark executor fails the batch with it rather than drop the tuple, unless
    the bolt has an error stream (``with_error_stream``): the tuple is then
    emitted there, with the bolt's id and the message, and the batch goes on.
    """
