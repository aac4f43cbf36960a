"""The Nexmark benchmark for squall: nexmark's generator, its queries in squall and in Spark, and the race.

Run ``python -m benchmarks.nexmark`` (see :mod:`benchmarks.nexmark.run`).
"""
