"""The worked example of Storm's windowing docs, tuple for tuple.

Window length 20 s, sliding interval 10 s, watermark every 1 s, lag 5 s.

    |-----|-----|-----|-----|-----|-----|-----|
    0     10    20    30    40    50    60    70    (seconds past 06:00:00)

e1..e6 arrive between 09:00:00 and 09:00:01; the watermark at 09:00:01 is
06:00:31 (e6 at 06:00:36 minus the lag) and three windows fire. e7..e10 arrive
before 09:00:02; the watermark 08:00:34 fires three more.
"""

from topologies.testing import BoltHarness
from windowing import Duration

from .helpers import Recorder, summary


def at(h, m, s):
    return ((h * 60 + m) * 60 + s) * 1000


def test_the_six_windows_of_the_docs():
    bolt = (
        Recorder()
        .with_window(Duration.seconds(20), Duration.seconds(10))
        .with_timestamp_field("ts")
        .with_lag(Duration.seconds(5))
        .with_watermark_interval(Duration.seconds(1))
    )
    h = BoltHarness(bolt, fields=("name", "ts"), start_time_ms=at(9, 0, 0))
    for name, ts in [("e1", at(6, 0, 3)), ("e2", at(6, 0, 5)), ("e3", at(6, 0, 7)),
                     ("e4", at(6, 0, 18)), ("e5", at(6, 0, 26)), ("e6", at(6, 0, 36))]:
        h.feed({"name": name, "ts": ts})
    h.advance(Duration.seconds(1))
    assert h.watermark == at(6, 0, 31)
    assert len(h.windows) == 3
    for name, ts in [("e7", at(8, 0, 25)), ("e8", at(8, 0, 26)), ("e9", at(8, 0, 27)), ("e10", at(8, 0, 39))]:
        h.feed({"name": name, "ts": ts})
    h.advance(Duration.seconds(1))
    assert h.watermark == at(8, 0, 34)

    assert summary(h) == [
        (["e1", "e2", "e3"], ["e1", "e2", "e3"], [], at(5, 59, 50), at(6, 0, 10)),
        (["e1", "e2", "e3", "e4"], ["e4"], [], at(6, 0, 0), at(6, 0, 20)),
        (["e4", "e5"], ["e5"], ["e1", "e2", "e3"], at(6, 0, 10), at(6, 0, 30)),
        (["e5", "e6"], ["e6"], ["e4"], at(6, 0, 20), at(6, 0, 40)),
        (["e6"], [], ["e5"], at(6, 0, 30), at(6, 0, 50)),
        (["e7", "e8", "e9"], ["e7", "e8", "e9"], [], at(8, 0, 10), at(8, 0, 30)),
    ]
    assert h.late == []
    assert h.emitted == [("default", [names]) for names in (
        ["e1", "e2", "e3"], ["e1", "e2", "e3", "e4"], ["e4", "e5"], ["e5", "e6"], ["e6"], ["e7", "e8", "e9"])]


def test_e10_fires_when_the_input_ends():
    bolt = Recorder().with_window(Duration.seconds(20), Duration.seconds(10)).with_timestamp_field("ts")
    bolt = bolt.with_lag(Duration.seconds(5))
    h = BoltHarness(bolt, fields=("name", "ts"))
    for name, ts in [("e9", at(8, 0, 27)), ("e10", at(8, 0, 39))]:
        h.feed({"name": name, "ts": ts})
    h.advance(Duration.seconds(1))
    h.close()
    assert summary(h)[-2:] == [
        (["e9", "e10"], ["e10"], [], at(8, 0, 20), at(8, 0, 40)),
        (["e10"], [], ["e9"], at(8, 0, 30), at(8, 0, 50)),
    ]
