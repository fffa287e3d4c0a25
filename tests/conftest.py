"""Settings for every test: the test machine's cores are shared, so torch runs on one thread, which keeps each
test fast and its floating-point results deterministic.

Per-test timeouts and the ``slow`` marker live in ``pyproject.toml`` (``[tool.pytest.ini_options]``):
``pytest -m "not slow"`` is the quick loop, plain ``pytest`` (what CI runs) is everything.
"""

import torch

torch.set_num_threads(1)
