"""Nexmark's random strings, vectorised: short words, padding ("extra") and the bid channels' URLs.

The semantics follow nexmark's ``StringsGenerator`` and ``BidGenerator``
(github.com/nexmark/nexmark, ``nexmark-flink/.../generator/model``): a word of
``max_length`` is 3 to ``max_length - 1`` characters, each a lowercase letter or,
one time in 13, a special character (a space, trimmed off the ends afterwards,
or ``_``); padding is a slice of one reused random text, its length within 20%
of what brings an event to its average size; 10,000 channels each have a URL
(nine in ten with a ``channel_id`` parameter), and four hot channels have their
own. Every function draws from the ``numpy.random.Generator`` it is given, so a
seed gives the same strings.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

MIN_WORD_LENGTH = 3
SPECIAL_ONE_IN = 13
REUSED_TEXT_BYTES = 1 << 20
CHANNELS = 10_000
HOT_CHANNELS = ("Google", "Facebook", "Baidu", "Apple")
URL_BASE = "https://www.nexmark.com/"
_LETTERS = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)


def _string_array(data: np.ndarray, lengths: np.ndarray) -> pa.Array:
    """A UTF-8 string array whose i-th value is the next ``lengths[i]`` bytes of ``data``."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.StringArray.from_buffers(len(lengths), pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(data)))


def words(rng: np.random.Generator, count: int, max_length: int, special: str = " ") -> pa.Array:
    """``count`` random words as nexmark's ``nextString(random, max_length, special)`` makes them.

    A space as the special character is trimmed from both ends, as Java's
    ``String.trim()`` does; any other special character stays.
    """
    lengths = MIN_WORD_LENGTH + rng.integers(0, max_length - MIN_WORD_LENGTH, size=count)
    total = int(lengths.sum())
    data = _LETTERS[rng.integers(0, len(_LETTERS), size=total)]
    data[rng.integers(0, SPECIAL_ONE_IN, size=total) == 0] = ord(special)
    array = _string_array(data, lengths)
    return pc.utf8_trim(array, " ") if special == " " else array


def reused_text(rng: np.random.Generator) -> np.ndarray:
    """The random lowercase text (1 MiB) that padding is cut from, as bytes."""
    return _LETTERS[rng.integers(0, len(_LETTERS), size=REUSED_TEXT_BYTES)]


def extras(rng: np.random.Generator, text: np.ndarray, current_sizes: np.ndarray, average_size: int) -> pa.Array:
    """Padding bringing each event of ``current_sizes`` bytes to about ``average_size``: nexmark's ``nextExtra``.

    Nothing for an event already bigger; otherwise a slice of ``text`` whose
    length is drawn from ``[wanted - delta, wanted + delta)``, ``delta`` being
    20% of the bytes wanted (rounded half up, as Java's ``Math.round``).
    """
    wanted = np.maximum(average_size - current_sizes, 0)
    delta = np.floor(wanted * 0.2 + 0.5).astype(np.int64)
    jitter = rng.integers(0, np.maximum(2 * delta, 1))
    lengths = np.where(current_sizes > average_size, 0, wanted - delta + np.where(delta == 0, 0, jitter))
    starts = rng.integers(0, len(text) - np.maximum(lengths, 1))
    total = int(lengths.sum())
    ends = np.cumsum(lengths)
    positions = np.arange(total) + np.repeat(starts - (ends - lengths), lengths)
    return _string_array(text[positions], lengths)


def _java_reverse_abs(i: int) -> int:
    """``Math.abs(Integer.reverse(i))`` with Java's int overflow (the absolute of ``-2**31`` stays negative)."""
    reversed_bits = int(f"{i & 0xFFFFFFFF:032b}"[::-1], 2)
    signed = reversed_bits - (1 << 32) if reversed_bits >= 1 << 31 else reversed_bits
    return signed if signed == -(1 << 31) else abs(signed)


def _base_urls(rng: np.random.Generator, count: int) -> list[str]:
    """``count`` item URLs: the base, three ``_``-words of up to 4 characters, ``item.htm?query=1``."""
    parts = words(rng, 3 * count, 5, "_").to_pylist()
    return [f"{URL_BASE}{parts[3 * i]}/{parts[3 * i + 1]}/{parts[3 * i + 2]}/item.htm?query=1" for i in range(count)]


def channel_urls(rng: np.random.Generator) -> tuple[list[str], list[str]]:
    """The hot channels' URLs (one per :data:`HOT_CHANNELS`) and the URL of each of the :data:`CHANNELS` others."""
    hot = _base_urls(rng, len(HOT_CHANNELS))
    urls = _base_urls(rng, CHANNELS)
    with_id = rng.integers(0, 10, size=CHANNELS) > 0
    return hot, [f"{url}&channel_id={_java_reverse_abs(i)}" if keep else url
                 for i, (url, keep) in enumerate(zip(urls, with_id, strict=True))]


def bid_channels(rng: np.random.Generator, count: int, urls: tuple[list[str], list[str]]) -> tuple[pa.Array, pa.Array]:
    """Each bid's channel and URL: half from a hot channel, half from ``channel-<n>`` of the 10,000."""
    hot_urls, channel_url = urls
    hot = rng.integers(0, 2, size=count) > 0
    which = np.where(hot, rng.integers(0, len(HOT_CHANNELS), size=count), rng.integers(0, CHANNELS, size=count))
    names = pa.array([*HOT_CHANNELS, *(f"channel-{i}" for i in range(CHANNELS))])
    all_urls = pa.array([*hot_urls, *channel_url])
    index = pa.array(np.where(hot, which, which + len(HOT_CHANNELS)))
    return names.take(index), all_urls.take(index)
