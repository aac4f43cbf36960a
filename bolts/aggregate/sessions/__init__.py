"""Session windows of a windowed aggregation: merging them (``merging``) and placing a batch's rows (``placing``).

Nothing is imported here: ``bolts.aggregate.windows`` builds on ``merging``,
and ``placing`` builds on ``windows``.
"""
