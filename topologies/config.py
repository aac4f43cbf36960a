"""Storm's ``Config`` in Python spelling, and what each of Storm's ``topology.*`` keys means on Spark.

A :class:`Config` is a ``dict`` (Storm's is a ``HashMap``): ``conf[Config.TOPOLOGY_DEBUG] = True``
is ``conf.put(Config.TOPOLOGY_DEBUG, true)``, and ``conf.set_num_workers(4)`` is
``conf.setNumWorkers(4)``. ``SparkRunner(spark, conf=conf, ...)`` takes it, or any mapping.

Every one of Storm 2.x's ``topology.*`` keys is known here, in one of two kinds:

- :data:`MEANINGFUL`: the key changes what squall does (``topology.debug``, ``topology.kryo.register``,
  ``topology.fall.back.on.java.serialization``, ``topology.tick.tuple.freq.secs``,
  ``topology.state.provider`` and its config);
- :data:`NO_EFFECT`: the key is accepted and does nothing on Spark, for the reason given
  (:func:`no_effect_keys` lists those a conf holds; ``SparkRunner`` logs them once).

A ``topology.*`` key that Storm does not have is a mistake (a typo most often):
:func:`check_conf` refuses it, naming the closest known key. Keys of any other
form are the user's own and reach every bolt's ``prepare(conf, ...)`` untouched.
How a state provider and its config become a state URL is
:mod:`topologies.state_providers`.
"""

from __future__ import annotations

import difflib
import logging
import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from bolts.codecs.value_codec import register_class
from topologies.state_providers import IN_MEMORY_PROVIDER, provider_state

log = logging.getLogger("squall.config")
PREFIX = "topology."  # Storm's namespace: a key under it that Storm lacks is refused


class Config(dict[str, Any]):
    """A topology's configuration: a ``dict`` with Storm's key names as constants and Storm's setters.

    The constants are Storm 2.x's ``topology.*`` keys, spelt as in Storm
    (``Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS == "topology.message.timeout.secs"``).
    The setters are Storm's in snake_case; each checks its value at once and
    raises ``TypeError`` (wrong type) or ``ValueError`` (bad value) naming the
    setter and the value. Where Storm takes a Java ``Class``, the setter takes
    the class name as a str (or a Python class, stored as ``module.QualName``).
    Setting a key never checks it against Spark: what each key does here is
    :data:`MEANINGFUL` or :data:`NO_EFFECT`, and ``SparkRunner`` checks the
    whole conf (:func:`check_conf`) when it is built.
    """

    # Storm 2.x's TOPOLOGY_* constants, in the order of its Config.java (tests/topologies/test_config.py counts them).
    TOPOLOGY_TUPLE_SERIALIZER = "topology.tuple.serializer"
    TOPOLOGY_DISABLE_LOADAWARE_MESSAGING = "topology.disable.loadaware.messaging"
    TOPOLOGY_LOCALITYAWARE_HIGHER_BOUND = "topology.localityaware.higher.bound"
    TOPOLOGY_LOCALITYAWARE_LOWER_BOUND = "topology.localityaware.lower.bound"
    TOPOLOGY_TESTING_ALWAYS_TRY_SERIALIZE = "topology.testing.always.try.serialize"
    TOPOLOGY_BLOBSTORE_MAP = "topology.blobstore.map"
    TOPOLOGY_BACKPRESSURE_ENABLE = "topology.backpressure.enable"
    TOPOLOGY_USERS = "topology.users"
    TOPOLOGY_GROUPS = "topology.groups"
    TOPOLOGY_READONLY_USERS = "topology.readonly.users"
    TOPOLOGY_READONLY_GROUPS = "topology.readonly.groups"
    TOPOLOGY_ENABLE_MESSAGE_TIMEOUTS = "topology.enable.message.timeouts"
    TOPOLOGY_DEBUG = "topology.debug"
    TOPOLOGY_VERSION = "topology.version"
    TOPOLOGY_MULTILANG_LOG_HANDLER = "topology.multilang.log.handler"
    TOPOLOGY_MULTILANG_SERIALIZER = "topology.multilang.serializer"
    TOPOLOGY_WORKERS = "topology.workers"
    TOPOLOGY_TASKS = "topology.tasks"
    TOPOLOGY_COMPONENT_RESOURCES_MAP = "topology.component.resources.map"
    TOPOLOGY_COMPONENT_RESOURCES_ONHEAP_MEMORY_MB = "topology.component.resources.onheap.memory.mb"
    TOPOLOGY_COMPONENT_RESOURCES_OFFHEAP_MEMORY_MB = "topology.component.resources.offheap.memory.mb"
    TOPOLOGY_COMPONENT_CPU_PCORE_PERCENT = "topology.component.cpu.pcore.percent"
    TOPOLOGY_ACKER_RESOURCES_ONHEAP_MEMORY_MB = "topology.acker.resources.onheap.memory.mb"
    TOPOLOGY_ACKER_RESOURCES_OFFHEAP_MEMORY_MB = "topology.acker.resources.offheap.memory.mb"
    TOPOLOGY_ACKER_CPU_PCORE_PERCENT = "topology.acker.cpu.pcore.percent"
    TOPOLOGY_METRICS_CONSUMER_RESOURCES_ONHEAP_MEMORY_MB = "topology.metrics.consumer.resources.onheap.memory.mb"
    TOPOLOGY_METRICS_CONSUMER_RESOURCES_OFFHEAP_MEMORY_MB = "topology.metrics.consumer.resources.offheap.memory.mb"
    TOPOLOGY_METRICS_CONSUMER_CPU_PCORE_PERCENT = "topology.metrics.consumer.cpu.pcore.percent"
    TOPOLOGY_ENABLE_V2_METRICS_TICK = "topology.enable.v2.metrics.tick"
    TOPOLOGY_V2_METRICS_TICK_INTERVAL_SECONDS = "topology.v2.metrics.tick.interval.seconds"
    TOPOLOGY_ENABLE_SEND_ICONNECTION_METRICS = "topology.enable.send.iconnection.metrics"
    TOPOLOGY_STATE_PROVIDER = "topology.state.provider"
    TOPOLOGY_STATE_PROVIDER_CONFIG = "topology.state.provider.config"
    TOPOLOGY_STATE_CHECKPOINT_INTERVAL = "topology.state.checkpoint.interval.ms"
    TOPOLOGY_WORKER_MAX_HEAP_SIZE_MB = "topology.worker.max.heap.size.mb"
    TOPOLOGY_SCHEDULER_STRATEGY = "topology.scheduler.strategy"
    TOPOLOGY_RAS_ORDER_EXECUTORS_BY_PROXIMITY_NEEDS = "topology.ras.order.executors.by.proximity.needs"
    TOPOLOGY_RAS_CONSTRAINTS = "topology.ras.constraints"
    TOPOLOGY_SPREAD_COMPONENTS = "topology.spread.components"
    TOPOLOGY_RAS_CONSTRAINT_MAX_STATE_SEARCH = "topology.ras.constraint.max.state.search"
    TOPOLOGY_RAS_ONE_EXECUTOR_PER_WORKER = "topology.ras.one.executor.per.worker"
    TOPOLOGY_RAS_ONE_COMPONENT_PER_WORKER = "topology.ras.one.component.per.worker"
    TOPOLOGY_RAS_CONSTRAINT_MAX_TIME_SECS = "topology.ras.constraint.max.time.secs"
    TOPOLOGY_SCHEDULER_FAVORED_NODES = "topology.scheduler.favored.nodes"
    TOPOLOGY_SCHEDULER_UNFAVORED_NODES = "topology.scheduler.unfavored.nodes"
    TOPOLOGY_ACKER_EXECUTORS = "topology.acker.executors"
    TOPOLOGY_RAS_ACKER_EXECUTORS_PER_WORKER = "topology.ras.acker.executors.per.worker"
    TOPOLOGY_EVENT_LOGGER_REGISTER = "topology.event.logger.register"
    TOPOLOGY_EVENTLOGGER_EXECUTORS = "topology.eventlogger.executors"
    TOPOLOGY_EVENTLOGGER_ROTATION_SIZE_MB = "topology.eventlogger.rotation.size.mb"
    TOPOLOGY_EVENTLOGGER_MAX_RETAINED_FILES = "topology.eventlogger.max.retained.files"
    TOPOLOGY_MESSAGE_TIMEOUT_SECS = "topology.message.timeout.secs"
    TOPOLOGY_KRYO_REGISTER = "topology.kryo.register"
    TOPOLOGY_KRYO_DECORATORS = "topology.kryo.decorators"
    TOPOLOGY_KRYO_FACTORY = "topology.kryo.factory"
    TOPOLOGY_SKIP_MISSING_KRYO_REGISTRATIONS = "topology.skip.missing.kryo.registrations"
    TOPOLOGY_STATE_KRYO_REGISTER = "topology.state.kryo.register"
    TOPOLOGY_METRICS_CONSUMER_REGISTER = "topology.metrics.consumer.register"
    TOPOLOGY_SERIALIZED_MESSAGE_SIZE_METRICS = "topology.serialized.message.size.metrics"
    TOPOLOGY_WORKER_METRICS = "topology.worker.metrics"
    TOPOLOGY_MAX_TASK_PARALLELISM = "topology.max.task.parallelism"
    TOPOLOGY_MAX_SPOUT_PENDING = "topology.max.spout.pending"
    TOPOLOGY_SLEEP_SPOUT_WAIT_STRATEGY_TIME_MS = "topology.sleep.spout.wait.strategy.time.ms"
    TOPOLOGY_STATE_SYNCHRONIZATION_TIMEOUT_SECS = "topology.state.synchronization.timeout.secs"
    TOPOLOGY_STATS_SAMPLE_RATE = "topology.stats.sample.rate"
    TOPOLOGY_STATS_EWMA_ENABLE = "topology.stats.ewma.enable"
    TOPOLOGY_STATS_EWMA_SMOOTHING_FACTOR = "topology.stats.ewma.smoothing.factor"
    TOPOLOGY_UPSTREAM_FEEDBACK_ENABLE = "topology.upstream.feedback.enable"
    TOPOLOGY_UPSTREAM_FEEDBACK_FREQ_SECS = "topology.upstream.feedback.freq.secs"
    TOPOLOGY_BUILTIN_METRICS_BUCKET_SIZE_SECS = "topology.builtin.metrics.bucket.size.secs"
    TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION = "topology.fall.back.on.java.serialization"
    TOPOLOGY_WORKER_CHILDOPTS = "topology.worker.childopts"
    TOPOLOGY_WORKER_GC_CHILDOPTS = "topology.worker.gc.childopts"
    TOPOLOGY_WORKER_LOGWRITER_CHILDOPTS = "topology.worker.logwriter.childopts"
    TOPOLOGY_CLASSPATH = "topology.classpath"
    TOPOLOGY_CLASSPATH_BEGINNING = "topology.classpath.beginning"
    TOPOLOGY_ENVIRONMENT = "topology.environment"
    TOPOLOGY_BOLTS_WINDOW_LENGTH_COUNT = "topology.bolts.window.length.count"
    TOPOLOGY_BOLTS_WINDOW_LENGTH_DURATION_MS = "topology.bolts.window.length.duration.ms"
    TOPOLOGY_BOLTS_SLIDING_INTERVAL_COUNT = "topology.bolts.window.sliding.interval.count"
    TOPOLOGY_BOLTS_SLIDING_INTERVAL_DURATION_MS = "topology.bolts.window.sliding.interval.duration.ms"
    TOPOLOGY_BOLTS_LATE_TUPLE_STREAM = "topology.bolts.late.tuple.stream"
    TOPOLOGY_BOLTS_TUPLE_TIMESTAMP_MAX_LAG_MS = "topology.bolts.tuple.timestamp.max.lag.ms"
    TOPOLOGY_BOLTS_WATERMARK_EVENT_INTERVAL_MS = "topology.bolts.watermark.event.interval.ms"
    TOPOLOGY_BOLTS_MESSAGE_ID_FIELD_NAME = "topology.bolts.message.id.field.name"
    TOPOLOGY_TRANSACTIONAL_ID = "topology.transactional.id"
    TOPOLOGY_AUTO_TASK_HOOKS = "topology.auto.task.hooks"
    TOPOLOGY_EXECUTOR_RECEIVE_BUFFER_SIZE = "topology.executor.receive.buffer.size"
    TOPOLOGY_TRANSFER_BUFFER_SIZE = "topology.transfer.buffer.size"
    TOPOLOGY_TRANSFER_BATCH_SIZE = "topology.transfer.batch.size"
    TOPOLOGY_TICK_TUPLE_FREQ_SECS = "topology.tick.tuple.freq.secs"
    TOPOLOGY_PRODUCER_BATCH_SIZE = "topology.producer.batch.size"
    TOPOLOGY_PRODUCER_BATCH_DYNAMIC = "topology.producer.batch.dynamic"
    TOPOLOGY_EXECUTOR_OVERFLOW_LIMIT = "topology.executor.overflow.limit"
    TOPOLOGY_BACKPRESSURE_CHECK_MILLIS = "topology.backpressure.check.millis"
    TOPOLOGY_BATCH_FLUSH_INTERVAL_MILLIS = "topology.batch.flush.interval.millis"
    TOPOLOGY_WORKER_SHARED_THREAD_POOL_SIZE = "topology.worker.shared.thread.pool.size"
    TOPOLOGY_ERROR_THROTTLE_INTERVAL_SECS = "topology.error.throttle.interval.secs"
    TOPOLOGY_MAX_ERROR_REPORT_PER_INTERVAL = "topology.max.error.report.per.interval"
    TOPOLOGY_TRIDENT_BATCH_EMIT_INTERVAL_MILLIS = "topology.trident.batch.emit.interval.millis"
    TOPOLOGY_TRIDENT_WINDOWING_INMEMORY_CACHE_LIMIT = "topology.trident.windowing.cache.tuple.limit"
    TOPOLOGY_NAME = "topology.name"
    TOPOLOGY_SUBMITTER_PRINCIPAL = "topology.submitter.principal"
    TOPOLOGY_SUBMITTER_USER = "topology.submitter.user"
    TOPOLOGY_AUTO_CREDENTIALS = "topology.auto-credentials"
    TOPOLOGY_SHELLBOLT_MAX_PENDING = "topology.shellbolt.max.pending"
    TOPOLOGY_SUBPROCESS_TIMEOUT_SECS = "topology.subprocess.timeout.secs"
    TOPOLOGY_LOGGING_SENSITIVITY = "topology.logging.sensitivity"
    TOPOLOGY_LOGGING_CONFIG_FILE = "topology.logging.config"
    TOPOLOGY_PRIORITY = "topology.priority"
    TOPOLOGY_ISOLATED_MACHINES = "topology.isolate.machines"
    TOPOLOGY_SPOUT_WAIT_STRATEGY = "topology.spout.wait.strategy"
    TOPOLOGY_SPOUT_WAIT_PARK_MICROSEC = "topology.spout.wait.park.microsec"
    TOPOLOGY_SPOUT_WAIT_PROGRESSIVE_LEVEL1_COUNT = "topology.spout.wait.progressive.level1.count"
    TOPOLOGY_SPOUT_WAIT_PROGRESSIVE_LEVEL2_COUNT = "topology.spout.wait.progressive.level2.count"
    TOPOLOGY_SPOUT_WAIT_PROGRESSIVE_LEVEL3_SLEEP_MILLIS = "topology.spout.wait.progressive.level3.sleep.millis"
    TOPOLOGY_BOLT_WAIT_STRATEGY = "topology.bolt.wait.strategy"
    TOPOLOGY_BOLT_WAIT_PARK_MICROSEC = "topology.bolt.wait.park.microsec"
    TOPOLOGY_BOLT_WAIT_PROGRESSIVE_LEVEL1_COUNT = "topology.bolt.wait.progressive.level1.count"
    TOPOLOGY_BOLT_WAIT_PROGRESSIVE_LEVEL2_COUNT = "topology.bolt.wait.progressive.level2.count"
    TOPOLOGY_BOLT_WAIT_PROGRESSIVE_LEVEL3_SLEEP_MILLIS = "topology.bolt.wait.progressive.level3.sleep.millis"
    TOPOLOGY_BACKPRESSURE_WAIT_STRATEGY = "topology.backpressure.wait.strategy"
    TOPOLOGY_BACKPRESSURE_WAIT_PARK_MICROSEC = "topology.backpressure.wait.park.microsec"
    TOPOLOGY_BACKPRESSURE_WAIT_PROGRESSIVE_LEVEL3_SLEEP_MILLIS = (
        "topology.backpressure.wait.progressive.level3.sleep.millis"
    )
    TOPOLOGY_BACKPRESSURE_WAIT_PROGRESSIVE_LEVEL1_COUNT = "topology.backpressure.wait.progressive.level1.count"
    TOPOLOGY_BACKPRESSURE_WAIT_PROGRESSIVE_LEVEL2_COUNT = "topology.backpressure.wait.progressive.level2.count"
    TOPOLOGY_SPOUT_RECVQ_SKIPS = "topology.spout.recvq.skips"
    TOPOLOGY_MIN_REPLICATION_COUNT = "topology.min.replication.count"
    TOPOLOGY_MAX_REPLICATION_WAIT_TIME_SEC = "topology.max.replication.wait.time.sec"
    TOPOLOGY_WORKER_NIMBUS_THRIFT_CLIENT_USE_TLS = "topology.worker.nimbus.thrift.client.use.tls"
    TOPOLOGY_WORKER_TIMEOUT_SECS = "topology.worker.timeout.secs"
    TOPOLOGY_TUPLE_COMPRESSION_ENABLE = "topology.tuple.compression.enable"
    TOPOLOGY_TUPLE_COMPRESSION_THRESHOLD = "topology.tuple.compression.threshold"
    TOPOLOGY_TUPLE_COMPRESSION_MAX_DECOMPRESSED_BYTES = "topology.tuple.compression.max.decompressed.bytes"
    TOPOLOGY_METRICS_REPORTERS = "topology.metrics.reporters"
    TOPOLOGY_OCI_IMAGE = "topology.oci.image"

    def set_classpath(self, cp: str) -> None:
        """``topology.classpath``: extra classpath of Storm's workers (no effect on Spark; use ``--jars``)."""
        self[Config.TOPOLOGY_CLASSPATH] = _text("set_classpath", "cp", cp)

    def set_environment(self, env: Mapping[str, str]) -> None:
        """``topology.environment``: environment variables of Storm's workers (no effect on Spark).

        ``env`` must map str to str; it is stored as a new dict.
        """
        if not isinstance(env, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            msg = f"set_environment: `env` must be a mapping of str to str; got {env!r} instead"
            raise TypeError(msg)
        self[Config.TOPOLOGY_ENVIRONMENT] = dict(env)

    def set_debug(self, is_on: bool) -> None:
        """``topology.debug``: with True, every emitted tuple is logged (see :data:`MEANINGFUL`)."""
        self[Config.TOPOLOGY_DEBUG] = _flag("set_debug", "is_on", is_on)

    def set_topology_version(self, version: str) -> None:
        """``topology.version``: a version label Storm shows in its UI (no effect on Spark)."""
        self[Config.TOPOLOGY_VERSION] = _text("set_topology_version", "version", version)

    def set_num_workers(self, workers: int) -> None:
        """``topology.workers``, a positive int (no effect on Spark: its executors run the tasks)."""
        self[Config.TOPOLOGY_WORKERS] = _count("set_num_workers", "workers", workers, least=1)

    def set_num_ackers(self, num_executors: int) -> None:
        """``topology.acker.executors``, 0 or more (no effect: squall does not ack tuples)."""
        self[Config.TOPOLOGY_ACKER_EXECUTORS] = _count("set_num_ackers", "num_executors", num_executors, least=0)

    def set_num_event_loggers(self, num_executors: int) -> None:
        """``topology.eventlogger.executors``, 0 or more (no effect on Spark)."""
        self[Config.TOPOLOGY_EVENTLOGGER_EXECUTORS] = _count("set_num_event_loggers", "num_executors",
                                                            num_executors, least=0)

    def set_message_timeout_secs(self, secs: int) -> None:
        """``topology.message.timeout.secs``, a positive int (no effect: squall does not ack tuples)."""
        self[Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS] = _count("set_message_timeout_secs", "secs", secs, least=1)

    def register_event_logger(self, klass: str | type, argument: Mapping[str, Any] | None = None) -> None:
        """Append ``{"class": klass, "arguments": argument}`` to ``topology.event.logger.register`` (no effect).

        The list is copied before the append, so a conf copied with ``dict(conf)`` keeps its own.
        """
        if argument is not None and not isinstance(argument, Mapping):
            msg = f"register_event_logger: `argument` must be a mapping or None; got {argument!r} instead"
            raise TypeError(msg)
        entry = {"class": _class_name("register_event_logger", klass),
                 "arguments": None if argument is None else dict(argument)}
        self._append("register_event_logger", Config.TOPOLOGY_EVENT_LOGGER_REGISTER, entry)

    def register_metrics_consumer(self, klass: str | type, argument: Any = None, *, parallelism_hint: int = 1) -> None:
        """Append a metrics consumer to ``topology.metrics.consumer.register`` (no effect on Spark).

        The entry is ``{"class": klass, "parallelism.hint": n, "argument": argument}``,
        as Storm stores it. ``parallelism_hint`` is keyword-only: Storm's
        ``registerMetricsConsumer(klass, hint)`` is ``register_metrics_consumer(klass,
        parallelism_hint=hint)``. squall's own figures are ``handle.progress`` and
        ``handle.metrics()``.
        """
        hint = _count("register_metrics_consumer", "parallelism_hint", parallelism_hint, least=1)
        entry = {"class": _class_name("register_metrics_consumer", klass), "parallelism.hint": hint,
                 "argument": argument}
        self._append("register_metrics_consumer", Config.TOPOLOGY_METRICS_CONSUMER_REGISTER, entry)

    def register_serialization(
        self, cls: type, to_data: Callable[[Any], Any] | None = None, from_data: Callable[[Any], Any] | None = None,
    ) -> None:
        """Let instances of ``cls`` travel between tasks and into stores (Storm's ``registerSerialization``).

        ``to_data(obj)`` gives plain data (or other travelling values) and
        ``from_data(data)`` the object back; without them the object travels as
        its ``__dict__``. Registered in this process at once, and in every
        process that runs the topology's tasks through ``topology.kryo.register``.
        Dataclasses travel without registration. ``TypeError`` naming the class
        for a non-class, one function without the other, or a class without
        ``__dict__`` and no functions.
        """
        register_class(cls, to_data, from_data)
        self._append("register_serialization", Config.TOPOLOGY_KRYO_REGISTER, [cls, to_data, from_data])

    def register_decorator(self, klass: str | type) -> None:
        """Append a Kryo decorator's class name to ``topology.kryo.decorators`` (no effect: no Kryo here)."""
        name = _class_name("register_decorator", klass)
        self._append("register_decorator", Config.TOPOLOGY_KRYO_DECORATORS, name)

    def set_kryo_factory(self, klass: str | type) -> None:
        """``topology.kryo.factory``, a class name (no effect: squall does not use Kryo)."""
        self[Config.TOPOLOGY_KRYO_FACTORY] = _class_name("set_kryo_factory", klass)

    def set_skip_missing_kryo_registrations(self, skip: bool) -> None:
        """``topology.skip.missing.kryo.registrations`` (no effect: squall does not use Kryo)."""
        self[Config.TOPOLOGY_SKIP_MISSING_KRYO_REGISTRATIONS] = _flag("set_skip_missing_kryo_registrations", "skip",
                                                                     skip)

    def set_max_task_parallelism(self, parallelism: int) -> None:
        """``topology.max.task.parallelism``, a positive int (no effect: a bolt runs its ``parallelism``)."""
        self[Config.TOPOLOGY_MAX_TASK_PARALLELISM] = _count("set_max_task_parallelism", "parallelism", parallelism,
                                                           least=1)

    def set_max_spout_pending(self, pending: int) -> None:
        """``topology.max.spout.pending``, a positive int (no effect: cap a batch at the spout instead)."""
        self[Config.TOPOLOGY_MAX_SPOUT_PENDING] = _count("set_max_spout_pending", "pending", pending, least=1)

    def set_stats_sample_rate(self, rate: float) -> None:
        """``topology.stats.sample.rate``: a fraction, more than 0 and at most 1 (no effect: squall counts all)."""
        rate = _number("set_stats_sample_rate", "rate", rate)
        if rate > 1:
            msg = f"set_stats_sample_rate: `rate` is a fraction of the tuples, at most 1; got {rate!r} instead"
            raise ValueError(msg)
        self[Config.TOPOLOGY_STATS_SAMPLE_RATE] = rate

    def set_fall_back_on_java_serialization(self, fallback: bool) -> None:
        """``topology.fall.back.on.java.serialization``: with True, objects of unregistered classes travel by pickle.

        Storm falls back on Java serialization for a class Kryo does not know;
        squall then pickles an object that is neither plain data, a dataclass
        nor a registered class, in tuples, windows, state and a bolt's
        attributes, and unpickles what it reads back. Anyone who can write to
        the state store can then run code in the topology's processes: see
        docs/config.md. ``TypeError`` for a value that is not True or False.
        """
        self[Config.TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION] = _flag("set_fall_back_on_java_serialization",
                                                                     "fallback", fallback)

    def set_topology_worker_max_heap_size(self, size: float | None) -> None:
        """``topology.worker.max.heap.size.mb``, a positive number (no effect: use ``spark.executor.memory``).

        None leaves the conf as it is, as Storm's setter does with null.
        """
        if size is not None:
            self[Config.TOPOLOGY_WORKER_MAX_HEAP_SIZE_MB] = _number("set_topology_worker_max_heap_size", "size", size)

    def set_topology_component_worker_constraints(self, component1: str, component2: str) -> None:
        """Append ``[component1, component2]`` to ``topology.ras.constraints`` (no effect: Spark places tasks)."""
        pair = [_text("set_topology_component_worker_constraints", "component1", component1),
                _text("set_topology_component_worker_constraints", "component2", component2)]
        self._append("set_topology_component_worker_constraints", Config.TOPOLOGY_RAS_CONSTRAINTS, pair)

    def set_topology_constraints_max_state_search(self, num_states: int) -> None:
        """``topology.ras.constraint.max.state.search``, a positive int (no effect on Spark)."""
        self[Config.TOPOLOGY_RAS_CONSTRAINT_MAX_STATE_SEARCH] = _count("set_topology_constraints_max_state_search",
                                                                      "num_states", num_states, least=1)

    def set_topology_priority(self, priority: int) -> None:
        """``topology.priority``, 0 or more (0 is the highest in Storm; no effect on Spark)."""
        self[Config.TOPOLOGY_PRIORITY] = _count("set_topology_priority", "priority", priority, least=0)

    def set_topology_strategy(self, strategy: str) -> None:
        """``topology.scheduler.strategy``, a scheduler class name (no effect: Spark schedules the tasks)."""
        self[Config.TOPOLOGY_SCHEDULER_STRATEGY] = _class_name("set_topology_strategy", strategy)

    def _append(self, setter: str, key: str, item: object) -> None:
        """Store ``key``'s list with ``item`` appended as a new list, so a copy of the conf keeps its own list."""
        current = self.get(key)
        if current is not None and not isinstance(current, list | tuple):
            msg = f"{setter}: conf[{key!r}] must be a list to append to; it holds {current!r}"
            raise TypeError(msg)
        self[key] = [*(current or ()), item]


def _count(setter: str, name: str, value: object, *, least: int) -> int:
    """``value`` when it is an int (not a bool) of ``least`` or more; ``TypeError``/``ValueError`` naming ``setter``."""
    if isinstance(value, bool) or not isinstance(value, int):
        msg = f"{setter}: `{name}` must be an int; got {value!r} ({type(value).__name__}) instead"
        raise TypeError(msg)
    if value < least:
        msg = f"{setter}: `{name}` must be {'positive' if least == 1 else '0 or more'}; got {value} instead"
        raise ValueError(msg)
    return value


def _number(setter: str, name: str, value: object) -> float:
    """A positive finite int or float (bool refused: True is an int to Python, not a number to a user)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"{setter}: `{name}` must be a number; got {value!r} ({type(value).__name__}) instead"
        raise TypeError(msg)
    if not math.isfinite(value) or value <= 0:
        msg = f"{setter}: `{name}` must be a positive number; got {value!r} instead"
        raise ValueError(msg)
    return value


#: The setters' checks of a count and of a positive number, for other settings of Storm's kind (a spout's).
checked_count = _count
checked_number = _number


def _flag(setter: str, name: str, value: object) -> bool:
    if not isinstance(value, bool):
        msg = f"{setter}: `{name}` must be True or False; got {value!r} ({type(value).__name__}) instead"
        raise TypeError(msg)
    return value


def _text(setter: str, name: str, value: object) -> str:
    if not isinstance(value, str):
        msg = f"{setter}: `{name}` must be a str; got {value!r} ({type(value).__name__}) instead"
        raise TypeError(msg)
    if not value.strip():
        msg = f"{setter}: `{name}` must not be empty; got {value!r} instead"
        raise ValueError(msg)
    return value


def _class_name(setter: str, klass: object) -> str:
    """A class name as Storm stores it: a str as given, a Python class as ``module.QualName``."""
    if isinstance(klass, type):
        return f"{klass.__module__}.{klass.__qualname__}"
    return _text(setter, "klass", klass)


#: The keys that change what squall does, and what they do.
MEANINGFUL: Mapping[str, str] = MappingProxyType({
    Config.TOPOLOGY_DEBUG: "each emit logged at INFO on logger `squall.debug` with bolt, task, stream and values",
    Config.TOPOLOGY_KRYO_REGISTER: "the classes register_serialization(cls, to_data, from_data) lets travel between "
                                   "tasks and into stores (Storm's Java class names have no effect)",
    Config.TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION: "with True, objects of classes neither registered nor "
                                                     "dataclasses travel and are stored by pickle (read back only "
                                                     "while the key is set)",
    Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS: "a tick tuple every n seconds of processing time (n: a positive number)",
    Config.TOPOLOGY_STATE_PROVIDER: "the state store when SparkRunner's `state` is not given: Storm's in-memory, "
                                    "Redis or HBase provider becomes memory://, redis://... or hbase://...",
    Config.TOPOLOGY_STATE_PROVIDER_CONFIG: "the provider's JSON config, read into the state URL: the Redis "
                                           "provider's jedisPoolConfig, the HBase provider's tableName and "
                                           "hbaseConfigKey",
})

# Why each other key does nothing on Spark, a reason per group; keys without their "topology." prefix.
_NO_EFFECT_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Spark's executors run the tasks: size them with spark.executor.instances, spark.executor.cores and "
     "spark.executor.memory",
     ("workers", "worker.max.heap.size.mb", "worker.shared.thread.pool.size")),
    ("a component runs as many tasks as its set_bolt(..., parallelism=n), with no cap",
     ("tasks", "max.task.parallelism")),
    ("Spark's scheduler places the tasks: Storm's scheduler and resource-aware settings do not apply",
     ("component.resources.map", "component.resources.onheap.memory.mb", "component.resources.offheap.memory.mb",
      "component.cpu.pcore.percent", "acker.resources.onheap.memory.mb", "acker.resources.offheap.memory.mb",
      "acker.cpu.pcore.percent", "metrics.consumer.resources.onheap.memory.mb",
      "metrics.consumer.resources.offheap.memory.mb", "metrics.consumer.cpu.pcore.percent", "scheduler.strategy",
      "ras.order.executors.by.proximity.needs", "ras.constraints", "spread.components",
      "ras.constraint.max.state.search", "ras.one.executor.per.worker", "ras.one.component.per.worker",
      "ras.constraint.max.time.secs", "scheduler.favored.nodes", "scheduler.unfavored.nodes", "priority",
      "isolate.machines", "localityaware.higher.bound", "localityaware.lower.bound",
      "disable.loadaware.messaging", "oci.image")),
    ("squall does not ack tuples: a micro-batch commits whole or runs again",
     ("enable.message.timeouts", "message.timeout.secs", "acker.executors", "ras.acker.executors.per.worker")),
    ("without acking no tuple is pending: cap a batch at the spout instead, with FileSpout's "
     "max_files_per_trigger or KafkaSpout's max_offsets_per_trigger",
     ("max.spout.pending",)),
    ("squall encodes tuple values and state itself: Kryo and Java serialization are not used",
     ("tuple.serializer", "kryo.decorators", "kryo.factory", "skip.missing.kryo.registrations",
      "state.kryo.register", "testing.always.try.serialize",
      "tuple.compression.enable", "tuple.compression.threshold", "tuple.compression.max.decompressed.bytes",
      "tuple.serializer.blowfish.key")),
    ("Storm's queues, transfer batching, backpressure and wait strategies have no counterpart: Spark moves "
     "whole micro-batches",
     ("backpressure.enable", "executor.receive.buffer.size", "transfer.buffer.size", "transfer.batch.size",
      "producer.batch.size", "producer.batch.dynamic", "executor.overflow.limit", "backpressure.check.millis",
      "batch.flush.interval.millis", "sleep.spout.wait.strategy.time.ms", "spout.wait.strategy",
      "spout.wait.park.microsec", "spout.wait.progressive.level1.count", "spout.wait.progressive.level2.count",
      "spout.wait.progressive.level3.sleep.millis", "bolt.wait.strategy", "bolt.wait.park.microsec",
      "bolt.wait.progressive.level1.count", "bolt.wait.progressive.level2.count",
      "bolt.wait.progressive.level3.sleep.millis", "backpressure.wait.strategy", "backpressure.wait.park.microsec",
      "backpressure.wait.progressive.level1.count", "backpressure.wait.progressive.level2.count",
      "backpressure.wait.progressive.level3.sleep.millis", "spout.recvq.skips", "upstream.feedback.enable",
      "upstream.feedback.freq.secs",
      # Storm 1.x's, gone from Storm 2's Config: a topology ported from 1.x may still set them.
      "worker.receiver.thread.count", "disruptor.batch.size", "disruptor.batch.timeout.millis",
      "disruptor.wait.strategy", "disruptor.wait.timeout.millis", "executor.send.buffer.size",
      "bolts.outgoing.overflow.buffer.enable")),
    ("squall counts every tuple and reports its own figures: handle.progress, handle.metrics(), "
     "add_progress_listener",
     ("enable.v2.metrics.tick", "v2.metrics.tick.interval.seconds", "enable.send.iconnection.metrics",
      "metrics.consumer.register", "serialized.message.size.metrics", "worker.metrics", "stats.sample.rate",
      "stats.ewma.enable", "stats.ewma.smoothing.factor", "builtin.metrics.bucket.size.secs",
      "metrics.reporters")),
    ("Storm's event loggers, the UI's tuple sampling, do not exist here; topology.debug logs every emit",
     ("event.logger.register", "eventlogger.executors", "eventlogger.rotation.size.mb",
      "eventlogger.max.retained.files")),
    ("there is no Storm worker process: set JVM options, environment and jars through Spark: "
     "spark.executor.extraJavaOptions, spark.executorEnv.*, --jars",
     ("worker.childopts", "worker.gc.childopts", "worker.logwriter.childopts", "classpath", "classpath.beginning",
      "environment", "worker.timeout.secs", "worker.nimbus.thrift.client.use.tls")),
    ("access control and credentials are Spark's and the state store's own",
     ("users", "groups", "readonly.users", "readonly.groups", "submitter.principal", "submitter.user",
      "auto-credentials", "hdfs.uri")),
    ("Nimbus's blob store is not used: ship files through Spark, with spark-submit --files or addArtifacts",
     ("blobstore.map", "min.replication.count", "max.replication.wait.time.sec")),
    ("a windowed bolt takes this from its own configuration: with_window, with_tumbling_window, with_lag, "
     "with_late_tuple_stream, with_watermark_interval, with_message_id_field",
     ("bolts.window.length.count", "bolts.window.length.duration.ms", "bolts.window.sliding.interval.count",
      "bolts.window.sliding.interval.duration.ms", "bolts.late.tuple.stream", "bolts.tuple.timestamp.max.lag.ms",
      "bolts.watermark.event.interval.ms", "bolts.message.id.field.name")),
    ("logging is Spark's log4j and Python's logging module",
     ("multilang.log.handler", "logging.sensitivity", "logging.config")),
    ("report_error goes to the bolt's error stream or the log, unthrottled, and an exception fails the batch",
     ("error.throttle.interval.secs", "max.error.report.per.interval")),
    ("bolts are Python classes that run in place: there is no multilang subprocess",
     ("multilang.serializer", "shellbolt.max.pending", "subprocess.timeout.secs")),
    ("Trident is not part of squall",
     ("trident.batch.emit.interval.millis", "trident.windowing.cache.tuple.limit", "transactional.id",
      "spout.max.batch.size")),
    ("Storm's task hooks are not called", ("auto.task.hooks",)),
    ("the query is named by submit(name, ...) or squall run --name", ("name",)),
    ("a label for Storm's UI; Spark has no place for it", ("version",)),
    ("squall commits state with every micro-batch: SparkRunner(trigger_interval=...) sets how often",
     ("state.checkpoint.interval.ms", "state.synchronization.timeout.secs")),
)

#: Every other key Storm knows, and why it does nothing on Spark.
NO_EFFECT: Mapping[str, str] = MappingProxyType(
    {PREFIX + key: reason for reason, keys in _NO_EFFECT_GROUPS for key in keys}
)

#: Every ``topology.*`` key Storm 2.x knows (its ``Config`` constants, plus a few it reads elsewhere
#: and Storm 1.x's): the keys :func:`check_conf` accepts under ``topology.``.
KNOWN_KEYS: frozenset[str] = frozenset(MEANINGFUL) | frozenset(NO_EFFECT)


def check_conf(conf: Mapping[str, Any] | None, where: str = "SparkRunner") -> dict[str, Any]:
    """A plain ``dict`` copy of ``conf`` (``{}`` for None), once its Storm keys are checked.

    Refuses, with ``where`` at the start of the message: a ``conf`` that is not a
    mapping (``TypeError``); ``topology.*`` keys that Storm does not have
    (``ValueError`` naming each, with the closest known key when one is close);
    a ``topology.debug`` or ``topology.fall.back.on.java.serialization`` that is
    not a bool; a ``topology.tick.tuple.freq.secs``
    that is not a positive number; a state provider squall cannot map (see
    :func:`topologies.state_providers.provider_state`). A value of None counts as not set. Keys that do
    not start with ``topology.`` are the user's own and are not looked at.
    """
    if conf is None:
        return {}
    if not isinstance(conf, Mapping):
        msg = f"{where}: `conf` must be a Config or a mapping of str keys; got {conf!r} instead"
        raise TypeError(msg)
    unknown = [k for k in conf if isinstance(k, str) and k.startswith(PREFIX) and k not in KNOWN_KEYS]
    if unknown:
        msg = (f"{where}: conf holds {', '.join(_with_suggestion(k) for k in unknown)}, not among Storm's "
               f"topology.* keys; a key of your own must not start with {PREFIX!r}")
        raise ValueError(msg)
    for key in (Config.TOPOLOGY_DEBUG, Config.TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION):
        flag = conf.get(key)
        if flag is not None and not isinstance(flag, bool):
            msg = f"{where}: conf[{key!r}] must be True or False; got {flag!r} instead"
            raise TypeError(msg)
    _check_tick_frequency(conf.get(Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS), where)
    provider_state(conf, where)
    return dict(conf)


def _with_suggestion(key: str) -> str:
    close = difflib.get_close_matches(key, sorted(KNOWN_KEYS), n=1, cutoff=0.8)
    return f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key)


def _check_tick_frequency(value: object, where: str) -> None:
    key = Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"{where}: conf[{key!r}] must be a number of seconds; got {value!r} ({type(value).__name__}) instead"
        raise TypeError(msg)
    if not math.isfinite(value) or value <= 0:
        msg = f"{where}: conf[{key!r}] must be a positive number of seconds; got {value!r} instead"
        raise ValueError(msg)


def no_effect_keys(conf: Mapping[str, Any]) -> dict[str, str]:
    """The settings of ``conf`` that do nothing on Spark, each with why, in ``conf``'s order.

    Those are the keys of :data:`NO_EFFECT` that ``conf`` holds (whatever their
    value); ``topology.state.provider.config`` when no provider reads it; and the
    fields of the provider's config that squall does not use, listed as
    ``topology.state.provider.config[field]``. Unknown ``topology.*`` keys are not
    listed: :func:`check_conf` refuses them. A bad provider config raises as in
    :func:`topologies.state_providers.provider_state`.
    """
    found = {key: NO_EFFECT[key] for key in conf if isinstance(key, str) and key in NO_EFFECT}
    provider = provider_state(conf)
    config_key = Config.TOPOLOGY_STATE_PROVIDER_CONFIG
    if conf.get(config_key) is not None and (provider is None or provider.provider == IN_MEMORY_PROVIDER):
        found[config_key] = (f"no {Config.TOPOLOGY_STATE_PROVIDER} reads it" if provider is None
                             else "the in-memory provider reads no config")
    for field, reason in (provider.ignored.items() if provider is not None else ()):
        found[f"{config_key}[{field}]"] = reason
    return found


def no_effect_message(conf: Mapping[str, Any]) -> str | None:
    """One line naming the settings of ``conf`` that do nothing on Spark, each with why; None when there are none."""
    found = no_effect_keys(conf)
    if not found:
        return None
    listed = "; ".join(f"{key} ({reason})" for key, reason in found.items())
    return f"{len(found)} Storm setting(s) in conf have no effect on Spark: {listed}"


def fall_back_message(conf: Mapping[str, Any]) -> str | None:
    """The warning a run with ``topology.fall.back.on.java.serialization`` set to True gets; None without it."""
    key = Config.TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION
    if conf.get(key) is not True:
        return None
    return (f"{key} is set: objects of classes neither registered nor dataclasses travel and are stored by pickle, "
            "and are unpickled when read back, so anyone who can write to the state store can run code in this "
            "topology's processes; register the classes (Config.register_serialization) to do without it")


def log_settings(conf: Mapping[str, Any]) -> None:
    """Log, at WARNING on logger ``squall.config``, the settings of ``conf`` to know of before it runs.

    One line for :func:`no_effect_message` (if any), and one for
    :func:`fall_back_message` (if the conf sets the key): ``SparkRunner``
    calls it once, when its settings are final.
    """
    for message in (no_effect_message(conf), fall_back_message(conf)):
        if message is not None:
            log.warning("%s", message)
