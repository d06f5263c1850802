"""How the rules are compiled: numba's ``njit``, cached on disk, so that a game compiles once, at its first use.

Nothing compiles at import: a function is compiled the first time it is called (then loaded from numba's cache in
later runs). With ``NUMBA_DISABLE_JIT=1`` every compiled function runs as the plain Python it is written in, which
is how coverage and debuggers see the rules.
"""

from __future__ import annotations

import numba


def compiled(function):
    """``function`` compiled with numba (no Python objects inside: numbers and numpy arrays only)."""
    return numba.njit(cache=True)(function)
