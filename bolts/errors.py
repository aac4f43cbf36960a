"""Errors a bolt raises at run time for a bad tuple."""

from __future__ import annotations


class TupleError(ValueError):
    """A tuple the bolt cannot process (a missing timestamp field, a timestamp that is not an int).

    The message names the configuration method, the field and the tuple. The
    Spark executor fails the batch with it rather than drop the tuple.
    """
