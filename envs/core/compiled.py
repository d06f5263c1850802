"""How the rules are compiled: numba's ``njit``, cached on disk, so that a game compiles once, at its first use.

Nothing compiles at import: a function is compiled the first time it is called (then loaded from numba's cache in
later runs). With ``NUMBA_DISABLE_JIT=1`` every compiled function runs as the plain Python it is written in, which
is how coverage and debuggers see the rules.

The cache is a convenience, never a condition: where numba can write it nowhere (a read-only install run by a user
without a writable home), the rules compile in every process, with one warning; a cache file that cannot be read is
compiled again and written anew, with a warning naming it.
"""

from __future__ import annotations

import functools
import os
import types
import warnings

import numba
from numba.core.caching import FunctionCache
from numba.typed import List


def compiled(function):
    """``function`` compiled with numba (no Python objects inside: numbers and numpy arrays only)."""
    return _compile(function, parallel=False)


def on_threads(function):
    """A second compiled version of ``function`` (a compiled function or its Python source) whose ``numba.prange``
    loops run on ``numba.set_num_threads`` threads; ``function``'s own version runs them as plain loops. Kept apart
    because numba's threads start once per process, and a process forked after they started cannot use them: code
    that never asks for threads never starts them. It is cached under its own name (numba's cache tells the two
    versions apart by name only)."""
    source = getattr(function, "py_func", function)
    renamed = types.FunctionType(source.__code__, source.__globals__, source.__name__ + "_on_threads",
                                 source.__defaults__, source.__closure__)
    renamed.__qualname__ = source.__qualname__ + "_on_threads"
    renamed.__doc__, renamed.__module__ = source.__doc__, source.__module__
    return _compile(renamed, parallel=True)


def _compile(function, parallel: bool):
    dispatcher = numba.njit(function, parallel=parallel)
    if numba.config.DISABLE_JIT:
        return dispatcher  # the plain Python function
    try:
        # What numba.njit(cache=True) does (Dispatcher.enable_caching), with a cache that repairs itself.
        dispatcher._cache = RepairingCache(function)
    except RuntimeError:
        # numba's "no locator available": neither NUMBA_CACHE_DIR, nor the package's __pycache__, nor the home
        # folder's cache can be written. A temporary cache folder would save nothing for the next run (and would
        # have to be cleaned up), so the function compiles without a cache, as numba.njit(cache=False) does.
        warn_without_cache()
    return dispatcher


@functools.cache
def warn_without_cache():
    """Once per process, however many functions compile without a cache."""
    warnings.warn("tabletop-gym: numba cannot write its cache beside the package or in the home folder; compiling "
                  "without a cache (set NUMBA_CACHE_DIR to a writable folder to keep compiled rules between runs)")


class RepairingCache(FunctionCache):
    """numba's on-disk cache of one function, except that an entry it cannot load (a truncated or otherwise damaged
    file: numba raises, in every run, until the file is deleted) is compiled again and written over."""

    def load_overload(self, sig, target_context):
        try:
            return super().load_overload(sig, target_context)
        except Exception as error:  # whatever the damage, compiling again is the answer
            files = os.path.join(self.cache_path, f"{self._impl.filename_base}.*")
            warnings.warn(f"tabletop-gym: numba's cache files {files} cannot be read "
                          f"({type(error).__name__}: {error}); compiling {self._py_func.__qualname__} again")
            # An empty index: the damaged index (which numba's save would read again, and fail) or the index's
            # entry for the damaged data file is forgotten, and the fresh compile is saved over it.
            self.flush()
            return None


_GENERATOR_LISTS: dict = {}  # id of a generator -> (the generator, kept alive so its id is not reused; its list)


def generator_list(rng):
    """``rng`` (a numpy ``Generator``) in a numba typed list of one: compiled code takes the list in a microsecond,
    the generator alone in seven (longer than numpy's own draw of a few dice). Inside, the list's generator shares
    ``rng``'s state, so a compiled draw moves ``rng`` on as numpy's would. Kept for the last 64 generators asked
    (making the list takes twenty microseconds; a game asks for its generator's at every throw of the dice)."""
    kept = _GENERATOR_LISTS.get(id(rng))
    if kept is None:
        if len(_GENERATOR_LISTS) >= 64:
            del _GENERATOR_LISTS[next(iter(_GENERATOR_LISTS))]  # the oldest
        kept = _GENERATOR_LISTS[id(rng)] = (rng, List([rng]))
    return kept[1]


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
