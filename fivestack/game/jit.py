"""The one decorator every simulator kernel uses, and the cache stamp that keeps its compiled code fresh.

``_nrt=False`` compiles without Numba's reference counting. The kernels pass the state as tuples of arrays
(``S``, ``D``), and with reference counting every helper call increfs and decrefs each array it unpacks:
measured here, that made a small helper 150x slower. The price is that a kernel may not allocate arrays
(no ``np.empty`` inside): scratch memory is allocated in Python and passed in.

Numba's on-disk cache (``cache=True``) checks only the file that defines a kernel; the kernels it calls are
compiled into its cached code, and the constants it reads (``game.layout``, ``game.patch``) are folded in.
So after an edit to ``game/kernels/combat.py`` a cached ``step_games`` would still run the old
``deal_damage``. ``kernel`` therefore stamps each cache entry also with a digest of the contents of every
Python file under ``fivestack/game`` and under the kernel's own subpackage (``fivestack/env``,
``fivestack/bots``, ...): an edit to any of them recompiles the kernels that may depend on it on next use.
"""

from __future__ import annotations

import hashlib
import warnings
from functools import lru_cache
from pathlib import Path

from numba import njit

_njit = njit(cache=True, nogil=True, _nrt=False)
FIVESTACK_DIR = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=None)
def sources_digest(subpackage: str) -> str:
    """sha1 of the paths and contents of every ``.py`` file under ``fivestack/<subpackage>``."""
    digest = hashlib.sha1()
    for path in sorted((FIVESTACK_DIR / subpackage).rglob("*.py")):
        digest.update(str(path.relative_to(FIVESTACK_DIR)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def source_packages(module: str) -> tuple[str, ...]:
    """The subpackages whose sources a kernel defined in ``module`` may depend on: ``game`` and its own."""
    parts = module.split(".")
    own = parts[1] if len(parts) > 2 and parts[0] == "fivestack" else "game"
    return ("game",) if own == "game" else ("game", own)


def kernel(func):
    """``njit(cache=True, nogil=True, _nrt=False)``, with the cache stamped by the sources it may depend on."""
    dispatcher = _njit(func)
    if not hasattr(dispatcher, "py_func"):  # NUMBA_DISABLE_JIT=1: a plain Python function, nothing cached
        return dispatcher
    try:
        cache_file = dispatcher._cache._cache_file
        own_file_stamp = cache_file._source_stamp
    except AttributeError:  # Numba moved its cache internals: fall back to its own per-file stamp
        warnings.warn("fivestack.game.jit: this Numba version's cache has no _cache_file._source_stamp; cached "
                      "kernels are now refreshed only when their own file changes (clear __pycache__ after edits)",
                      stacklevel=2)
        return dispatcher
    cache_file._source_stamp = (own_file_stamp, *(sources_digest(p) for p in source_packages(func.__module__)))
    return dispatcher
