"""Storm's state providers, read into squall's state URLs: ``topology.state.provider`` and its config.

A Storm topology names its state store in its conf: ``topology.state.provider``
(a provider class) and ``topology.state.provider.config`` (its JSON settings).
squall keeps state in a store named by a URL (``memory://``, ``redis://...``,
``hbase://...``); :func:`provider_state` reads Storm's three providers into
that URL, and :func:`resolve_state` chooses the URL a run uses when the
runner's ``state=`` and the conf's provider may both be given.
:func:`topologies.config.check_conf` checks the provider with the rest of the
conf; docs/config.md lists what carries over.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from state_backends.schemes import store_of
from state_backends.urls import redact

#: Storm's ``Config.TOPOLOGY_STATE_PROVIDER`` and ``Config.TOPOLOGY_STATE_PROVIDER_CONFIG``.
PROVIDER_KEY = "topology.state.provider"
PROVIDER_CONFIG_KEY = "topology.state.provider.config"

# Storm's state providers squall maps onto its state URLs.
IN_MEMORY_PROVIDER = "org.apache.storm.state.InMemoryKeyValueStateProvider"
REDIS_PROVIDER = "org.apache.storm.redis.state.RedisKeyValueStateProvider"
HBASE_PROVIDER = "org.apache.storm.hbase.state.HBaseKeyValueStateProvider"
PROVIDERS = (IN_MEMORY_PROVIDER, REDIS_PROVIDER, HBASE_PROVIDER)
# The HBase settings that name a Thrift server (squall reaches HBase through Thrift, Storm through ZooKeeper).
THRIFT_HOST = "hbase.regionserver.thrift.ipaddress"
THRIFT_PORT = "hbase.regionserver.thrift.port"
_SERIALIZERS = ("keyClass", "valueClass", "keySerializerClass", "valueSerializerClass")
_SERIALIZER_REASON = "squall encodes state itself: Java key and value classes and serializers are not used"
_REDIS_FIELDS = (*_SERIALIZERS, "jedisPoolConfig", "jedisClusterConfig")
_POOL_FIELDS = ("host", "port", "timeout", "database", "password")
_HBASE_FIELDS = (*_SERIALIZERS, "hbaseConfigKey", "tableName", "columnFamily")
_TABLE_PREFIX = re.compile(r"[A-Za-z0-9_.-]{1,100}")  # what squall's hbase:// URL takes as a table prefix


@dataclass(frozen=True)
class ProviderState:
    """The state store that a conf's ``topology.state.provider`` names, as a squall state URL.

    ``url`` holds the password, if the provider config has one (use
    ``state_backends.redact`` to show it); ``ignored`` maps the provider
    config's fields that squall does not use (``jedisPoolConfig.timeout``,
    ``columnFamily``, the serializer classes) to why.
    """

    provider: str
    url: str
    ignored: Mapping[str, str]


def provider_state(conf: Mapping[str, Any], where: str = "SparkRunner") -> ProviderState | None:
    """The state store of ``conf``'s ``topology.state.provider``, or None when it names none.

    - ``org.apache.storm.state.InMemoryKeyValueStateProvider`` (Storm's default): ``memory://``.
    - ``org.apache.storm.redis.state.RedisKeyValueStateProvider``: the provider
      config's ``jedisPoolConfig`` (``host``, ``port``, ``password``,
      ``database``; Jedis's defaults ``localhost``, 6379, none and 0 for those
      left out) as ``redis://[:password@]host:port/database``. ``jedisClusterConfig``
      is refused: squall's Redis backend talks to one server.
    - ``org.apache.storm.hbase.state.HBaseKeyValueStateProvider``: ``hbase://host:port/tableName``,
      the host and port of the HBase Thrift server read from the HBase settings
      map that ``conf[hbaseConfigKey]`` holds (``hbase.regionserver.thrift.ipaddress``,
      ``hbase.regionserver.thrift.port``, default 9090), since squall reaches HBase
      through Thrift, not ZooKeeper. squall's table is then ``<tableName>_state``.

    The provider config (``topology.state.provider.config``) is Storm's JSON
    string, or a mapping. A provider squall does not know, config that is not
    JSON, a field Storm's provider would not read, or a missing setting raises
    ``ValueError`` (``TypeError`` for a value of the wrong type) that starts
    with ``where`` and names the key or field.
    """
    provider = conf.get(PROVIDER_KEY)
    if provider is None:
        return None
    key = PROVIDER_KEY
    if not isinstance(provider, str):
        msg = f"{where}: conf[{key!r}] must be a class name (a str); got {provider!r} instead"
        raise TypeError(msg)
    if provider not in PROVIDERS:
        msg = (f"{where}: conf[{key!r}] = {provider!r} is not a state provider squall can map onto a state "
               f"store; the providers it maps are: {', '.join(PROVIDERS)}")
        raise ValueError(msg)
    if provider == IN_MEMORY_PROVIDER:
        return ProviderState(provider, "memory://", {})
    config = _provider_config(conf, where)
    if provider == REDIS_PROVIDER:
        return _redis_state(config, where)
    return _hbase_state(config, conf, where)


def _provider_config(conf: Mapping[str, Any], where: str) -> dict[str, Any]:
    key = PROVIDER_CONFIG_KEY
    raw = conf.get(key)
    if raw is None:
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            problem = f"{where}: conf[{key!r}] is not JSON ({exc})"
        else:
            problem = None
        if problem is not None:  # raised outside the except: the decoder's error is in the message already
            raise ValueError(problem)
    if not isinstance(raw, Mapping):
        msg = f"{where}: conf[{key!r}] must be a JSON object (a str) or a mapping; got {raw!r} instead"
        raise TypeError(msg)
    return {k: v for k, v in raw.items() if v is not None}  # Storm's JSON reader leaves a null field unset


def _fields(where: str, what: str, config: Mapping[str, Any], known: tuple[str, ...]) -> None:
    unknown = [k for k in config if k not in known]
    if unknown:
        msg = f"{where}: {what} has the field {unknown[0]!r}, which Storm's provider does not read; " \
              f"its fields are: {', '.join(known)}"
        raise ValueError(msg)


def _redis_state(config: Mapping[str, Any], where: str) -> ProviderState:
    what = f"conf[{PROVIDER_CONFIG_KEY!r}]"
    _fields(where, what, config, _REDIS_FIELDS)
    if "jedisClusterConfig" in config:
        msg = (f"{where}: {what} has jedisClusterConfig (a Redis Cluster), but squall's Redis backend talks to "
               "one server: give jedisPoolConfig instead")
        raise ValueError(msg)
    pool = config.get("jedisPoolConfig", {})
    if not isinstance(pool, Mapping):
        msg = f"{where}: {what}'s jedisPoolConfig must be a JSON object; got {pool!r} instead"
        raise TypeError(msg)
    pool = {k: v for k, v in pool.items() if v is not None}
    _fields(where, f"{what}'s jedisPoolConfig", pool, _POOL_FIELDS)
    host = _setting(where, "jedisPoolConfig.host", pool.get("host", "localhost"), str)
    port = _port(where, "jedisPoolConfig.port", pool.get("port", 6379))
    database = _setting(where, "jedisPoolConfig.database", pool.get("database", 0), int)
    password = _setting(where, "jedisPoolConfig.password", pool.get("password", ""), str)
    if database < 0:
        msg = f"{where}: {what}'s jedisPoolConfig.database must be 0 or more; got {database} instead"
        raise ValueError(msg)
    # quote(): a password holding '/', '@' or '#' would otherwise be misread as the URL's host or path.
    auth = f":{quote(password, safe='')}@" if password else ""
    ignored = {f: _SERIALIZER_REASON for f in _SERIALIZERS if f in config}
    if "timeout" in pool:
        ignored["jedisPoolConfig.timeout"] = ("squall's Redis client keeps its own timeouts and retries: see "
                                              "retry_seconds= in the state URL")
    return ProviderState(REDIS_PROVIDER, f"redis://{auth}{_host(host)}:{port}/{database}", ignored)


def _hbase_state(config: Mapping[str, Any], conf: Mapping[str, Any], where: str) -> ProviderState:
    what = f"conf[{PROVIDER_CONFIG_KEY!r}]"
    _fields(where, what, config, _HBASE_FIELDS)
    for field in ("hbaseConfigKey", "tableName", "columnFamily"):  # Storm's provider requires all three
        if not config.get(field):
            msg = f"{where}: {what} must give {field}, as Storm's HBase provider requires"
            raise ValueError(msg)
    table = _setting(where, "tableName", config["tableName"], str)
    if not _TABLE_PREFIX.fullmatch(table):
        msg = (f"{where}: {what}'s tableName {table!r} cannot name squall's table <tableName>_state: it must "
               "match [A-Za-z0-9_.-]{1,100} (no namespace prefix such as 'ns:')")
        raise ValueError(msg)
    settings_key = _setting(where, "hbaseConfigKey", config["hbaseConfigKey"], str)
    settings = conf.get(settings_key)
    if not isinstance(settings, Mapping):
        msg = (f"{where}: {what}'s hbaseConfigKey is {settings_key!r}, but conf[{settings_key!r}] holds no map "
               f"of HBase settings; got {settings!r}")
        raise ValueError(msg)
    host = settings.get(THRIFT_HOST)
    if not isinstance(host, str) or host.strip() in ("", "0.0.0.0", "::"):
        msg = (f"{where}: squall reaches HBase through its Thrift server, so conf[{settings_key!r}] must name it "
               f"with {THRIFT_HOST!r} (a host clients reach, not a wildcard) and {THRIFT_PORT!r} (default 9090); "
               f"got {host!r}; or pass state='hbase://<thrift host>:9090/{table}'")
        raise ValueError(msg)
    raw_port = settings.get(THRIFT_PORT, 9090)
    # HBase settings maps often hold strings ("9090"), as Hadoop's Configuration does.
    port = _port(where, f"conf[{settings_key!r}][{THRIFT_PORT!r}]",
                 int(raw_port) if isinstance(raw_port, str) and raw_port.strip().isdigit() else raw_port)
    ignored = {f: _SERIALIZER_REASON for f in _SERIALIZERS if f in config}
    ignored["columnFamily"] = f"squall's table {table}_state has its own column families, d and m"
    return ProviderState(HBASE_PROVIDER, f"hbase://{_host(host.strip())}:{port}/{table}", ignored)


def _setting(where: str, name: str, value: Any, kind: type) -> Any:
    if isinstance(value, bool) or not isinstance(value, kind):
        msg = (f"{where}: the state provider's {name} must be a {kind.__name__}; got {value!r} "
               f"({type(value).__name__}) instead")
        raise TypeError(msg)
    return value


def _port(where: str, name: str, value: Any) -> int:
    port: int = _setting(where, name, value, int)
    if not 0 < port < 65536:
        msg = f"{where}: the state provider's {name} must be a port from 1 to 65535; got {port} instead"
        raise ValueError(msg)
    return port


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host  # an IPv6 address in a URL


def resolve_state(state: str | None, conf: Mapping[str, Any], where: str = "SparkRunner",
                  option: str = "state") -> str:
    """The state URL a run uses: ``state`` when given, else the provider's of ``conf``, else ``memory://``.

    When both are given they must name the same store: the same kind
    (``memory``; ``redis``/``rediss``; ``hbase``), host, port and database (Redis)
    or table prefix (HBase), and the same password when both have one. ``state``
    is then used as given (it may add TLS, a user or query options that Storm's
    provider config cannot say). Otherwise ``ValueError`` names both, passwords
    hidden; ``option`` is how the message names ``state`` (``--state`` for the CLI).
    """
    provider = provider_state(conf, where)
    if state is None:
        return "memory://" if provider is None else provider.url
    if provider is not None and not _same_store(state, provider.url):
        msg = (f"{where}: {option}={redact(state)!r} and conf[{PROVIDER_KEY!r}] = "
               f"{provider.provider!r} (with its config: {redact(provider.url)!r}) name different state stores; "
               f"give one of them, or make them agree")
        raise ValueError(msg)
    return state


def _same_store(a: str, b: str) -> bool:
    (store_a, password_a), (store_b, password_b) = store_of(a), store_of(b)
    # A password only one of the two gives does not make them differ: the store is the same.
    return store_a == store_b and (password_a is None or password_b is None or password_a == password_b)
