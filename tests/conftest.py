"""Settings for every test: the test machine's cores are shared, so torch runs on one thread, which keeps each
test fast and its floating-point results deterministic. And the one way tests open a browser: ``browser``, headless
Debian Chromium driven by Playwright (``scripts/setup.sh`` installs both; Playwright never downloads a browser).

Per-test timeouts and the ``slow`` marker live in ``pyproject.toml`` (``[tool.pytest.ini_options]``):
``pytest -m "not slow"`` is the quick loop, plain ``pytest`` (what CI runs) is everything.
"""

import shutil
from pathlib import Path

import pytest
import torch

torch.set_num_threads(1)

CHROMIUM = "/usr/bin/chromium"
# headless as root, and no background connections (this machine's network is closed: they would only fail)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module (``browser.new_page(...)`` per test)."""
    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        pytest.fail(f"{CHROMIUM} is missing: run scripts/setup.sh (it installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
