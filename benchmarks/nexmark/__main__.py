"""``python -m benchmarks.nexmark``: the Nexmark suite (see :mod:`benchmarks.nexmark.run`)."""

import sys

from benchmarks.nexmark.run import main

sys.exit(main())
