"""Storm's windows: the window manager, its event buffers, ``TupleWindow`` and ``WindowSpec``.

The eviction and trigger policies (Storm's 2x2 grid of count/time by processing/event time) are in
``policies``; the Storm-exact event-time variants (``with_storm_semantics``) in ``exact``.
"""
