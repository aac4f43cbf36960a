"""Nexmark's event generator, ported to numpy: persons, auctions and bids, as Parquet files.

A port of the semantics of nexmark's generator (github.com/nexmark/nexmark,
``nexmark-flink/.../generator``: ``GeneratorConfig``, ``NexmarkGenerator``,
``PersonGenerator``, ``AuctionGenerator``, ``BidGenerator``; Apache Beam's
``sdks/java/testing/nexmark`` has the same), written for whole files at once:

- Event ``n`` (in arrival order) has the *adjusted* number ``n`` when events
  are in order; with out-of-order groups of ``g`` events, the numbers inside
  each group are permuted (``n // g * g + n * 953 % g``). The adjusted number
  is the event's id: it fixes its kind (of every 50 ids, 1 person, 3 auctions
  and 46 bids) and its event time, ``base + number * inter-event delay``
  (100 µs at the default 10,000 events/s). A disorder of ``d`` ms is a group
  of ``d`` ms of events.
- Persons and auctions get the next ids of their kind (from 1000). An auction's
  seller is, 3 times in 4, the first of the last 100 persons (a hot seller),
  else one of the last 1,000 active persons or the 10 to come; it lasts on
  average as long as 100 auctions take to be created. A bid goes half the time
  to the first of the last 100 auctions (a hot auction), else to one of the
  last 100 or the 10 to come; its bidder is, 3 times in 4, the second of the
  last 100 persons (a hot bidder). Prices are ``round(10 ** (6u) * 100)``.
- Strings and padding ("extra", to 200, 500 and 100 bytes on average) as in
  :mod:`benchmarks.nexmark.strings`.

Where the ports differ: nexmark's Flink generator adds 1000 to a bid's bidder
twice (a slip; Beam's adds it once, as here), and its random draws are not
seeded; here every file draws from ``numpy.random.default_rng((seed, 1, file))``,
so a seed gives the same files.

Each file holds ``events_per_file`` consecutive events in arrival order, with
the columns of nexmark's table (``event_type`` 0/1/2; structs ``person``,
``auction``, ``bid``, null where the row is another kind; ``date_time``, the
event time), and Spark lists them in that order (their modification times).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from benchmarks.nexmark import strings

PERSON, AUCTION, BID = 0, 1, 2
FIRST_PERSON_ID = FIRST_AUCTION_ID = 1000
FIRST_CATEGORY_ID = 10
CATEGORIES = 5
PERSON_ID_LEAD = AUCTION_ID_LEAD = 10
HOT_SELLER_GROUP = HOT_AUCTION_GROUP = HOT_BIDDER_GROUP = 100
OUT_OF_ORDER_STRIDE = 953
GENERATOR_VERSION = 1  # bump when the files change for the same parameters

FIRST_NAMES = "Peter Paul Luke John Saul Vicky Kate Julie Sarah Deiter Walter".split()
LAST_NAMES = "Shultz Abrams Spencer White Bartels Walton Smith Jones Noris".split()
US_STATES = "AZ CA ID OR WA WY".split()
US_CITIES = ["Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent",
             "Cheyenne"]

TIME = pa.timestamp("ms", tz="UTC")
PERSON_TYPE = pa.struct([("id", pa.int64()), ("name", pa.string()), ("email_address", pa.string()),
                         ("credit_card", pa.string()), ("city", pa.string()), ("state", pa.string()),
                         ("date_time", TIME), ("extra", pa.string())])
AUCTION_TYPE = pa.struct([("id", pa.int64()), ("item_name", pa.string()), ("description", pa.string()),
                          ("initial_bid", pa.int64()), ("reserve", pa.int64()), ("date_time", TIME),
                          ("expires", TIME), ("seller", pa.int64()), ("category", pa.int64()),
                          ("extra", pa.string())])
BID_TYPE = pa.struct([("auction", pa.int64()), ("bidder", pa.int64()), ("price", pa.int64()),
                      ("channel", pa.string()), ("url", pa.string()), ("date_time", TIME), ("extra", pa.string())])
SCHEMA = pa.schema([("event_type", pa.int32()), ("person", PERSON_TYPE), ("auction", AUCTION_TYPE),
                    ("bid", BID_TYPE), ("date_time", TIME)])


@dataclass(frozen=True)
class NexmarkConfig:
    """What the generator makes: nexmark's configuration, with its defaults (``NexmarkConfiguration``).

    ``rate`` is the event-time rate (events per second of event time),
    ``disorder_ms`` the span of an out-of-order group (0: in order),
    ``base_time_ms`` the first event's time.
    """

    events: int = 1_000_000
    events_per_file: int = 50_000
    seed: int = 42
    rate: int = 10_000
    disorder_ms: int = 0
    base_time_ms: int = 1_700_000_000_000
    person_proportion: int = 1
    auction_proportion: int = 3
    bid_proportion: int = 46
    hot_auction_ratio: int = 2
    hot_sellers_ratio: int = 4
    hot_bidders_ratio: int = 4
    in_flight_auctions: int = 100
    active_people: int = 1000
    avg_person_bytes: int = 200
    avg_auction_bytes: int = 500
    avg_bid_bytes: int = 100

    @property
    def total_proportion(self) -> int:
        """Events in one round of the proportions (50)."""
        return self.person_proportion + self.auction_proportion + self.bid_proportion

    @property
    def inter_event_delay_us(self) -> float:
        """Event time between two events, in microseconds."""
        return 1_000_000 / self.rate

    @property
    def out_of_order_group(self) -> int:
        """Events per out-of-order group: those of ``disorder_ms`` (1 when in order)."""
        return max(1, self.disorder_ms * self.rate // 1000)

    @property
    def files(self) -> int:
        """How many files the events fill."""
        return -(-self.events // self.events_per_file)

    def timestamps(self, numbers: np.ndarray) -> np.ndarray:
        """The event time (epoch ms) of events with these adjusted numbers (``timestampForEvent``)."""
        return self.base_time_ms + (numbers * self.inter_event_delay_us).astype(np.int64) // 1000

    def adjusted(self, arrivals: np.ndarray) -> np.ndarray:
        """The adjusted numbers (ids) of the events arriving at these positions (``nextAdjustedEventNumber``)."""
        group = self.out_of_order_group
        return arrivals // group * group + arrivals * OUT_OF_ORDER_STRIDE % group


def last_person(config: NexmarkConfig, ids: np.ndarray) -> np.ndarray:
    """The base-0 id of the last person created at or before each event id (``lastBase0PersonId``)."""
    epoch, offset = np.divmod(ids, config.total_proportion)
    return epoch * config.person_proportion + np.minimum(offset, config.person_proportion - 1)


def last_auction(config: NexmarkConfig, ids: np.ndarray) -> np.ndarray:
    """The base-0 id of the last auction created at or before each event id (``lastBase0AuctionId``)."""
    epoch, offset = np.divmod(ids, config.total_proportion)
    people, auctions = config.person_proportion, config.auction_proportion
    before = offset < people  # a person: the last auction of the previous round
    epoch = np.where(before, epoch - 1, epoch)
    offset = np.where(before | (offset >= people + auctions), auctions - 1, offset - people)
    return epoch * auctions + offset


def some_person(config: NexmarkConfig, rng: np.random.Generator, ids: np.ndarray) -> np.ndarray:
    """A random active person, or one of the next few to come (``nextBase0PersonId``)."""
    people = last_person(config, ids) + 1
    active = np.minimum(people, config.active_people)
    return people - active + rng.integers(0, active + PERSON_ID_LEAD)


def some_auction(config: NexmarkConfig, rng: np.random.Generator, ids: np.ndarray) -> np.ndarray:
    """A random auction likely still open, or one of the next few to come (``nextBase0AuctionId``)."""
    newest = last_auction(config, ids)
    oldest = np.maximum(newest - config.in_flight_auctions, 0)
    return oldest + rng.integers(0, newest - oldest + 1 + AUCTION_ID_LEAD)


def prices(rng: np.random.Generator, count: int) -> np.ndarray:
    """``Math.round(10 ** (u * 6) * 100)`` for uniform ``u``: log-uniform cents between 1 dollar and 1 million."""
    return np.floor(10.0 ** (rng.random(count) * 6.0) * 100.0 + 0.5).astype(np.int64)


def _pick(rng: np.random.Generator, choices: list[str], count: int) -> pa.Array:
    return pa.array(choices).take(pa.array(rng.integers(0, len(choices), size=count)))


def persons(config: NexmarkConfig, rng: np.random.Generator, ids: np.ndarray, times: np.ndarray,
            text: np.ndarray) -> dict[str, pa.Array]:
    """The person fields of events ``ids`` (``PersonGenerator.nextPerson``)."""
    count = len(ids)
    first, last = _pick(rng, FIRST_NAMES, count), _pick(rng, LAST_NAMES, count)
    name = pc.binary_join_element_wise(first, last, " ")
    email = pc.binary_join_element_wise(strings.words(rng, count, 7), strings.words(rng, count, 5), "@")
    email = pc.binary_join_element_wise(email, pa.scalar(".com"), "")
    cards = [pc.utf8_lpad(pa.array(rng.integers(0, 10_000, size=count)).cast(pa.string()), 4, "0") for _ in range(4)]
    card = pc.binary_join_element_wise(*cards, " ")
    city, state = _pick(rng, US_CITIES, count), _pick(rng, US_STATES, count)
    size = 8 + sum(pc.utf8_length(a).to_numpy() for a in (name, email, card, city, state))
    return {"id": pa.array(last_person(config, ids) + FIRST_PERSON_ID), "name": name, "email_address": email,
            "credit_card": card, "city": city, "state": state, "date_time": pa.array(times, TIME),
            "extra": strings.extras(rng, text, size, config.avg_person_bytes)}


def auctions(config: NexmarkConfig, rng: np.random.Generator, ids: np.ndarray, times: np.ndarray,
             text: np.ndarray) -> dict[str, pa.Array]:
    """The auction fields of events ``ids`` (``AuctionGenerator.nextAuction``)."""
    count = len(ids)
    hot = rng.integers(0, config.hot_sellers_ratio, size=count) > 0
    hot_seller = last_person(config, ids) // HOT_SELLER_GROUP * HOT_SELLER_GROUP
    seller = np.where(hot, hot_seller, some_person(config, rng, ids)) + FIRST_PERSON_ID
    category = FIRST_CATEGORY_ID + rng.integers(0, CATEGORIES, size=count)
    initial_bid = prices(rng, count)
    # An auction lasts on average until the auction `in_flight_auctions` ahead of it is created.
    ahead = config.in_flight_auctions * config.total_proportion // config.auction_proportion
    horizon = config.timestamps(ids + ahead) - times
    expires = times + 1 + rng.integers(0, np.maximum(horizon * 2, 1))
    item_name, description = strings.words(rng, count, 20), strings.words(rng, count, 100)
    reserve = initial_bid + prices(rng, count)
    size = 8 + pc.utf8_length(item_name).to_numpy() + pc.utf8_length(description).to_numpy() + 40
    return {"id": pa.array(last_auction(config, ids) + FIRST_AUCTION_ID), "item_name": item_name,
            "description": description, "initial_bid": pa.array(initial_bid), "reserve": pa.array(reserve),
            "date_time": pa.array(times, TIME), "expires": pa.array(expires, TIME), "seller": pa.array(seller),
            "category": pa.array(category), "extra": strings.extras(rng, text, size, config.avg_auction_bytes)}


def bids(config: NexmarkConfig, rng: np.random.Generator, ids: np.ndarray, times: np.ndarray, text: np.ndarray,
         urls: tuple[list[str], list[str]]) -> dict[str, pa.Array]:
    """The bid fields of events ``ids`` (``BidGenerator.nextBid``)."""
    count = len(ids)
    hot_auction = last_auction(config, ids) // HOT_AUCTION_GROUP * HOT_AUCTION_GROUP
    hot = rng.integers(0, config.hot_auction_ratio, size=count) > 0
    auction = np.where(hot, hot_auction, some_auction(config, rng, ids)) + FIRST_AUCTION_ID
    hot_bidder = last_person(config, ids) // HOT_BIDDER_GROUP * HOT_BIDDER_GROUP + 1  # not a hot seller
    hot = rng.integers(0, config.hot_bidders_ratio, size=count) > 0
    bidder = np.where(hot, hot_bidder, some_person(config, rng, ids)) + FIRST_PERSON_ID
    channel, url = strings.bid_channels(rng, count, urls)
    return {"auction": pa.array(auction), "bidder": pa.array(bidder), "price": pa.array(prices(rng, count)),
            "channel": channel, "url": url, "date_time": pa.array(times, TIME),
            "extra": strings.extras(rng, text, np.full(count, 32), config.avg_bid_bytes)}


def _struct(fields: dict[str, pa.Array], kind: np.ndarray, wanted: int, struct_type: pa.StructType) -> pa.Array:
    """The struct column of one kind: its rows where ``kind == wanted``, null elsewhere."""
    present = kind == wanted
    rank = np.cumsum(present) - 1
    index = pa.array(rank, mask=~present)
    children = [fields[f.name].take(index).cast(f.type) for f in struct_type]
    return pa.StructArray.from_arrays(children, fields=list(struct_type), mask=pa.array(~present))


def events_table(config: NexmarkConfig, file: int, urls: tuple[list[str], list[str]]) -> pa.Table:
    """File ``file``'s events: the next ``events_per_file`` in arrival order (fewer in the last file)."""
    rng = np.random.default_rng((config.seed, 1, file))
    text = strings.reused_text(rng)
    start = file * config.events_per_file
    arrivals = np.arange(start, min(start + config.events_per_file, config.events), dtype=np.int64)
    ids = config.adjusted(arrivals)
    times = config.timestamps(ids)
    offset = ids % config.total_proportion
    kind = np.where(offset < config.person_proportion, PERSON,
                    np.where(offset < config.person_proportion + config.auction_proportion, AUCTION, BID))
    kinds = {PERSON: persons, AUCTION: auctions}
    columns = {k: make(config, rng, ids[kind == k], times[kind == k], text) for k, make in kinds.items()}
    columns[BID] = bids(config, rng, ids[kind == BID], times[kind == BID], text, urls)
    return pa.table({
        "event_type": pa.array(kind.astype(np.int32)),
        "person": _struct(columns[PERSON], kind, PERSON, PERSON_TYPE),
        "auction": _struct(columns[AUCTION], kind, AUCTION, AUCTION_TYPE),
        "bid": _struct(columns[BID], kind, BID, BID_TYPE),
        "date_time": pa.array(times, TIME),
    }, schema=SCHEMA)


def directory_name(config: NexmarkConfig) -> str:
    """The cache directory's name for ``config``: every parameter that changes the files."""
    return (f"nexmark-v{GENERATOR_VERSION}-{config.events}ev-{config.events_per_file}per-file-seed{config.seed}"
            f"-rate{config.rate}-disorder{config.disorder_ms}ms")


def write_events(config: NexmarkConfig, cache: Path) -> Path:
    """The directory of ``config``'s Parquet files under ``cache``, generated unless already there.

    A directory is complete once its ``generator.json`` (the configuration)
    is written, last; an incomplete one is generated again. Files are named
    and dated in arrival order (``part-00000.parquet`` ...), since Spark's file
    source reads them in modification-time order.
    """
    directory = cache / directory_name(config)
    marker = directory / "generator.json"
    if marker.exists() and json.loads(marker.read_text()) == asdict(config):
        return directory / "events"
    shutil.rmtree(directory, ignore_errors=True)
    (directory / "events").mkdir(parents=True)
    urls = strings.channel_urls(np.random.default_rng((config.seed, 0)))
    for file in range(config.files):
        path = directory / "events" / f"part-{file:05d}.parquet"
        pq.write_table(events_table(config, file, urls), path)
        os.utime(path, (1_600_000_000 + file, 1_600_000_000 + file))
    marker.write_text(json.dumps(asdict(config), indent=1))
    return directory / "events"


def read_events(directory: Path) -> pa.Table:
    """Every event of a directory :func:`write_events` made, in arrival order."""
    return pa.concat_tables(pq.read_table(path) for path in sorted(directory.glob("part-*.parquet")))
