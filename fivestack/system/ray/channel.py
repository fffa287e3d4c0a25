"""The rollout -> inference -> rollout hop on one machine: shared memory and a Unix socket, not Ray calls.

A Ray call carrying a 5v5 request (~1.4 MB of observations) is serialised, copied into the object store and
scheduled through the raylet, and its result (the LSTM state, ~160 KB) makes the same trip back: about as long
as the forward pass itself. Here a rollout worker and the inference actor on the same machine share one block
of memory (``os.memfd_create``, its descriptor passed over the socket, so nothing is left behind in /dev/shm
when either process dies):

    rollout worker                                      inference actor (ChannelServer thread)
      writes the request's arrays into the block  --16-byte header (version, teams)-->  reads them in place
      copies the result out of the block         <--24-byte header (status, version, teams)--  writes them

The block holds a request region and a result region, each a fixed array per field sized for the worker's
largest request (all its teams); a request of fewer teams (past opponents' rows left out) fills the first rows.
The socket is the signal: a peer that dies closes it, and the other side gets ``ChannelClosed`` at once instead
of waiting forever. Across machines (or without ``memfd_create``) the worker falls back to the Ray call.
"""

from __future__ import annotations

import json
import mmap
import os
import selectors
import socket
import struct
import threading
import uuid
from dataclasses import dataclass
from typing import Callable

import numpy as np

from fivestack.match.inference import InferenceRequest, InferenceResult
from fivestack.model.policy import HEADS

REQUEST = struct.Struct("<qq")  # version asked for, teams
REPLY = struct.Struct("<qqq")  # status (0 ok, else the length of an error message that follows), version, teams
ALIGN = 64


class ChannelClosed(ConnectionError):
    """The peer's end of the channel closed (its process died or closed it)."""


def available() -> bool:
    return hasattr(os, "memfd_create") and hasattr(socket, "send_fds") and hasattr(socket, "AF_UNIX")


@dataclass(frozen=True)
class Field:
    name: str
    tail: tuple[int, ...]  # shape after the teams axis
    dtype: str

    @property
    def row_bytes(self) -> int:
        return int(np.prod(self.tail, dtype=np.int64)) * np.dtype(self.dtype).itemsize


@dataclass(frozen=True)
class Layout:
    """Where each array of a request and of its result lives in the block; every field has a leading teams axis
    (the LSTM state (T * K, H) is stored as (T, K, H))."""

    teams: int  # the most teams a request may hold
    request: tuple[Field, ...]
    result: tuple[Field, ...]

    @staticmethod
    def for_request(request: InferenceRequest, teams: int, result_dtypes: dict[str, str] | None = None) -> "Layout":
        """The layout for requests shaped like ``request`` (any number of teams up to ``teams``)."""
        t, k = request.hero_slots.shape
        h = request.state[0].shape[-1]
        fields = [Field(f"obs.{name}", tuple(arr.shape[1:]), arr.dtype.str) for name, arr in request.obs.items()]
        fields += [Field("hero_slots", (k,), request.hero_slots.dtype.str),
                   Field("state.h", (k, h), request.state[0].dtype.str),
                   Field("state.c", (k, h), request.state[1].dtype.str),
                   Field("first", (), request.first.dtype.str)]
        d = {"actions": "<i8", "head_log_prob": "<f4", "value": "<f4", "win_prob": "<f4", "state": "<f4"}
        d.update(result_dtypes or {})
        result = (Field("actions", (k, 5), d["actions"]), Field("head_log_prob", (k, len(HEADS)), d["head_log_prob"]),
                  Field("value", (k,), d["value"]), Field("win_prob", (k,), d["win_prob"]),
                  Field("state.h", (k, h), d["state"]), Field("state.c", (k, h), d["state"]))
        return Layout(teams, tuple(fields), result)

    def to_json(self) -> str:
        return json.dumps({"teams": self.teams, "request": [[f.name, f.tail, f.dtype] for f in self.request],
                           "result": [[f.name, f.tail, f.dtype] for f in self.result]})

    @staticmethod
    def from_json(text: str) -> "Layout":
        d = json.loads(text)
        return Layout(d["teams"], tuple(Field(n, tuple(t), dt) for n, t, dt in d["request"]),
                      tuple(Field(n, tuple(t), dt) for n, t, dt in d["result"]))

    def size(self) -> int:
        return sum(_padded(self.teams * f.row_bytes) for f in self.request + self.result)

    def views(self, buf) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """(request arrays, result arrays), each (teams, *tail), over the block ``buf``."""
        at = 0
        out: tuple[dict, dict] = ({}, {})
        for side, fields in zip(out, (self.request, self.result)):
            for f in fields:
                n = self.teams * int(np.prod(f.tail, dtype=np.int64))
                side[f.name] = np.frombuffer(buf, np.dtype(f.dtype), n, at).reshape(self.teams, *f.tail)
                at += _padded(self.teams * f.row_bytes)
        return out


def _padded(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def _recv_exact(sock: socket.socket, n: int, who: str) -> bytes:
    data = bytearray()
    while len(data) < n:
        try:
            chunk = sock.recv(n - len(data))
        except (ConnectionResetError, BrokenPipeError) as exc:
            raise ChannelClosed(f"{who} closed the channel ({exc})") from None
        if not chunk:
            raise ChannelClosed(f"{who} closed the channel (its process died or it shut down)")
        data += chunk
    return bytes(data)


def _send(sock: socket.socket, data: bytes, who: str) -> None:
    try:
        sock.sendall(data)
    except (ConnectionResetError, BrokenPipeError) as exc:
        raise ChannelClosed(f"{who} closed the channel ({exc})") from None


class ChannelClient:
    """A rollout worker's end: ``client(version, request) -> InferenceResult``, the result's arrays its own."""

    def __init__(self, address: str, layout: Layout, peer: str = "the inference actor"):
        self.layout = layout
        self.peer = peer
        size = layout.size()
        fd = os.memfd_create("fivestack-inference", os.MFD_CLOEXEC)
        try:
            os.ftruncate(fd, size)
            self.block = mmap.mmap(fd, size)
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self.sock.connect(address)
            except (FileNotFoundError, ConnectionRefusedError) as exc:
                self.sock.close()
                raise ChannelClosed(f"{peer} is not listening at {address!r} ({exc})") from None
            spec = layout.to_json().encode()
            socket.send_fds(self.sock, [struct.pack("<q", len(spec)) + spec], [fd])
        finally:
            os.close(fd)  # the mapping and the peer's copy keep the memory
        if _recv_exact(self.sock, 2, peer) != b"ok":
            raise ChannelClosed(f"{peer} refused the channel")
        self.requests, self.results = layout.views(self.block)

    def fits(self, request: InferenceRequest) -> bool:
        t = len(request.first)
        if t > self.layout.teams:
            return False
        for f in self.layout.request:
            arr = self._field(request, f.name)
            if arr.dtype.str != f.dtype or arr.shape[1:] != f.tail:
                return False
        return True

    @staticmethod
    def _field(request: InferenceRequest, name: str) -> np.ndarray:
        if name.startswith("obs."):
            return request.obs[name[4:]]
        if name == "state.h" or name == "state.c":
            s = request.state[0 if name == "state.h" else 1]
            return s.reshape(len(request.first), -1, s.shape[-1])
        arr = getattr(request, name)
        return arr

    def __call__(self, version: int, request: InferenceRequest) -> InferenceResult:
        t = len(request.first)
        for f in self.layout.request:
            self.requests[f.name][:t] = self._field(request, f.name)
        _send(self.sock, REQUEST.pack(version, t), self.peer)
        status, version, teams = REPLY.unpack(_recv_exact(self.sock, REPLY.size, self.peer))
        if status:
            raise RuntimeError(f"{self.peer}: {_recv_exact(self.sock, status, self.peer).decode()}")
        r = {name: arr[:teams].copy() for name, arr in self.results.items()}
        state = tuple(r[n].reshape(teams * r[n].shape[1], -1) for n in ("state.h", "state.c"))
        return InferenceResult(r["actions"], r["head_log_prob"], r["value"], r["win_prob"], state, int(version))

    def close(self) -> None:
        self.sock.close()
        self.requests = self.results = {}
        try:
            self.block.close()
        except BufferError:  # a view still held somewhere: the mapping goes with it
            pass


Handler = Callable[[int, InferenceRequest, Callable[[InferenceResult | Exception], None]], None]


class ChannelServer:
    """The inference actor's end: a thread that accepts rollout workers' channels and hands each request to
    ``handler(version, request, reply)``; ``reply(result or exception)`` (from any thread) writes the result into
    the block and wakes the worker. The request's arrays are views of the block: valid until ``reply``."""

    def __init__(self, handler: Handler):
        self.handler = handler
        self.address = f"\0fivestack-inference-{os.getpid()}-{uuid.uuid4().hex}"  # abstract: no file to remove
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.address)
        self.listener.listen(64)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.peers: dict[int, tuple] = {}  # fd -> (socket, layout, block, request views, result views)
        self.closed = False
        self.thread = threading.Thread(target=self._serve, daemon=True, name="inference-channel")
        self.thread.start()

    def _accept(self) -> None:
        sock, _ = self.listener.accept()
        fds: list[int] = []
        try:
            head, fds, _, _ = socket.recv_fds(sock, 8, 1)
            if len(head) < 8 or not fds:
                raise ChannelClosed("no handshake")
            layout = Layout.from_json(_recv_exact(sock, struct.unpack("<q", head)[0], "a rollout worker").decode())
            size = layout.size()
            if os.fstat(fds[0]).st_size < size:
                raise ChannelClosed("block smaller than its layout")
            block = mmap.mmap(fds[0], size)
        except (ChannelClosed, OSError, ValueError):
            sock.close()
            return
        finally:
            for fd in fds:
                os.close(fd)
        requests, results = layout.views(block)
        self.peers[sock.fileno()] = (sock, layout, block, requests, results)
        self.selector.register(sock, selectors.EVENT_READ)
        sock.sendall(b"ok")

    def _drop(self, fd: int) -> None:
        sock = self.peers.pop(fd)[0]
        self.selector.unregister(sock)
        sock.close()  # the block is unmapped once the last view of it is gone

    def _request(self, fd: int) -> None:
        sock, layout, block, requests, results = self.peers[fd]
        try:
            version, t = REQUEST.unpack(_recv_exact(sock, REQUEST.size, "a rollout worker"))
        except ChannelClosed:
            self._drop(fd)
            return
        k = requests["hero_slots"].shape[1]
        obs = {f.name[4:]: requests[f.name][:t] for f in layout.request if f.name.startswith("obs.")}
        state = tuple(requests[n][:t].reshape(t * k, -1) for n in ("state.h", "state.c"))
        request = InferenceRequest(obs, requests["hero_slots"][:t], state, requests["first"][:t])

        def reply(result: InferenceResult | Exception) -> None:
            try:
                if isinstance(result, Exception):
                    message = f"{type(result).__name__}: {result}".encode()
                    sock.sendall(REPLY.pack(len(message) or 1, -1, 0) + (message or b"?"))
                    return
                n = len(result.head_log_prob)
                for name in ("actions", "head_log_prob", "value", "win_prob"):
                    results[name][:n] = getattr(result, name)
                for name, s in zip(("state.h", "state.c"), result.state):
                    results[name][:n] = s.reshape(n, k, -1)
                sock.sendall(REPLY.pack(0, result.version, n))
            except OSError:  # the worker died while its request was in flight: its socket is dropped on EOF
                pass

        self.handler(version, request, reply)

    def _serve(self) -> None:
        while not self.closed:
            try:
                events = self.selector.select(timeout=1.0)
            except (OSError, ValueError):
                return
            for key, _ in events:
                if key.fileobj is self.listener:
                    self._accept()
                else:
                    self._request(key.fd)

    def close(self) -> None:
        self.closed = True
        self.thread.join(timeout=2.0)
        for fd in list(self.peers):
            self._drop(fd)
        self.listener.close()
