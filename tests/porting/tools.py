# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/tools/: Rankable.java,
# RankableObjectWithFields.java, Rankings.java, SlotBasedCounter.java, SlidingWindowCounter.java and
# NthLastModifiedTimeTracker.java, one class each, in the Java files' structure and method order.
#
# The changes are spelling (overloaded constructors as default arguments, private fields with a leading underscore,
# Comparable's compareTo as compare_to with __lt__ from it for list.sort, equals/hashCode/toString as
# __eq__/__hash__/__repr__, Guava's ImmutableList as a tuple, an ArrayBlockingQueue as queue.Queue, Storm's
# Time.currentTimeMillis as time.time, `from` as from_), except:
# - `implements Serializable` (Rankings and RankableObjectWithFields travel between tasks inside tuples; the
#   counters and rankings the bolts hold travel with their tasks): squall needs the classes registered, which
#   RollingTopWords.run does with conf.register_serialization(cls).
# - Rankings.updateWith(Rankable) drops `synchronized (rankedItems)`: a task runs one tuple at a time, and a lock
#   could not travel with the object.
# NthLastModifiedTimeTracker keeps the wall clock, as the Java class does: it only gives RollingCountBolt's
# actualWindowLengthInSeconds, which no ranking depends on.
"""storm-starter's tools: rankings of counted objects, slot-based sliding-window counters, a modification tracker."""

from __future__ import annotations

import queue
import time
from abc import ABC, abstractmethod
from typing import Any, Generic, TypeVar

from squall import Tuple

T = TypeVar("T")


class Rankable(ABC):
    """An object with a count, ordered by the count."""

    @abstractmethod
    def get_object(self) -> Any:
        """The ranked object."""

    @abstractmethod
    def get_count(self) -> int:
        """The object's count."""

    @abstractmethod
    def copy(self) -> Rankable:
        """A defensive copy (the wrapped object itself is not copied)."""

    @abstractmethod
    def compare_to(self, other: Rankable) -> int:
        """Java's ``Comparable.compareTo``: negative, zero or positive."""

    def __lt__(self, other: Rankable) -> bool:
        return self.compare_to(other) < 0


class RankableObjectWithFields(Rankable):
    """Wraps an object and its count, with any additional data fields.

    It can be used, for instance, to track the number of occurrences of an object in a Storm topology.
    """

    to_string_separator = "|"

    def __init__(self, obj: Any, count: int, *other_fields: Any) -> None:
        if obj is None:
            msg = "The object must not be null"
            raise ValueError(msg)
        if count < 0:
            msg = "The count must be >= 0"
            raise ValueError(msg)
        self._obj = obj
        self._count = count
        self._fields = tuple(other_fields)

    @staticmethod
    def from_(tuple: Tuple) -> RankableObjectWithFields:
        """A new instance from a tuple: the object at index 0, its count at index 1, then any further fields."""
        other_fields = list(tuple.get_values())
        obj = other_fields.pop(0)
        count = other_fields.pop(0)
        return RankableObjectWithFields(obj, count, *other_fields)

    def get_object(self) -> Any:
        """The ranked object."""
        return self._obj

    def get_count(self) -> int:
        """The object's count."""
        return self._count

    def get_fields(self) -> tuple[Any, ...]:
        """The additional data fields of the object (may be empty but never None)."""
        return self._fields

    def compare_to(self, other: Rankable) -> int:
        """By count only."""
        delta = self.get_count() - other.get_count()
        if delta > 0:
            return 1
        elif delta < 0:
            return -1
        else:
            return 0

    def __eq__(self, o: object) -> bool:
        if self is o:
            return True
        if not isinstance(o, RankableObjectWithFields):
            return False
        other = o
        return bool(self._obj == other._obj and self._count == other._count)

    def __hash__(self) -> int:
        result = 17
        count_hash = self._count ^ (self._count >> 32)
        result = 31 * result + count_hash
        result = 31 * result + hash(self._obj)
        return result

    def __repr__(self) -> str:
        buf = ["[", str(self._obj), self.to_string_separator, str(self._count)]
        for field in self._fields:
            buf.append(self.to_string_separator)
            buf.append(str(field))
        buf.append("]")
        return "".join(buf)

    def copy(self) -> Rankable:
        """A copy with a shallow copy of the fields (passed as one field, as the Java code passes its list)."""
        shallow_copy_of_fields = tuple(self.get_fields())
        return RankableObjectWithFields(self.get_object(), self.get_count(), shallow_copy_of_fields)


class Rankings:
    """The top ``maxSize`` rankables, highest count first."""

    DEFAULT_COUNT = 10

    def __init__(self, top_n: int | Rankings = DEFAULT_COUNT) -> None:
        """``Rankings()``, ``Rankings(topN)``, or the copy constructor ``Rankings(other)``."""
        self._ranked_items: list[Rankable] = []
        other = None
        if isinstance(top_n, Rankings):
            other, top_n = top_n, top_n.max_size()
        if top_n < 1:
            msg = "topN must be >= 1"
            raise ValueError(msg)
        self._max_size = top_n
        if other is not None:
            self.update_with(other)

    def max_size(self) -> int:
        """The maximum possible number (size) of ranked objects this instance can hold."""
        return self._max_size

    def size(self) -> int:
        """The number (size) of ranked objects this instance is currently holding."""
        return len(self._ranked_items)

    def get_rankings(self) -> tuple[Rankable, ...]:
        """A somewhat defensive copy of the ranked items (each copied, their objects not)."""
        copy = []
        for r in self._ranked_items:
            copy.append(r.copy())
        return tuple(copy)

    def update_with(self, r: Rankings | Rankable) -> None:
        """Add or replace one rankable, or every rankable of other rankings, then rerank and shrink."""
        if isinstance(r, Rankings):
            for rankable in r.get_rankings():
                self.update_with(rankable)
            return
        self._add_or_replace(r)
        self._rerank()
        self._shrink_rankings_if_needed()

    def _add_or_replace(self, r: Rankable) -> None:
        rank = self._find_rank_of(r)
        if rank is not None:
            self._ranked_items[rank] = r
        else:
            self._ranked_items.append(r)

    def _find_rank_of(self, r: Rankable) -> int | None:
        tag = r.get_object()
        for rank in range(len(self._ranked_items)):
            cur = self._ranked_items[rank].get_object()
            if cur == tag:
                return rank
        return None

    def _rerank(self) -> None:
        self._ranked_items.sort()
        self._ranked_items.reverse()

    def _shrink_rankings_if_needed(self) -> None:
        if len(self._ranked_items) > self._max_size:
            del self._ranked_items[self._max_size]

    def prune_zero_counts(self) -> None:
        """Removes ranking entries that have a count of zero."""
        i = 0
        while i < len(self._ranked_items):
            if self._ranked_items[i].get_count() == 0:
                del self._ranked_items[i]
            else:
                i += 1

    def __repr__(self) -> str:
        return "[" + ", ".join(str(r) for r in self._ranked_items) + "]"

    def copy(self) -> Rankings:
        """Creates a (defensive) copy of itself."""
        return Rankings(self)


class SlotBasedCounter(Generic[T]):
    """Per-slot counts of the occurrences of objects."""

    def __init__(self, num_slots: int) -> None:
        self._obj_to_counts: dict[T, list[int]] = {}
        if num_slots <= 0:
            msg = f"Number of slots must be greater than zero (you requested {num_slots})"
            raise ValueError(msg)
        self._num_slots = num_slots

    def increment_count(self, obj: T, slot: int) -> None:
        """Count ``obj`` once in ``slot``."""
        counts = self._obj_to_counts.get(obj)
        if counts is None:
            counts = [0] * self._num_slots
            self._obj_to_counts[obj] = counts
        counts[slot] += 1

    def get_count(self, obj: T, slot: int) -> int:
        """The count of ``obj`` in ``slot``."""
        counts = self._obj_to_counts.get(obj)
        if counts is None:
            return 0
        else:
            return counts[slot]

    def get_counts(self) -> dict[T, int]:
        """The total count of every tracked object."""
        result: dict[T, int] = {}
        for obj in self._obj_to_counts:
            result[obj] = self._compute_total_count(obj)
        return result

    def _compute_total_count(self, obj: T) -> int:
        curr = self._obj_to_counts[obj]
        total = 0
        for n in curr:
            total += n
        return total

    def wipe_slot(self, slot: int) -> None:
        """Reset the slot count of any tracked objects to zero for the given slot."""
        for obj in self._obj_to_counts:
            self._reset_slot_count_to_zero(obj, slot)

    def _reset_slot_count_to_zero(self, obj: T, slot: int) -> None:
        counts = self._obj_to_counts[obj]
        counts[slot] = 0

    def _should_be_removed_from_counter(self, obj: T) -> bool:
        return self._compute_total_count(obj) == 0

    def wipe_zeros(self) -> None:
        """Remove any object from the counter whose total count is zero (to free up memory)."""
        for obj in list(self._obj_to_counts):
            if self._should_be_removed_from_counter(obj):
                del self._obj_to_counts[obj]


class SlidingWindowCounter(Generic[T]):
    """Counts objects in a sliding window of slots; reading the counts advances the window by one slot.

    During the first ``windowLengthInSlots`` reads the counts only grow: the counter is "loading up".
    """

    def __init__(self, window_length_in_slots: int) -> None:
        if window_length_in_slots < 2:
            msg = f"Window length in slots must be at least two (you requested {window_length_in_slots})"
            raise ValueError(msg)
        self._window_length_in_slots = window_length_in_slots
        self._obj_counter: SlotBasedCounter[T] = SlotBasedCounter(self._window_length_in_slots)

        self._head_slot = 0
        self._tail_slot = self._slot_after(self._head_slot)

    def increment_count(self, obj: T) -> None:
        """Count ``obj`` once in the head slot."""
        self._obj_counter.increment_count(obj, self._head_slot)

    def get_counts_then_advance_window(self) -> dict[T, int]:
        """Return the current (total) counts of all tracked objects, then advance the window."""
        counts = self._obj_counter.get_counts()
        self._obj_counter.wipe_zeros()
        self._obj_counter.wipe_slot(self._tail_slot)
        self._advance_head()
        return counts

    def _advance_head(self) -> None:
        self._head_slot = self._tail_slot
        self._tail_slot = self._slot_after(self._tail_slot)

    def _slot_after(self, slot: int) -> int:
        return (slot + 1) % self._window_length_in_slots


class NthLastModifiedTimeTracker:
    """Tracks the time-since-last-modify of a "thing" in a rolling fashion, over the last ``numTimesToTrack`` marks."""

    MILLIS_IN_SEC = 1000

    def __init__(self, num_times_to_track: int) -> None:
        if num_times_to_track < 1:
            msg = f"numTimesToTrack must be greater than zero (you requested {num_times_to_track})"
            raise ValueError(msg)
        self._last_modified_times_millis: queue.Queue[int] = queue.Queue(num_times_to_track)
        self._init_last_modified_times_millis(num_times_to_track)

    def _init_last_modified_times_millis(self, num_times_to_track: int) -> None:
        now_cached = self._now()
        for _ in range(num_times_to_track):
            self._last_modified_times_millis.put_nowait(now_cached)

    def _now(self) -> int:
        return time.time_ns() // 1_000_000

    def seconds_since_oldest_modification(self) -> int:
        """Seconds since the oldest of the tracked modifications (taken off the queue)."""
        modified_time_millis = self._last_modified_times_millis.get()
        return (self._now() - modified_time_millis) // self.MILLIS_IN_SEC

    def mark_as_modified(self) -> None:
        """Record a modification now."""
        self._update_last_modified_time()

    def _update_last_modified_time(self) -> None:
        try:
            self._last_modified_times_millis.put_nowait(self._now())
        except queue.Full:
            self._last_modified_times_millis.get_nowait()
            self._last_modified_times_millis.put(self._now())
