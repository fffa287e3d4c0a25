"""What the arena page may say, checked before anything reaches the game.

The browser only sends commands; the game runs on the server. Each message is one JSON object in a text frame,
at most ``MAX_MESSAGE_BYTES`` long, and ``parse_command`` turns it into a typed ``Command`` or raises one
``ProtocolError(code, message)``: the server answers every refused message with exactly one ``error_frame`` and
counts it by code. Here only the *form* is checked (types, names, ranges); whether the order is possible in this
game (the player's hero, a unit the team sees, an ability that is ready) is ``ArenaGame.order``'s check.

    hello   {"type": "hello", "token": str}                      first, with the page's per-game token
    order   {"type": "order", "hero": int, "order": NAME, ...}   NAME in ORDERS, with the fields it lists
    pause / resume / leave                                      the game clock; leave forfeits
    ping    {"type": "ping", "id": int}                          answered with {"type": "pong", "id": ...}

Every value is checked by type before it is used, so that nothing a socket can send raises anything but
``ProtocolError``: integers of any size (compared exactly, never turned into floats), floats that overflow to
infinity, ``NaN``/``Infinity`` literals, strings, lists or objects where a name belongs, duplicate keys (refused:
a message means one thing), nesting too deep for the parser.

``RateLimiter`` is the per-connection budget (a token bucket: ``RATE_PER_SECOND`` with a burst of ``RATE_BURST``).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass

from fivestack.game.layout import MAP_SIZE, MAX_UNITS, N_HEROES

MAX_MESSAGE_BYTES = 1024
RATE_PER_SECOND = 30.0
RATE_BURST = 30.0
MAX_TOKEN_CHARS = 128

ERROR_CODES = (
    "too_large", "not_json", "not_object", "unknown_type", "bad_field", "unknown_order", "not_your_hero",
    "unit_not_visible", "not_available", "rate_limited", "not_authenticated", "bad_token", "finished", "busy",
)
MESSAGE_TYPES = ("hello", "order", "pause", "resume", "leave", "ping")

# order name -> (the fields it needs, the fields it may have)
ORDERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "move": (("x", "y"), ()),
    "attack": (("unit",), ()),
    "attack_move": (("x", "y"), ()),
    "stop": ((), ()),
    "hold": ((), ()),
    "pickup": ((), ()),
    "ability": (("slot",), ("x", "y", "unit")),
    "item": (("slot",), ("x", "y", "unit")),
    "town_portal": (("unit",), ()),
    "glyph": ((), ()),
    "buyback": ((), ()),
}
SLOTS = {"ability": 4, "item": 6}  # slot ranges of the orders that take one
ENVELOPE = {"type", "hero", "order"}


class ProtocolError(ValueError):
    """A refused message: ``code`` (one of ``ERROR_CODES``) and a message that says what was wrong."""

    def __init__(self, code: str, message: str):
        assert code in ERROR_CODES, code
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Command:
    """A well-formed message. ``kind`` is the message type; for an order, ``order`` is its name and the other
    fields are what it gave (``None`` where it gave nothing)."""

    kind: str
    token: str | None = None
    hero: int | None = None
    order: str | None = None
    x: float | None = None
    y: float | None = None
    unit: int | None = None
    slot: int | None = None
    ping_id: int | None = None


def error_frame(code: str, message: str) -> dict:
    return {"type": "error", "code": code, "message": message}


# ---------------------------------------------------------------------------------------------------- parsing
def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _object_without_duplicates(pairs: list[tuple[str, object]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise ValueError("a key appears twice in one object")
    return obj


def _int(obj: dict, name: str, low: int, high: int) -> int:
    value = obj.get(name)
    if type(value) is not int:  # bool is an int subclass: refused too
        raise ProtocolError("bad_field", f"{name!r} must be an integer in [{low}, {high}], got {_show(value)}")
    if not low <= value <= high:
        raise ProtocolError("bad_field", f"{name!r} must lie in [{low}, {high}], got {_show(value)}")
    return value


def _coordinate(obj: dict, name: str) -> float:
    value = obj.get(name)
    # an int is compared as it is: one of a few hundred digits would overflow float() (and math.isfinite)
    if type(value) not in (int, float) or (type(value) is float and not math.isfinite(value)):
        raise ProtocolError("bad_field", f"{name!r} must be a number in [0, {MAP_SIZE:g}], got {_show(value)}")
    if not 0 <= value <= MAP_SIZE:
        raise ProtocolError("bad_field", f"{name!r} must lie in [0, {MAP_SIZE:g}] (world units), got {_show(value)}")
    return float(value)


def _show(value) -> str:
    """A short, safe rendering of a value from the network for an error message."""
    if type(value) is int and not -10**30 < value < 10**30:
        return f"an integer of {len(str(abs(value)))} digits"
    text = json.dumps(value) if isinstance(value, (int, float, str, bool, type(None))) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def parse_command(raw: str | bytes) -> Command:
    """One client message -> ``Command``, or ``ProtocolError`` naming what is wrong (see the module docstring)."""
    if isinstance(raw, (bytes, bytearray, memoryview)):
        raise ProtocolError("not_json", "send JSON text frames, not binary ones")
    if len(raw) > MAX_MESSAGE_BYTES or len(raw.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"a message is at most {MAX_MESSAGE_BYTES} bytes")
    try:
        obj = json.loads(raw, parse_constant=_reject_constant, object_pairs_hook=_object_without_duplicates)
    except (ValueError, RecursionError) as e:
        raise ProtocolError("not_json", f"not valid JSON ({str(e)[:80]})") from None
    if not isinstance(obj, dict):
        raise ProtocolError("not_object", f"a message is a JSON object with a 'type', got {type(obj).__name__}")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in MESSAGE_TYPES:
        raise ProtocolError("unknown_type", f"unknown message type {_show(kind)}; one of: {', '.join(MESSAGE_TYPES)}")
    if kind == "hello":
        token = obj.get("token")
        if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN_CHARS:
            raise ProtocolError("bad_field", "'token' must be the page's token (a string)")
        return Command("hello", token=token)
    if kind == "ping":
        return Command("ping", ping_id=_int(obj, "id", 0, 2**31 - 1))
    if kind != "order":
        return Command(kind)
    return _parse_order(obj)


def _parse_order(obj: dict) -> Command:
    hero = _int(obj, "hero", 0, N_HEROES - 1)
    name = obj.get("order")
    if not isinstance(name, str) or name not in ORDERS:  # a list or an object is not a key
        raise ProtocolError("unknown_order", f"unknown order {_show(name)}; one of: {', '.join(ORDERS)}")
    needs, may = ORDERS[name]
    extra = set(obj) - ENVELOPE - set(needs) - set(may)
    if extra:
        raise ProtocolError("bad_field", f"order {name!r} takes no field {sorted(extra)[0]!r}")
    fields: dict = {}
    for field in (*needs, *(f for f in may if f in obj)):
        if field in ("x", "y"):
            fields[field] = _coordinate(obj, field)
        elif field == "unit":
            fields[field] = _int(obj, "unit", 0, MAX_UNITS - 1)
        elif field == "slot":
            fields[field] = _int(obj, "slot", 0, SLOTS[name] - 1)
    if ("x" in fields) != ("y" in fields):
        raise ProtocolError("bad_field", f"order {name!r}: give both 'x' and 'y', or neither")
    return Command("order", hero=hero, order=name, **fields)


# ---------------------------------------------------------------------------------------------------- rate
class RateLimiter:
    """A token bucket: ``allow()`` spends one token if there is one. Tokens refill at ``rate`` per second up to
    ``burst``. ``clock`` is injectable so that a test can drive time."""

    def __init__(self, rate: float = RATE_PER_SECOND, burst: float = RATE_BURST, clock=time.monotonic):
        self.rate, self.burst, self.clock = float(rate), float(burst), clock
        self.tokens = float(burst)
        self.last = clock()

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


__all__ = ["Command", "ERROR_CODES", "MAX_MESSAGE_BYTES", "MESSAGE_TYPES", "ORDERS", "ProtocolError", "RATE_BURST",
           "RATE_PER_SECOND", "RateLimiter", "error_frame", "parse_command"]
