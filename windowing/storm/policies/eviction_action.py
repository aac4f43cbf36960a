"""What an eviction policy decides for one held event during a scan (Storm's ``EvictionPolicy.Action``)."""

from __future__ import annotations

from enum import Enum


class Action(Enum):
    """The decision for one event of a queue scan.

    - ``EXPIRE``: the event left the window for good; drop it from the queue.
    - ``PROCESS``: the event is in the window being evaluated.
    - ``KEEP``: not in this window, but keep it for later windows.
    - ``STOP``: end the scan here; this event and every later one are kept untouched.
    """

    EXPIRE = "expire"
    PROCESS = "process"
    KEEP = "keep"
    STOP = "stop"
