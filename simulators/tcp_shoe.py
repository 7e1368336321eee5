"""A simulated shoe's port as a TCP server on 127.0.0.1 (docs/shoe-simulator.md)."""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading

from drivers.dialects import dialect_named
from simulators.ports import PortGone, ShoePort


class TcpPort(ShoePort):
    """A TCP server standing in for a network-attached shoe (loopback; port 0: a free one).

    ``dialect`` goes into :attr:`url` and decides when the host counts as listening.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *,
                 dialect: str) -> None:
        self.host = host
        self.dialect = dialect
        self._ready_on_data = dialect_named(dialect).heartbeat  # the host pings on connect
        self._lock = threading.Lock()
        self._closed = False
        self._busy = False
        self._client: socket.socket | None = None
        self._ready = False
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind((host, port))
        self._server.listen(4)
        self.port = self._server.getsockname()[1]
        self.name = f"{host}:{self.port}"
        self.url = f"socket://{host}:{self.port}?dialect={dialect}"
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._serve, name=f"tcp-shoe {self.name}",
                                        daemon=True)
        self._thread.start()

    @property
    def host_connected(self) -> bool:
        """True while a host is connected and listening."""
        return self._client is not None and self._ready and not self._closed

    def write(self, data: bytes) -> None:
        """Send to the connected host; raises PortGone once unplugged."""
        with self._lock:
            if self._closed:
                raise PortGone(f"TCP shoe {self.name} is unplugged")
            client = self._client
        if client is None:
            return
        try:
            client.sendall(data)
        except OSError as exc:
            raise PortGone(f"TCP shoe {self.name}: {exc}") from exc

    def _drop_client(self) -> None:
        with self._lock:
            client, self._client, self._ready = self._client, None, False
        if client is not None:
            with contextlib.suppress(OSError):
                client.close()

    def _serve(self) -> None:
        try:
            while True:
                with self._lock:
                    if self._closed:
                        return
                    watch = [self._server, self._wake_r] + (
                        [self._client] if self._client is not None else [])
                try:
                    readable, _, _ = select.select(watch, [], [])
                except (OSError, ValueError):  # a socket closed by unplug() meanwhile
                    continue
                if self._closed:
                    return
                if self._server in readable:
                    self._accept()
                client = self._client
                if client is not None and client in readable:
                    try:
                        data = client.recv(4096)
                    except OSError:
                        data = b""
                    if not data:
                        self._drop_client()
                        continue
                    if not self._ready:
                        self._ready = True
                        if self.on_host_open is not None:
                            self.on_host_open()
                    if self.on_host_data is not None:
                        self.on_host_data(data)
        finally:
            self._drop_client()
            os.close(self._wake_r)
            os.close(self._wake_w)

    def _accept(self) -> None:
        try:
            conn, _ = self._server.accept()
        except OSError:
            return
        if self._client is not None or self._busy:
            conn.close()  # one host at a time
            return
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            self._client = conn
            self._ready = not self._ready_on_data
        if self._ready and self.on_host_open is not None:
            self.on_host_open()

    def unplug(self) -> None:
        """Close the connection and stop listening."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            client, self._client = self._client, None
            os.write(self._wake_w, b"x")
        if client is not None:
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RDWR)
            client.close()
        with contextlib.suppress(OSError):  # stop listening now, even while select() holds it
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()

    def replug(self) -> TcpPort:
        """Unplug, then listen again on the same address."""
        self.unplug()
        self._thread.join(2.0)
        return self._hand_over(TcpPort(self.host, self.port, dialect=self.dialect))

    def set_busy(self, busy: bool) -> None:
        """While set, every new connection is closed at once."""
        self._busy = busy

    def close(self) -> None:
        """Unplug and wait for the server thread."""
        self.unplug()
        if self._thread is not threading.current_thread():
            self._thread.join(2.0)
