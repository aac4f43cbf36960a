"""Storm's ``Config`` in Python spelling: its keys, its setters, what each key does on Spark, and where it is checked.

Most tests need no Spark: the conf is checked, the state store chosen and the
no-effect keys listed before ``SparkRunner`` touches its session, so a stand-in
session object does there. Two bounded runs at the end (marked ``spark``) show
the user's keys reaching ``prepare`` through ``SparkRunner`` and ``squall run``.
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from state_backends.urls import split_url
from topologies import cli
from topologies import runner as runner_module
from topologies.config import (
    KNOWN_KEYS,
    MEANINGFUL,
    NO_EFFECT,
    Config,
    check_conf,
    no_effect_keys,
    no_effect_message,
)
from topologies.runner import SparkRunner
from topologies.state_providers import (
    HBASE_PROVIDER,
    IN_MEMORY_PROVIDER,
    REDIS_PROVIDER,
    provider_state,
    resolve_state,
)

PROVIDER = Config.TOPOLOGY_STATE_PROVIDER
PROVIDER_CONFIG = Config.TOPOLOGY_STATE_PROVIDER_CONFIG
# Storm 2.x's Config.java (storm-client/src/jvm/org/apache/storm/Config.java) declares 136 TOPOLOGY_* keys.
STORM_CONSTANTS = 136


# --- Storm's keys --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "key"), [
    ("TOPOLOGY_DEBUG", "topology.debug"),
    ("TOPOLOGY_WORKERS", "topology.workers"),
    ("TOPOLOGY_MESSAGE_TIMEOUT_SECS", "topology.message.timeout.secs"),
    ("TOPOLOGY_MAX_SPOUT_PENDING", "topology.max.spout.pending"),
    ("TOPOLOGY_TICK_TUPLE_FREQ_SECS", "topology.tick.tuple.freq.secs"),
    ("TOPOLOGY_STATE_PROVIDER", "topology.state.provider"),
    ("TOPOLOGY_STATE_PROVIDER_CONFIG", "topology.state.provider.config"),
    ("TOPOLOGY_STATE_CHECKPOINT_INTERVAL", "topology.state.checkpoint.interval.ms"),
    ("TOPOLOGY_KRYO_REGISTER", "topology.kryo.register"),
    ("TOPOLOGY_EVENTLOGGER_EXECUTORS", "topology.eventlogger.executors"),
    ("TOPOLOGY_BOLTS_SLIDING_INTERVAL_COUNT", "topology.bolts.window.sliding.interval.count"),
    ("TOPOLOGY_TRIDENT_WINDOWING_INMEMORY_CACHE_LIMIT", "topology.trident.windowing.cache.tuple.limit"),
    ("TOPOLOGY_AUTO_CREDENTIALS", "topology.auto-credentials"),
    ("TOPOLOGY_ISOLATED_MACHINES", "topology.isolate.machines"),
    ("TOPOLOGY_LOGGING_CONFIG_FILE", "topology.logging.config"),
    ("TOPOLOGY_WORKER_MAX_HEAP_SIZE_MB", "topology.worker.max.heap.size.mb"),
    ("TOPOLOGY_BACKPRESSURE_WAIT_PROGRESSIVE_LEVEL3_SLEEP_MILLIS",
     "topology.backpressure.wait.progressive.level3.sleep.millis"),
    ("TOPOLOGY_OCI_IMAGE", "topology.oci.image"),
])
def test_constants_are_storms_key_strings(name, key):
    assert getattr(Config, name) == key


def constants() -> dict[str, str]:
    return {name: value for name, value in vars(Config).items() if name.startswith("TOPOLOGY_")}


def test_every_storm_constant_is_there_and_known():
    found = constants()
    assert len(found) == STORM_CONSTANTS
    assert len(set(found.values())) == STORM_CONSTANTS  # no two constants share a key
    assert all(value.startswith("topology.") for value in found.values())
    assert set(found.values()) <= KNOWN_KEYS


def test_every_known_key_is_meaningful_or_has_no_effect_never_both():
    assert set(MEANINGFUL) | set(NO_EFFECT) == KNOWN_KEYS
    assert not set(MEANINGFUL) & set(NO_EFFECT)
    assert set(MEANINGFUL) == {Config.TOPOLOGY_DEBUG, Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS, PROVIDER, PROVIDER_CONFIG,
                               Config.TOPOLOGY_KRYO_REGISTER, Config.TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION}
    assert all(reason.strip() for reason in NO_EFFECT.values())
    # Keys Storm reads outside Config.java, and Storm 1.x's, are accepted without a constant.
    assert {"topology.spout.max.batch.size", "topology.disruptor.batch.size"} <= KNOWN_KEYS - set(constants().values())


def test_a_config_is_a_dict_spelt_as_storms_hashmap():
    conf = Config({"my.key": 1})
    conf[Config.TOPOLOGY_DEBUG] = True  # conf.put(Config.TOPOLOGY_DEBUG, true)
    assert isinstance(conf, dict)
    assert conf == {"my.key": 1, "topology.debug": True}
    assert check_conf(conf) == conf and type(check_conf(conf)) is dict


# --- setters -------------------------------------------------------------------------------------------------------

class MyConsumer:
    pass


@pytest.mark.parametrize(("call", "key", "stored"), [
    (lambda c: c.set_num_workers(4), "topology.workers", 4),
    (lambda c: c.set_num_ackers(0), "topology.acker.executors", 0),
    (lambda c: c.set_num_event_loggers(2), "topology.eventlogger.executors", 2),
    (lambda c: c.set_message_timeout_secs(30), "topology.message.timeout.secs", 30),
    (lambda c: c.set_debug(True), "topology.debug", True),
    (lambda c: c.set_max_task_parallelism(8), "topology.max.task.parallelism", 8),
    (lambda c: c.set_max_spout_pending(1000), "topology.max.spout.pending", 1000),
    (lambda c: c.set_stats_sample_rate(0.05), "topology.stats.sample.rate", 0.05),
    (lambda c: c.set_fall_back_on_java_serialization(False), "topology.fall.back.on.java.serialization", False),
    (lambda c: c.set_skip_missing_kryo_registrations(True), "topology.skip.missing.kryo.registrations", True),
    (lambda c: c.set_topology_worker_max_heap_size(768.5), "topology.worker.max.heap.size.mb", 768.5),
    (lambda c: c.set_topology_priority(0), "topology.priority", 0),
    (lambda c: c.set_topology_strategy("org.apache.storm.scheduler.resource.strategies.scheduling."
                                       "DefaultResourceAwareStrategy"),
     "topology.scheduler.strategy",
     "org.apache.storm.scheduler.resource.strategies.scheduling.DefaultResourceAwareStrategy"),
    (lambda c: c.set_kryo_factory("org.apache.storm.serialization.DefaultKryoFactory"), "topology.kryo.factory",
     "org.apache.storm.serialization.DefaultKryoFactory"),
    (lambda c: c.set_kryo_factory(MyConsumer), "topology.kryo.factory", f"{__name__}.MyConsumer"),
    (lambda c: c.set_classpath("/opt/lib/*"), "topology.classpath", "/opt/lib/*"),
    (lambda c: c.set_environment({"TZ": "UTC"}), "topology.environment", {"TZ": "UTC"}),
    (lambda c: c.set_topology_version("1.2"), "topology.version", "1.2"),
    (lambda c: c.set_topology_constraints_max_state_search(10_000), "topology.ras.constraint.max.state.search",
     10_000),
    (lambda c: c.register_decorator("com.example.Decorator"), "topology.kryo.decorators",
     ["com.example.Decorator"]),
    (lambda c: c.register_metrics_consumer(MyConsumer, {"k": 1}, parallelism_hint=2),
     "topology.metrics.consumer.register",
     [{"class": f"{__name__}.MyConsumer", "parallelism.hint": 2, "argument": {"k": 1}}]),
    (lambda c: c.register_event_logger("org.apache.storm.metric.FileBasedEventLogger"),
     "topology.event.logger.register",
     [{"class": "org.apache.storm.metric.FileBasedEventLogger", "arguments": None}]),
    (lambda c: c.set_topology_component_worker_constraints("spout", "sum"), "topology.ras.constraints",
     [["spout", "sum"]]),
])
def test_a_setter_sets_storms_key(call, key, stored):
    conf = Config()
    call(conf)
    assert conf == {key: stored}


@pytest.mark.parametrize(("call", "error", "words"), [
    (lambda c: c.set_num_workers(0), ValueError, "set_num_workers: `workers` must be positive; got 0"),
    (lambda c: c.set_num_workers("4"), TypeError, "set_num_workers: `workers` must be an int; got '4' (str)"),
    (lambda c: c.set_num_workers(True), TypeError, "set_num_workers: `workers` must be an int; got True (bool)"),
    (lambda c: c.set_num_workers(2.0), TypeError, "set_num_workers: `workers` must be an int; got 2.0 (float)"),
    (lambda c: c.set_num_ackers(-1), ValueError, "set_num_ackers: `num_executors` must be 0 or more; got -1"),
    (lambda c: c.set_message_timeout_secs(-30), ValueError, "set_message_timeout_secs: `secs` must be positive"),
    (lambda c: c.set_max_spout_pending(None), TypeError, "set_max_spout_pending: `pending` must be an int; got None"),
    (lambda c: c.set_debug("true"), TypeError, "set_debug: `is_on` must be True or False; got 'true' (str)"),
    (lambda c: c.set_debug(1), TypeError, "set_debug: `is_on` must be True or False; got 1 (int)"),
    (lambda c: c.set_stats_sample_rate(5), ValueError, "set_stats_sample_rate: `rate` is a fraction of the tuples, "
                                                       "at most 1; got 5"),
    (lambda c: c.set_stats_sample_rate(0), ValueError, "set_stats_sample_rate: `rate` must be a positive number"),
    (lambda c: c.set_stats_sample_rate(math.nan), ValueError, "set_stats_sample_rate: `rate` must be a positive"),
    (lambda c: c.set_topology_worker_max_heap_size("1g"), TypeError,
     "set_topology_worker_max_heap_size: `size` must be a number; got '1g' (str)"),
    (lambda c: c.set_topology_priority(-1), ValueError, "set_topology_priority: `priority` must be 0 or more"),
    (lambda c: c.set_kryo_factory(42), TypeError, "set_kryo_factory: `klass` must be a str; got 42 (int)"),
    (lambda c: c.set_topology_strategy(" "), ValueError, "set_topology_strategy: `klass` must not be empty"),
    (lambda c: c.set_environment({"TZ": 0}), TypeError, "set_environment: `env` must be a mapping of str to str"),
    (lambda c: c.register_metrics_consumer("C", parallelism_hint=0), ValueError,
     "register_metrics_consumer: `parallelism_hint` must be positive; got 0"),
    (lambda c: c.register_event_logger("L", ["not", "a", "map"]), TypeError,
     "register_event_logger: `argument` must be a mapping or None"),
    (lambda c: c.set_topology_component_worker_constraints("a", None), TypeError,
     "set_topology_component_worker_constraints: `component2` must be a str; got None"),
])
def test_a_setter_refuses_a_bad_value_naming_itself_and_the_value(call, error, words):
    conf = Config()
    with pytest.raises(error) as info:
        call(conf)
    assert str(info.value).startswith(words)
    assert conf == {}  # nothing was set


@given(st.integers())
def test_set_num_workers_takes_exactly_the_positive_ints(n):
    conf = Config()
    if n >= 1:
        conf.set_num_workers(n)
        assert conf[Config.TOPOLOGY_WORKERS] == n
    else:
        with pytest.raises(ValueError, match=rf"^set_num_workers: `workers` must be positive; got {n} instead$"):
            conf.set_num_workers(n)


def test_heap_size_none_leaves_the_conf_as_it_is():
    conf = Config()
    conf.set_topology_worker_max_heap_size(None)
    assert conf == {}


def test_registering_appends_to_a_new_list_so_a_copy_keeps_its_own():
    conf = Config()
    conf.register_decorator("a.Decorator")
    copy = dict(conf)
    conf.register_decorator("b.Decorator")
    assert conf[Config.TOPOLOGY_KRYO_DECORATORS] == ["a.Decorator", "b.Decorator"]
    assert copy[Config.TOPOLOGY_KRYO_DECORATORS] == ["a.Decorator"]
    conf[Config.TOPOLOGY_KRYO_DECORATORS] = "not a list"
    with pytest.raises(TypeError, match=r"^register_decorator: conf\['topology.kryo.decorators'\] must be a list"):
        conf.register_decorator("c.Decorator")


# --- checking a conf -----------------------------------------------------------------------------------------------

def test_an_unknown_topology_key_is_refused_naming_it_and_the_closest_key():
    with pytest.raises(ValueError, match=r"^SparkRunner: conf holds 'topology.mesage.timeout.secs' \(did you mean "
                                         r"'topology.message.timeout.secs'\?\), not among Storm's topology\.\* keys; "
                                         r"a key of your own must not start with 'topology.'$"):
        check_conf({"topology.mesage.timeout.secs": 30, "my.key": 1})


def test_every_unknown_key_is_named_with_a_suggestion_only_when_one_is_close():
    with pytest.raises(ValueError) as info:
        check_conf({"topology.debgu": True, "topology.my.own.thing": 1}, "squall run")
    message = str(info.value)
    assert message.startswith("squall run: conf holds 'topology.debgu' (did you mean 'topology.debug'?), "
                              "'topology.my.own.thing', not among")


@given(st.dictionaries(st.text().filter(lambda k: not k.startswith("topology.")), st.integers() | st.text()))
def test_keys_of_the_users_own_pass_untouched(conf):
    assert check_conf(conf) == conf


def test_a_conf_must_be_a_mapping():
    assert check_conf(None) == {}
    with pytest.raises(TypeError, match=r"^SparkRunner: `conf` must be a Config or a mapping of str keys; got "
                                        r"\[\('topology.debug', True\)\] instead$"):
        check_conf([("topology.debug", True)])


def test_debug_must_be_a_bool():
    assert check_conf({"topology.debug": None}) == {"topology.debug": None}  # None: not set
    with pytest.raises(TypeError, match=r"^SparkRunner: conf\['topology.debug'\] must be True or False; got 'yes'"):
        check_conf({"topology.debug": "yes"})


@pytest.mark.parametrize("seconds", [1, 10, 0.5, None])
def test_a_tick_frequency_is_a_positive_number(seconds):
    assert check_conf({Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS: seconds})


@pytest.mark.parametrize(("seconds", "error", "words"), [
    (0, ValueError, "must be a positive number of seconds; got 0 instead"),
    (-5, ValueError, "must be a positive number of seconds; got -5 instead"),
    (math.inf, ValueError, "must be a positive number of seconds; got inf instead"),
    ("10", TypeError, "must be a number of seconds; got '10' (str) instead"),
    (True, TypeError, "must be a number of seconds; got True (bool) instead"),
])
def test_a_bad_tick_frequency_is_refused_naming_the_key_and_the_value(seconds, error, words):
    with pytest.raises(error) as info:
        check_conf({Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS: seconds})
    assert str(info.value) == f"SparkRunner: conf['topology.tick.tuple.freq.secs'] {words}"


# --- keys with no effect -------------------------------------------------------------------------------------------

def test_the_keys_with_no_effect_are_listed_with_why_in_the_confs_order():
    conf = Config({"my.key": 1})
    conf.set_max_spout_pending(100)
    conf.set_debug(True)
    conf.set_num_workers(3)
    conf[Config.TOPOLOGY_STATE_CHECKPOINT_INTERVAL] = 1000
    found = no_effect_keys(conf)
    assert list(found) == ["topology.max.spout.pending", "topology.workers", "topology.state.checkpoint.interval.ms"]
    assert "max_files_per_trigger" in found["topology.max.spout.pending"]
    assert "spark.executor.instances" in found["topology.workers"]
    assert found["topology.state.checkpoint.interval.ms"].startswith("squall commits state with every micro-batch")
    line = no_effect_message(conf)
    assert line.startswith("3 Storm setting(s) in conf have no effect on Spark: topology.max.spout.pending (")
    assert "\n" not in line


def test_nothing_is_listed_when_every_key_means_something():
    conf = {"topology.debug": True, "topology.tick.tuple.freq.secs": 5, "mine": 1}
    assert no_effect_keys(conf) == {}
    assert no_effect_message(conf) is None


def test_provider_config_nobody_reads_and_unused_fields_are_listed():
    lone = {PROVIDER_CONFIG: '{"jedisPoolConfig": {"host": "r"}}'}
    assert no_effect_keys(lone) == {PROVIDER_CONFIG: "no topology.state.provider reads it"}
    in_memory = {PROVIDER: IN_MEMORY_PROVIDER, PROVIDER_CONFIG: "{}"}
    assert no_effect_keys(in_memory) == {PROVIDER_CONFIG: "the in-memory provider reads no config"}
    redis = {PROVIDER: REDIS_PROVIDER, PROVIDER_CONFIG: json.dumps(
        {"keyClass": "java.lang.String", "jedisPoolConfig": {"host": "r", "timeout": 2000}})}
    assert list(no_effect_keys(redis)) == ["topology.state.provider.config[keyClass]",
                                           "topology.state.provider.config[jedisPoolConfig.timeout]"]


def test_the_runner_logs_the_keys_with_no_effect_once_on_one_warning_line(caplog):
    conf = Config()
    conf.set_num_workers(2)
    conf.set_message_timeout_secs(30)
    with caplog.at_level(logging.WARNING, logger="squall.config"):
        runner = SparkRunner(object(), conf=conf, checkpoint_location="ck")
    records = [r for r in caplog.records if r.name == "squall.config"]
    assert len(records) == 1 and records[0].levelno == logging.WARNING
    assert records[0].getMessage() == no_effect_message(conf)
    assert "topology.workers (" in records[0].getMessage() and "topology.message.timeout.secs (" in \
        records[0].getMessage()
    assert runner.conf == conf and type(runner.conf) is dict


def test_the_runner_warns_once_naming_the_fall_back_key_and_its_cost_when_a_conf_sets_it(caplog):
    conf = Config()
    conf.set_fall_back_on_java_serialization(True)
    assert no_effect_keys(conf) == {}  # no longer a key with no effect
    with caplog.at_level(logging.WARNING, logger="squall.config"):
        SparkRunner(object(), conf=conf, checkpoint_location="ck")
    records = [r for r in caplog.records if r.name == "squall.config"]
    assert len(records) == 1 and records[0].levelno == logging.WARNING
    assert records[0].getMessage().startswith("topology.fall.back.on.java.serialization is set: ")
    assert "anyone who can write to the state store can run code" in records[0].getMessage()
    caplog.clear()
    conf.set_fall_back_on_java_serialization(False)
    with caplog.at_level(logging.WARNING, logger="squall.config"):
        SparkRunner(object(), conf=conf, checkpoint_location="ck")
    assert not [r for r in caplog.records if r.name == "squall.config"]


def test_the_fall_back_key_must_be_a_bool():
    with pytest.raises(TypeError, match=r"^SparkRunner: conf\['topology.fall.back.on.java.serialization'\] must be "
                                        r"True or False; got 'true' instead$"):
        check_conf({Config.TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION: "true"})
    with pytest.raises(TypeError, match=r"set_fall_back_on_java_serialization: `fallback` must be True or False"):
        Config().set_fall_back_on_java_serialization(1)


def test_the_runner_refuses_an_unknown_key_before_it_touches_spark():
    with pytest.raises(ValueError, match=r"did you mean 'topology.max.spout.pending'\?"):
        SparkRunner(object(), conf={"topology.max.spout.pendng": 5}, checkpoint_location="ck")


# --- Storm's state providers ---------------------------------------------------------------------------------------

def redis_conf(pool=None, **fields):
    config = {"jedisPoolConfig": pool, **fields} if pool is not None else fields
    return {PROVIDER: REDIS_PROVIDER, PROVIDER_CONFIG: json.dumps(config)}


def hbase_conf(settings=None, **fields):
    config = {"hbaseConfigKey": "hbase.conf", "tableName": "wordcount", "columnFamily": "cf", **fields}
    conf = {PROVIDER: HBASE_PROVIDER, PROVIDER_CONFIG: json.dumps(config)}
    if settings is not None:
        conf["hbase.conf"] = settings
    return conf


def test_storms_in_memory_provider_is_memory():
    assert provider_state({PROVIDER: IN_MEMORY_PROVIDER}).url == "memory://"
    assert provider_state({}) is None
    assert resolve_state(None, {}) == "memory://"


@pytest.mark.parametrize(("pool", "url"), [
    ({"host": "redis.example", "port": 6380, "database": 2}, "redis://redis.example:6380/2"),
    ({"host": "redis.example", "port": 6379, "password": "s3cret", "database": 0}, "redis://:s3cret@redis.example:6379/0"),
    ({"host": "10.0.0.5"}, "redis://10.0.0.5:6379/0"),  # Jedis's defaults for what is left out
    ({"host": "::1", "port": 7000}, "redis://[::1]:7000/0"),
    ({"host": "r", "password": None, "database": None}, "redis://r:6379/0"),  # null: not set, as Storm reads it
    ({}, "redis://localhost:6379/0"),
])
def test_storms_redis_provider_becomes_a_redis_url(pool, url):
    assert provider_state(redis_conf(pool)).url == url
    assert resolve_state(None, redis_conf(pool)) == url


def test_redis_without_provider_config_is_jedis_default():
    assert provider_state({PROVIDER: REDIS_PROVIDER}).url == "redis://localhost:6379/0"


def test_the_provider_config_may_be_a_mapping():
    conf = {PROVIDER: REDIS_PROVIDER, PROVIDER_CONFIG: {"jedisPoolConfig": {"host": "r", "port": 1234}}}
    assert provider_state(conf).url == "redis://r:1234/0"


@given(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1))
def test_any_redis_password_comes_back_whole_from_the_url(password):
    url = provider_state(redis_conf({"host": "r", "password": password})).url
    parts = split_url(url)
    assert parts.hostname == "r" and parts.port == 6379 and parts.path == "/0"
    from urllib.parse import unquote

    assert unquote(parts.password) == password


@pytest.mark.parametrize(("conf", "error", "words"), [
    (redis_conf(jedisClusterConfig={"nodes": ["a:7000"]}), ValueError,
     "has jedisClusterConfig (a Redis Cluster), but squall's Redis backend talks to one server"),
    (redis_conf({"host": "r", "maxTotal": 8}), ValueError,
     "'s jedisPoolConfig has the field 'maxTotal', which Storm's provider does not read; its fields are: host, port"),
    (redis_conf(jedisConfig={}), ValueError, "has the field 'jedisConfig', which Storm's provider does not read"),
    (redis_conf({"host": "r", "port": "6379"}), TypeError,
     "the state provider's jedisPoolConfig.port must be a int; got '6379' (str) instead"),
    (redis_conf({"host": "r", "port": 70000}), ValueError, "jedisPoolConfig.port must be a port from 1 to 65535"),
    (redis_conf({"host": "r", "database": -1}), ValueError, "jedisPoolConfig.database must be 0 or more; got -1"),
    ({PROVIDER: REDIS_PROVIDER, PROVIDER_CONFIG: "{jedisPoolConfig: "}, ValueError,
     "conf['topology.state.provider.config'] is not JSON (Expecting property name"),
    ({PROVIDER: REDIS_PROVIDER, PROVIDER_CONFIG: "[1, 2]"}, TypeError,
     "conf['topology.state.provider.config'] must be a JSON object (a str) or a mapping; got [1, 2] instead"),
    ({PROVIDER: "org.apache.storm.cassandra.state.CassandraStateProvider"}, ValueError,
     "conf['topology.state.provider'] = 'org.apache.storm.cassandra.state.CassandraStateProvider' is not a state "
     f"provider squall can map onto a state store; the providers it maps are: {IN_MEMORY_PROVIDER}, "
     f"{REDIS_PROVIDER}, {HBASE_PROVIDER}"),
    ({PROVIDER: 7}, TypeError, "conf['topology.state.provider'] must be a class name (a str); got 7 instead"),
])
def test_a_provider_squall_cannot_map_is_refused_by_name(conf, error, words):
    with pytest.raises(error) as info:
        check_conf(conf)
    assert str(info.value).startswith("SparkRunner: ")
    assert words in str(info.value)


def test_storms_hbase_provider_becomes_an_hbase_url_on_the_thrift_server():
    settings = {"hbase.rootdir": "hdfs://nn/hbase", "hbase.zookeeper.quorum": "zk1,zk2",
                "hbase.regionserver.thrift.ipaddress": "thrift.example", "hbase.regionserver.thrift.port": "9091"}
    state = provider_state(hbase_conf(settings, keySerializerClass="my.Serializer"))
    assert state.url == "hbase://thrift.example:9091/wordcount"
    assert set(state.ignored) == {"keySerializerClass", "columnFamily"}
    assert "wordcount_state" in state.ignored["columnFamily"]
    default_port = {"hbase.regionserver.thrift.ipaddress": "10.1.1.1"}
    assert provider_state(hbase_conf(default_port)).url == "hbase://10.1.1.1:9090/wordcount"


@pytest.mark.parametrize(("conf", "words"), [
    (hbase_conf({"hbase.zookeeper.quorum": "zk1"}),
     "squall reaches HBase through its Thrift server, so conf['hbase.conf'] must name it with "
     "'hbase.regionserver.thrift.ipaddress'"),
    (hbase_conf({"hbase.regionserver.thrift.ipaddress": "0.0.0.0"}), "(a host clients reach, not a wildcard)"),
    (hbase_conf(), "hbaseConfigKey is 'hbase.conf', but conf['hbase.conf'] holds no map of HBase settings; got None"),
    (hbase_conf({"hbase.regionserver.thrift.ipaddress": "h"}, tableName="ns:table"),
     "tableName 'ns:table' cannot name squall's table <tableName>_state"),
    (hbase_conf({"hbase.regionserver.thrift.ipaddress": "h"}, columnFamily=""),
     "must give columnFamily, as Storm's HBase provider requires"),
])
def test_an_hbase_provider_without_what_squall_needs_is_refused_saying_what_to_add(conf, words):
    with pytest.raises(ValueError) as info:
        check_conf(conf)
    assert words in str(info.value)


@pytest.mark.parametrize(("state", "conf"), [
    ("redis://r:6380/2", redis_conf({"host": "r", "port": 6380, "database": 2})),
    ("rediss://user:pw@R:6380/2?ssl_cert_reqs=none", redis_conf({"host": "r", "port": 6380, "database": 2})),
    ("redis://r:6379", redis_conf({"host": "r", "password": "pw"})),  # a password only one side gives
    ("memory://shared", {PROVIDER: IN_MEMORY_PROVIDER}),
    ("hbase://h:9090/wordcount", hbase_conf({"hbase.regionserver.thrift.ipaddress": "h"})),
])
def test_state_and_a_provider_that_agree_run_with_state_as_given(state, conf):
    assert resolve_state(state, conf) == state


@pytest.mark.parametrize(("state", "conf", "shown"), [
    ("memory://", redis_conf({"host": "r"}), "'redis://r:6379/0'"),
    ("redis://r:6379/1", redis_conf({"host": "r"}), "'redis://r:6379/0'"),
    ("redis://:other@r:6379/0", redis_conf({"host": "r", "password": "s3cret"}), "'redis://:***@r:6379/0'"),
    ("hbase://h:9090/squall", hbase_conf({"hbase.regionserver.thrift.ipaddress": "h"}),
     "'hbase://h:9090/wordcount'"),
])
def test_state_and_a_provider_that_disagree_are_refused_naming_both(state, conf, shown):
    with pytest.raises(ValueError) as info:
        resolve_state(state, conf, "squall run", "--state")
    message = str(info.value)
    assert message.startswith(f"squall run: --state='{state.replace('other', '***')}' and "
                              f"conf['topology.state.provider'] = '{conf[PROVIDER]}' (with its config: {shown})")
    assert message.endswith("name different state stores; give one of them, or make them agree")
    assert "s3cret" not in message and "other" not in message


def test_the_runner_takes_its_state_from_the_provider_when_state_is_not_given(monkeypatch):
    opened = []
    monkeypatch.setattr(runner_module, "open_backend", lambda url: opened.append(url) or object())
    runner = SparkRunner(object(), conf=redis_conf({"host": "r", "database": 3}), checkpoint_location="ck")
    assert runner.state == "redis://r:6379/3" and opened == ["redis://r:6379/3"]
    assert SparkRunner(object(), checkpoint_location="ck").state == "memory://"


def test_the_runner_refuses_state_and_provider_that_disagree_before_connecting(monkeypatch):
    monkeypatch.setattr(runner_module, "open_backend", lambda url: pytest.fail(f"connected to {url}"))
    with pytest.raises(ValueError, match=r"^SparkRunner: state='memory://' and conf\['topology.state.provider'\]"):
        SparkRunner(object(), state="memory://", conf=redis_conf({"host": "r"}), checkpoint_location="ck")


def test_a_provider_state_the_mode_cannot_use_says_where_it_came_from():
    with pytest.raises(ValueError, match=r"cannot work; .* \(the state comes from "
                                         r"conf\['topology.state.provider'\] = 'org.apache.storm.state."
                                         r"InMemoryKeyValueStateProvider'\)$"):
        SparkRunner(object(), mode="distributed", conf={PROVIDER: IN_MEMORY_PROVIDER}, checkpoint_location="ck")


# --- squall run ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "pair"), [
    ("topology.debug=true", ("topology.debug", True)),
    ("topology.workers=2", ("topology.workers", 2)),
    ("topology.tick.tuple.freq.secs=0.5", ("topology.tick.tuple.freq.secs", 0.5)),
    ("my.name=abc", ("my.name", "abc")),
    ("my.list=[1, 2]", ("my.list", [1, 2])),
    ("my.eq=a=b", ("my.eq", "a=b")),
    ("my.empty=", ("my.empty", "")),
])
def test_a_conf_option_reads_its_value_as_json_else_as_text(text, pair):
    assert cli.parse_conf_option(text) == pair


@pytest.mark.parametrize("text", ["topology.debug", "=true"])
def test_a_conf_option_needs_key_and_equals(text):
    import argparse

    with pytest.raises(argparse.ArgumentTypeError, match=r"^--conf: expected KEY=VALUE such as topology.debug=true"):
        cli.parse_conf_option(text)


def test_conf_options_repeat_and_state_defaults_to_none():
    args = cli.parser().parse_args(["run", "t.py", "-c", "a=1", "--conf", "topology.debug=true"])
    assert args.conf == [("a", 1), ("topology.debug", True)]
    assert args.state is None
    assert cli.parser().parse_args(["run", "t.py"]).conf is None


TOPOLOGY_FILE = """
from tests.bolts_for_tests import ConfEcho
from topologies import TopologyBuilder
from topologies.config import Config
from topologies.spouts import FileSpout


def build_topology():
    builder = TopologyBuilder()
    builder.set_spout("in", FileSpout({data!r}, "json", ("value",), schema="value BIGINT"))
    builder.set_bolt("echo", ConfEcho()).shuffle_grouping("in")
    return builder.create_topology()

{conf}
"""

FILE_CONF = """
conf = Config()
conf.set_num_workers(3)
conf["my.threshold"] = 10
"""


def write_file(tmp_path: Path, conf: str = FILE_CONF) -> Path:
    data = tmp_path / "in"
    data.mkdir(exist_ok=True)
    (data / "part-0.json").write_text("\n".join(json.dumps({"value": v}) for v in (1, 2, 3)) + "\n")
    path = tmp_path / f"conf_echo_{len(list(tmp_path.glob('*.py')))}.py"
    path.write_text(TOPOLOGY_FILE.format(data=str(data), conf=conf), encoding="utf-8")
    return path


@pytest.mark.parametrize(("conf", "expected"), [
    (FILE_CONF, {"topology.workers": 3, "my.threshold": 10}),
    ("def build_conf():\n    return {'my.label': 'built'}", {"my.label": "built"}),
    ("", {}),
])
def test_a_topology_file_gives_its_conf_as_build_conf_or_conf(tmp_path, conf, expected):
    topology, file_conf = cli.load_file(str(write_file(tmp_path, conf)))
    assert file_conf == expected and type(file_conf) is dict
    assert set(topology.bolts) == {"echo"}


def test_a_file_conf_of_the_wrong_kind_is_refused_naming_the_file(tmp_path):
    path = write_file(tmp_path, "conf = ['topology.debug']")
    with pytest.raises(SystemExit, match=r"defines `conf` as \['topology.debug'\]; the conf must be a Config or a "
                                         r"dict$"):
        cli.load_file(str(path))


def test_conf_options_override_the_files_conf_and_are_checked():
    conf, state = cli.run_conf({"my.threshold": 10, "topology.workers": 3}, [("my.threshold", 20)], None)
    assert conf == {"my.threshold": 20, "topology.workers": 3} and state == "memory://"
    with pytest.raises(SystemExit, match=r"^squall run: conf holds 'topology.workrs' \(did you mean "
                                         r"'topology.workers'\?\)"):
        cli.run_conf({}, [("topology.workrs", 2)], None)
    with pytest.raises(SystemExit, match=r"^squall run: --state='memory://' and conf\['topology.state.provider'\]"):
        cli.run_conf(redis_conf({"host": "r"}), None, "memory://")


class Submitted(Exception):
    """Raised instead of starting the query: everything ``squall run`` does before it has happened."""


def test_squall_run_prints_the_keys_with_no_effect_before_it_starts(tmp_path, monkeypatch, capsys, caplog):
    path = write_file(tmp_path)
    monkeypatch.setattr(cli, "_spark", lambda *args: object())  # a stand-in session: nothing reaches Spark

    def submit(self, name, topology, available_now=False):
        raise Submitted(self.conf)

    monkeypatch.setattr(SparkRunner, "submit", submit)
    with caplog.at_level(logging.WARNING, logger="squall.config"), pytest.raises(Submitted) as info:
        cli.main(["run", str(path), "--checkpoint", str(tmp_path / "ck"), "-c", "topology.max.spout.pending=500",
                  "-c", "my.label=cli"])
    assert info.value.args[0] == {"topology.workers": 3, "my.threshold": 10, "topology.max.spout.pending": 500,
                                  "my.label": "cli"}
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"[{path.stem}] 2 Storm setting(s) in conf have no effect on Spark: topology.workers (")
    assert "; topology.max.spout.pending (" in err[0]
    assert not [r for r in caplog.records if r.name == "squall.config"]  # printed once, not logged again


def test_squall_run_refuses_an_unknown_key_without_a_traceback(tmp_path, monkeypatch):
    path = write_file(tmp_path)
    monkeypatch.setattr(cli, "_spark", lambda *args: object())
    with pytest.raises(SystemExit, match=r"^squall run: conf holds 'topology.debgu' \(did you mean"):
        cli.main(["run", str(path), "--checkpoint", str(tmp_path / "ck"), "-c", "topology.debgu=true"])


# --- on Spark: the user's keys reach prepare -----------------------------------------------------------------------


def test_docs_config_md_lists_every_key_with_a_meaning_and_every_key_without():
    text = (Path(__file__).resolve().parents[2] / "docs" / "config.md").read_text(encoding="utf-8")
    missing = [key for key in sorted(KNOWN_KEYS) if f"`{key}`" not in text]
    assert not missing, f"docs/config.md does not name {missing}"
