"""A listener another local user could plant: it accepts one WebSocket upgrade after another on
the address and port it is given, records the request and the first message each client sends,
and answers nothing more (the client waits for a welcome that never comes)."""

from __future__ import annotations

import base64
import hashlib
import socket
import threading
from typing import List

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class Planted:
    def __init__(self, host: str, port: int) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self._received: List[bytes] = []
        self._lock = threading.Lock()
        self.first_message = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def received(self) -> bytes:
        with self._lock:
            return b"".join(self._received)

    def _keep(self, data: bytes) -> None:
        with self._lock:
            self._received.append(data)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed
            with conn:
                conn.settimeout(10)
                try:
                    self._session(conn)
                except OSError:
                    pass

    def _session(self, conn: socket.socket) -> None:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = conn.recv(4096)
            if not chunk:
                return
            request += chunk
        self._keep(request)
        key = b""
        for line in request.split(b"\r\n"):
            if line.lower().startswith(b"sec-websocket-key:"):
                key = line.split(b":", 1)[1].strip()
        accept = base64.b64encode(hashlib.sha1(key + _GUID).digest())
        conn.sendall(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n"
        )
        header = self._exactly(conn, 2)
        length = header[1] & 0x7F
        if length == 126:
            length = int.from_bytes(self._exactly(conn, 2), "big")
        elif length == 127:
            length = int.from_bytes(self._exactly(conn, 8), "big")
        mask = self._exactly(conn, 4) if header[1] & 0x80 else b"\0\0\0\0"
        payload = self._exactly(conn, length)
        self._keep(bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        self.first_message.set()
        conn.recv(1)  # until the client gives up

    @staticmethod
    def _exactly(conn: socket.socket, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                raise OSError("closed")
            data += chunk
        return data

    def close(self) -> None:
        self.sock.close()
        self._thread.join(5)
