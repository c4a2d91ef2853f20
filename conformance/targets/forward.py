"""A loopback port for a container on an internal network: 127.0.0.1:P relayed to the container's address.

The engine publishes no port of a container on an internal network, and the harness calls only
loopback endpoints (a card naming any other host is not followed), so the harness maps the port
itself: each accepted connection is relayed byte for byte, both ways, half-closes included.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading

_CHUNK = 65536
_CONNECT_TIMEOUT = 5.0


class Forwarder:
    """``Forwarder((ip, port)).start()``: relays 127.0.0.1:``self.port`` to ``upstream`` until :meth:`stop`."""

    def __init__(self, upstream: tuple[str, int], port: int = 0) -> None:
        self.upstream = upstream
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self._sock.listen(64)
        self.port = int(self._sock.getsockname()[1])
        self._stop = threading.Event()
        self._conns: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, name=f"forward-{self.port}", daemon=True)

    def start(self) -> Forwarder:
        self._thread.start()
        return self

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self.upstream, timeout=_CONNECT_TIMEOUT)
        except OSError:
            client.close()
            return
        for s in (client, upstream):
            s.settimeout(None)
            with contextlib.suppress(OSError):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            self._conns |= {client, upstream}
        peer = {client: upstream, upstream: client}
        open_ = {client, upstream}
        try:
            while open_ and not self._stop.is_set():
                ready, _, _ = select.select(list(open_), [], [], 0.5)
                for s in ready:
                    data = s.recv(_CHUNK)
                    if data:
                        peer[s].sendall(data)
                    else:  # EOF one way: pass the half-close on, keep the other way open
                        open_.discard(s)
                        with contextlib.suppress(OSError):
                            peer[s].shutdown(socket.SHUT_WR)
        except OSError:
            pass
        finally:
            with self._lock:
                self._conns -= {client, upstream}
            client.close()
            upstream.close()

    def stop(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        with contextlib.suppress(OSError):
            self._sock.close()
        with self._lock:
            conns = list(self._conns)
        for s in conns:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=2)
