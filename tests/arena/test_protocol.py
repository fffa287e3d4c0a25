"""The arena's message checks: every malformed message is refused with the code that names its fault, and the
rate limiter's token bucket counts as a hand calculation says."""

from __future__ import annotations

import json

import pytest

from fivestack.arena.protocol import (
    ERROR_CODES, MAX_MESSAGE_BYTES, ORDERS, Command, ProtocolError, RateLimiter, error_frame, parse_command,
)


def order(**fields) -> str:
    return json.dumps({"type": "order", "hero": 0, **fields})


@pytest.mark.parametrize("raw, expected", [
    ('{"type": "hello", "token": "abc"}', Command("hello", token="abc")),
    ('{"type": "ping", "id": 7}', Command("ping", ping_id=7)),
    ('{"type": "pause"}', Command("pause")),
    (order(order="move", x=100, y=15999.5), Command("order", hero=0, order="move", x=100.0, y=15999.5)),
    (order(order="attack", unit=255), Command("order", hero=0, order="attack", unit=255)),
    (order(order="ability", slot=3), Command("order", hero=0, order="ability", slot=3)),
    (order(order="ability", slot=0, unit=12, x=1.0, y=2.0),
     Command("order", hero=0, order="ability", slot=0, unit=12, x=1.0, y=2.0)),
    (order(order="item", slot=5, x=0, y=0), Command("order", hero=0, order="item", slot=5, x=0.0, y=0.0)),
    (order(order="glyph"), Command("order", hero=0, order="glyph")),
])
def test_well_formed_messages_parse_to_commands(raw, expected):
    assert parse_command(raw) == expected


@pytest.mark.parametrize("raw, code", [
    (b'{"type": "pause"}', "not_json"),  # a binary frame
    ("x" * (MAX_MESSAGE_BYTES + 1), "too_large"),
    ('{"type": "pause", "pad": "' + "\u00e9" * 600 + '"}', "too_large"),  # under 1,024 characters, over in bytes
    ("{not json", "not_json"),
    ('{"type": "order", "hero": 0, "order": "move", "x": NaN, "y": 1}', "not_json"),
    ('{"type": "order", "hero": 0, "order": "move", "x": Infinity, "y": 1}', "not_json"),
    ("[1, 2]", "not_object"),
    ('"hello"', "not_object"),
    ('{"kind": "hello"}', "unknown_type"),
    ('{"type": "shutdown"}', "unknown_type"),
    ('{"type": ["order"]}', "unknown_type"),
    ('{"type": "hello"}', "bad_field"),
    ('{"type": "hello", "token": 5}', "bad_field"),
    ('{"type": "hello", "token": "' + "t" * 129 + '"}', "bad_field"),
    ('{"type": "ping", "id": -1}', "bad_field"),
    (order(order="teleport_anywhere"), "unknown_order"),
    (order(order=None), "unknown_order"),
    (json.dumps({"type": "order", "hero": 10, "order": "stop"}), "bad_field"),
    (json.dumps({"type": "order", "hero": True, "order": "stop"}), "bad_field"),
    (json.dumps({"type": "order", "hero": "0", "order": "stop"}), "bad_field"),
    (json.dumps({"type": "order", "hero": 0.0, "order": "stop"}), "bad_field"),
    (json.dumps({"type": "order", "order": "stop"}), "bad_field"),
    (order(order="move", x=1e300, y=1), "bad_field"),
    ('{"type": "order", "hero": 0, "order": "move", "x": 1e400, "y": 1}', "bad_field"),  # parses to inf
    (order(order="move", x=-0.5, y=1), "bad_field"),
    (order(order="move", x=1), "bad_field"),
    (order(order="move", x="1", y=1), "bad_field"),
    (order(order="attack", unit=256), "bad_field"),
    (order(order="attack", unit=10**30), "bad_field"),
    (order(order="attack"), "bad_field"),
    (order(order="ability", slot=4), "bad_field"),
    (order(order="item", slot=6), "bad_field"),
    (order(order="ability", slot=0, x=5), "bad_field"),  # x without y
    (order(order="stop", x=5, y=5), "bad_field"),  # a field the order does not take
])
def test_malformed_messages_are_refused_with_the_code_of_their_fault(raw, code):
    with pytest.raises(ProtocolError) as e:
        parse_command(raw)
    assert e.value.code == code
    assert error_frame(e.value.code, e.value.message) == {"type": "error", "code": code, "message": e.value.message}


def test_every_order_in_the_table_parses_with_its_required_fields():
    values = {"x": 10.0, "y": 20.0, "unit": 3, "slot": 0}
    for name, (needs, _) in ORDERS.items():
        command = parse_command(order(order=name, **{f: values[f] for f in needs}))
        assert command.order == name and all(getattr(command, f) == values[f] for f in needs)


def test_deep_nesting_inside_the_size_limit_is_refused_not_crashing():
    raw = "[" * 500 + "]" * 500
    with pytest.raises(ProtocolError) as e:
        parse_command(raw)
    assert e.value.code == "not_object"


def test_protocol_error_codes_are_the_documented_ones():
    with pytest.raises(AssertionError):
        ProtocolError("made_up", "x")
    assert len(set(ERROR_CODES)) == len(ERROR_CODES)


def test_rate_limiter_token_bucket_by_hand():
    now = [0.0]
    limiter = RateLimiter(rate=30.0, burst=30.0, clock=lambda: now[0])
    assert sum(limiter.allow() for _ in range(100)) == 30  # the burst, then nothing at the same instant
    now[0] += 0.1  # 3 tokens refilled
    assert sum(limiter.allow() for _ in range(10)) == 3
    now[0] += 10.0  # refill is capped at the burst
    assert sum(limiter.allow() for _ in range(100)) == 30
    # 1,000 messages spread over one second: the burst plus one second's refill
    limiter = RateLimiter(rate=30.0, burst=30.0, clock=lambda: now[0])
    allowed = 0
    for k in range(1000):
        now[0] += 0.001
        allowed += limiter.allow()
    assert 59 <= allowed <= 61
