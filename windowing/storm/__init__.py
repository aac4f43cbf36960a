"""Storm's windows: the window manager, its event buffers, ``TupleWindow`` and ``WindowSpec``.

In memory, duration and count windows hold their rows as numpy arrays beside the
blocks they came in (``block_buffer``, ``blocks``, ``expired``): a spout's
columnar block costs no Python object per held row.

The eviction and trigger policies (Storm's 2x2 grid of count/time by processing/event time) are in
``policies``; the Storm-exact event-time variants (``with_storm_semantics``) in ``exact``.
"""
