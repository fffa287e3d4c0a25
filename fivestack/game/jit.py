"""The one decorator every simulator kernel uses.

``_nrt=False`` compiles without Numba's reference counting. The kernels pass the state as tuples of arrays
(``S``, ``D``), and with reference counting every helper call increfs and decrefs each array it unpacks:
measured here, that made a small helper 150x slower. The price is that a kernel may not allocate arrays
(no ``np.empty`` inside): scratch memory is allocated in Python and passed in.
"""

from numba import njit

kernel = njit(cache=True, nogil=True, _nrt=False)
