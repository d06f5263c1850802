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


@compiled
def only_action(mask):
    """The one legal action of ``mask``, or -1 when there are none or several: a forced move, for every game's
    compiled ``play_forced``."""
    only = -1
    for action in range(mask.shape[0]):
        if mask[action]:
            if only >= 0:
                return -1
            only = action
    return only
