"""The Nexmark generator's port: nexmark's proportions, ids, hot items, event times, disorder, determinism, cache."""

from __future__ import annotations

import numpy as np
import pyarrow.compute as pc
import pytest

from benchmarks.nexmark.generator import (
    AUCTION,
    BID,
    FIRST_AUCTION_ID,
    FIRST_PERSON_ID,
    PERSON,
    NexmarkConfig,
    events_table,
    read_events,
    write_events,
)
from benchmarks.nexmark.strings import channel_urls

URLS = channel_urls(np.random.default_rng(0))


def table(config: NexmarkConfig, file: int = 0):
    return events_table(config, file, URLS)


def column(t, kind: str, field: str) -> np.ndarray:
    return pc.struct_field(t[kind].combine_chunks(), field).drop_null().to_numpy()


def test_of_every_50_events_1_is_a_person_3_are_auctions_and_46_are_bids():
    kinds = table(NexmarkConfig(events=5_000, events_per_file=5_000))["event_type"].to_numpy()
    assert np.bincount(kinds).tolist() == [100, 300, 4_600]
    assert kinds[:50].tolist() == [PERSON] + [AUCTION] * 3 + [BID] * 46


def test_persons_and_auctions_take_the_next_ids_and_bids_point_at_auctions_and_persons_that_exist_or_come_soon():
    t = table(NexmarkConfig(events=5_000, events_per_file=5_000))
    persons, auctions = column(t, "person", "id"), column(t, "auction", "id")
    assert persons.tolist() == list(range(FIRST_PERSON_ID, FIRST_PERSON_ID + 100))
    assert auctions.tolist() == list(range(FIRST_AUCTION_ID, FIRST_AUCTION_ID + 300))
    bid_auctions, bidders = column(t, "bid", "auction"), column(t, "bid", "bidder")
    assert bid_auctions.min() >= FIRST_AUCTION_ID and bid_auctions.max() <= auctions.max() + 10
    assert bidders.min() >= FIRST_PERSON_ID and bidders.max() <= persons.max() + 10
    sellers = column(t, "auction", "seller")
    assert sellers.min() >= FIRST_PERSON_ID and sellers.max() <= persons.max() + 10


def test_hot_auctions_bidders_and_sellers_take_nexmarks_shares():
    """Half the bids go to a hot auction, 3 in 4 to a hot bidder; 3 in 4 auctions have a hot seller."""
    t = table(NexmarkConfig(events=50_000, events_per_file=50_000))
    bid_auctions, bidders = column(t, "bid", "auction"), column(t, "bid", "bidder")
    sellers = column(t, "auction", "seller")
    assert 0.47 < np.mean((bid_auctions - FIRST_AUCTION_ID) % 100 == 0) < 0.56
    assert 0.72 < np.mean((bidders - FIRST_PERSON_ID) % 100 == 1) < 0.79
    assert 0.72 < np.mean((sellers - FIRST_PERSON_ID) % 100 == 0) < 0.79


def test_events_are_100_us_apart_at_10000_per_second_and_in_order_without_disorder():
    config = NexmarkConfig(events=5_000, events_per_file=5_000)
    ms = table(config)["date_time"].cast("int64").to_numpy()
    assert ms[0] == config.base_time_ms and ms[-1] == config.base_time_ms + 499
    assert np.all(np.diff(ms) >= 0)


def test_disorder_permutes_each_out_of_order_group_and_keeps_events_within_it():
    config = NexmarkConfig(events=20_000, events_per_file=20_000, disorder_ms=500)  # groups of 5,000 events
    t = table(config)
    ms = t["date_time"].cast("int64").to_numpy() - config.base_time_ms
    assert np.any(np.diff(ms) < 0)
    groups = np.arange(len(ms)) // config.out_of_order_group
    assert np.all(ms // 500 == groups)  # every event stays in its group's 500 ms
    assert np.bincount(t["event_type"].to_numpy()).tolist() == [400, 1_200, 18_400]


def test_a_seed_gives_the_same_events_and_another_seed_others():
    config = NexmarkConfig(events=3_000, events_per_file=3_000)
    assert table(config).equals(table(config))
    assert not table(config).equals(table(NexmarkConfig(events=3_000, events_per_file=3_000, seed=7)))


def test_bids_and_persons_are_about_their_average_size():
    t = table(NexmarkConfig(events=5_000, events_per_file=5_000))
    bid_extra = pc.utf8_length(pc.struct_field(t["bid"].combine_chunks(), "extra").drop_null()).to_numpy()
    assert 54 <= bid_extra.min() and bid_extra.max() <= 81  # 100 bytes less the 32 of its numbers, within 20%
    names = pc.struct_field(t["person"].combine_chunks(), "name").drop_null().to_pylist()
    assert all(len(name.split(" ")) == 2 for name in names)


@pytest.mark.parametrize("events", [10_000, 9_999])
def test_files_are_written_once_in_arrival_order_and_read_back_whole(tmp_path, events):
    config = NexmarkConfig(events=events, events_per_file=4_000)
    directory = write_events(config, tmp_path)
    files = sorted(directory.glob("part-*.parquet"))
    assert len(files) == 3 and [f.stat().st_mtime for f in files] == sorted(f.stat().st_mtime for f in files)
    written = [f.stat().st_mtime_ns for f in files]
    assert write_events(config, tmp_path) == directory
    assert [f.stat().st_mtime_ns for f in files] == written  # cached, not written again
    assert read_events(directory).num_rows == events
