"""The Dataflow model's bolts: ``WindowedAggregateBolt``, ``WindowedJoinBolt`` built on it, and their task.

The aggregate bolt carries assigners, triggers, accumulation modes, allowed lateness and watermark holds.
"""
