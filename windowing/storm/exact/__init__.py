"""Storm 2.x's event-time windows exactly (``with_storm_semantics``).

Its arrival-order queue, the policies that scan it, and the window manager with periodic compaction.
"""
