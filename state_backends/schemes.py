"""Every state store squall opens, by URL scheme: how to open it, whether other processes reach it, what it is.

:data:`SCHEMES` is the one registry of state backends: ``open_backend`` opens a
URL through it, the runner reads ``shared`` (a placement whose tasks run in
other processes needs a store they reach too) and Storm's state providers read
``store`` (two URLs naming the same store). Adding a backend is a module of its
own beside ``memory.py`` and one entry here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote

from state_backends.urls import scheme_of, split_url

if TYPE_CHECKING:
    from state_backends.base import StateBackend

StoreIdentity = tuple[tuple[object, ...], str | None]  # what names the store (kind, host, port, ...), its password


@dataclass(frozen=True)
class Scheme:
    """One kind of state store.

    ``backend``: ``"module:callable"`` building the backend from the URL,
    imported when first opened; ``shared``: whether another process opening
    the URL reaches the same store; ``store``: what identifies the store a URL
    names (URLs with equal identities name one store).
    """

    backend: str
    shared: bool
    store: Callable[[str], StoreIdentity]

    def open(self, url: str) -> StateBackend:
        """The backend ``url`` names, connected (its module imported now: an optional client says which extra)."""
        module, name = self.backend.split(":")
        cls: Callable[[str], StateBackend] = getattr(importlib.import_module(module), name)
        return cls(url)


def _memory(url: str) -> StoreIdentity:
    return ("memory",), None


def _network(kind: str, default_port: int, default_path: str) -> Callable[[str], StoreIdentity]:
    def identity(url: str) -> StoreIdentity:
        parts = split_url(url)
        password = None if parts.password is None else unquote(parts.password)
        host = (parts.hostname or "").lower()
        return (kind, host, parts.port or default_port, parts.path.strip("/") or default_path), password

    return identity


#: The state stores by URL scheme.
SCHEMES: dict[str, Scheme] = {
    "memory": Scheme("state_backends.memory:open_memory", False, _memory),
    "redis": Scheme("state_backends.redis_backend:RedisBackend", True, _network("redis", 6379, "0")),
    "rediss": Scheme("state_backends.redis_backend:RedisBackend", True, _network("redis", 6379, "0")),
    "hbase": Scheme("state_backends.hbase_backend:HBaseBackend", True, _network("hbase", 9090, "squall")),
}


def store_of(url: str) -> StoreIdentity:
    """What identifies the store ``url`` names, and its password (a URL of no known scheme: itself)."""
    scheme = SCHEMES.get(scheme_of(url))
    return ((scheme_of(url), url), None) if scheme is None else scheme.store(url)
