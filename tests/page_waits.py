"""Waiting on a page in the real-browser tests (``tests/arena/test_page.py``, ``tests/viewer/test_draft_screen.py``).

Importable from any test module: pytest puts this folder on ``sys.path`` (the root ``conftest.py`` lives here).
"""

from __future__ import annotations

import time


def wait_for(page, condition, timeout: float, what: str, poll_ms: int = 100):
    """Poll ``condition`` until it is truthy (returned); the page's events are delivered meanwhile (the page
    waits ``poll_ms`` between polls). Fails naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        page.wait_for_timeout(poll_ms)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
