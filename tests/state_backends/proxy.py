"""A TCP proxy that can cut connections part-way through a request, to fail a commit mid-way."""

from __future__ import annotations

import socket
import threading

from tests.service_fixtures import free_port


class CuttingProxy:
    """Forwards 127.0.0.1:<port> to ``upstream``; after :meth:`cut_after`, drops any connection
    once it has forwarded that many more bytes towards the server (the server sees half a request)."""

    def __init__(self, upstream_port: int, port: int | None = None) -> None:
        self.upstream_port = upstream_port
        self.port = port or free_port()
        self._budget: int | None = None
        self._lock = threading.Lock()
        self.cuts = 0  # connections cut by the budget so far: how a test sees that a request was cut
        self._conns: list[socket.socket] = []
        self.reopen()

    def reopen(self) -> None:
        """Listen (again, after :meth:`close`) on the same port: for clients, a server that restarted."""
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def cut_after(self, n_bytes: int | None) -> None:
        """Cut the connection that forwards the ``n_bytes``-th next byte to the server, and every one after it.

        None forwards everything again.
        """
        with self._lock:
            self._budget = n_bytes

    def _take(self, n: int) -> int:
        """How many of ``n`` bytes may pass; -1 once the budget is spent."""
        with self._lock:
            if self._budget is None:
                return n
            allowed = min(n, self._budget)
            self._budget -= allowed
            return allowed if allowed > 0 else -1

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, server]
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, to_server: bool) -> None:
        try:
            while data := src.recv(65536):
                n = self._take(len(data)) if to_server else len(data)
                if n > 0:
                    dst.sendall(data[:n])
                if n < len(data):
                    with self._lock:
                        self.cuts += 1
                    break
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self._closed = True
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() thread; close alone would not unbind
        except OSError:
            pass
        self._listener.close()
        with self._lock:
            for s in self._conns:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
